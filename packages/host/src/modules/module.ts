/**
 * A host module: one host feature, in one folder (issue 14.2). A module says what the host offers
 * in initialize for a manifest, which child requests and notifications it answers, and which
 * host requests it sends; the registry (registry.ts) is the one list the initialize offer, the
 * child-inbox dispatch and the services an embedder can bind are built from.
 *
 * A module exists for a generation only when it is bound (INIT-29): an embedder service that was
 * not given is not offered, and a method of a module not open for a generation is answered as
 * unsupported by the inbox. The inbox keeps the generic rules (child ids, the 128 outstanding
 * requests, readiness); a module sees only its own methods.
 */
import type { ApiVersion, JsonRpcId, MethodSpec, ResourceOwner, ToolDefinition } from "@octet/protocol";
import type { DiagnosticLevel, HostEvent } from "../events.js";
import type { ExtensionManifest } from "../manifest/manifest.js";
import type { HostServiceOptions, NameOwners } from "./options.js";
import type { CollectEnv, RequestTarget } from "./target.js";

/** An active host request as a parent of reverse requests. */
export interface ActiveParent {
  method: string;
  /** For hook/run: the hook it runs. */
  hook?: string;
  /** Aborted when the request settles. */
  signal: AbortSignal;
  /** True once if the embedder pre-approved this request's first confirmation (MENU-13). */
  takeApproval(): boolean;
}

/** One reverse request as a module sees it. */
export interface ChildRequestScope {
  readonly method: string;
  readonly id: JsonRpcId;
  readonly params: unknown;
  /** Aborted when the extension cancels this request ($/cancelRequest) or the generation ends. */
  readonly signal: AbortSignal;
  /**
   * For operation-scoped requests: the active tool/call or command/execute named by
   * `parentId`, with a signal that also aborts when that parent settles. Throws the -32002
   * WireError of REV-08 when there is no such active parent.
   */
  parent(parentId: unknown): { signal: AbortSignal; parent: ActiveParent; parentId: number };
}

export type ChildRequestHandler = (scope: ChildRequestScope) => Promise<unknown>;
export type ChildNotificationHandler = (params: unknown) => void;

/** What one bound module holds for one generation: its handlers and what it releases at the end. */
export interface GenerationService {
  /** Optional features this instance makes the host offer (only on API versions it supports). */
  readonly features: readonly string[];
  readonly requests?: Readonly<Record<string, ChildRequestHandler>>;
  readonly notifications?: Readonly<Record<string, ChildNotificationHandler>>;
  /** Called once the initialize response is accepted, with the features the extension selected. */
  negotiated?(features: readonly string[]): void;
  /** Called once when the generation ends (stopped or crashed): release what it held. */
  dispose?(): void;
}

/** What a module knows of the generation it serves. */
export interface ServiceGeneration {
  readonly name: string;
  readonly api: ApiVersion;
  readonly number: number;
  readonly manifest: ExtensionManifest;
  /** The generation's private scratch directory (OCTET_EXTENSION_SCRATCH), once spawned. */
  scratchDir(): string | null;
  /** The host-issued owner triple of this generation. */
  owner(): ResourceOwner;
  /** The generation's published tools and the one way to change them (dynamic tools). */
  readonly catalog: {
    tools(): readonly ToolDefinition[];
    /** Publishes the complete next list; returns the new revision; throws if a schema does not compile. */
    publish(next: readonly ToolDefinition[]): number;
    /** The features negotiated (empty until initialize is accepted). */
    features(): readonly string[];
  };
  /** Aborted when the generation ends. */
  readonly ended: AbortSignal;
  /** The active host request with this id, for notifications that name a parent (presentation/update). */
  activeRequest(id: number): ActiveParent | undefined;
  /** Whether the host cancelled its request `id` (a known cancellation tombstone); absent: none known. */
  cancelledRequest?(id: number): boolean;
  diagnose(level: DiagnosticLevel, message: string): void;
  emit(event: HostEvent): void;
  /** A best-effort host->child notification (dropped once the peer closed); absent in a standalone inbox. */
  notify?(method: string, params: Record<string, unknown>): unknown;
  /** The clock of rate windows (tests inject one). */
  now?: () => number;
}

/** Builds one generation's instance of a bound module, or null when it does not apply to it. */
export type ServiceFactory = (g: ServiceGeneration) => GenerationService | null;

/** What a module may know of the host as a whole when it is bound. */
export interface ModuleHost {
  /** Tool names held by the host and by other extensions, for name reservation (CAT-06). */
  nameOwners: NameOwners;
}

/** What a module's embedder API sees of the host: the ready generations (discovery order), the collect channel. */
export interface EmbedderView {
  ready(): readonly RequestTarget[];
  env(): CollectEnv;
}

/**
 * One host feature. `bind` reads the embedder's option of this module (absent: the module needs
 * none and is always bound); `offer` names the optional features offered to a manifest, or null
 * when the module does not apply to it (then it is not opened, and its methods are unsupported);
 * `open` builds the generation's instance. The method lists are the module's own dispatch entries,
 * declarations from the protocol method table: a method an instance answers must be listed here,
 * so the inbox table is built statically and checked against the table's direction and kind.
 */
export interface HostModule<B = unknown, E extends object = object> {
  /** The module's name: its protocol feature, or the concern it covers when it has none. */
  readonly feature: string;
  bind?(options: HostServiceOptions, host: ModuleHost): B | null;
  offer(manifest: ExtensionManifest, api: ApiVersion, binding: B): readonly string[] | null;
  open(g: ServiceGeneration, binding: B): GenerationService | null;
  readonly childRequests: readonly MethodSpec[];
  readonly childNotifications: readonly MethodSpec[];
  /** The host->child requests this module sends. */
  readonly hostRequests?: readonly MethodSpec[];
  /** What the module adds to the embedder's surface (registry.ts embedderSurface). */
  embedderApi?(view: EmbedderView): E;
}

/** A module with the binding the embedder gave it. */
export interface BoundModule {
  readonly module: HostModule;
  readonly binding: unknown;
}

/**
 * Declares a module, keeping its binding type inside (the registry holds modules of every type)
 * and its embedder API's type outside (the embedder surface is typed from the registry).
 */
export function defineModule<B, E extends object = object>(module: HostModule<B, E>): HostModule<unknown, E> {
  return module as HostModule<unknown, E>;
}
