/**
 * The seam between the child inbox and the host services of API 0.2 (artifacts, presentation,
 * policy, secrets, dynamic tools): each service contributes, per generation, the optional
 * features it makes the host offer, the reverse requests and notifications it answers, and what
 * to release when the generation ends. The inbox keeps the generic rules (child ids, the 128
 * outstanding requests, readiness); a service sees only its own methods.
 *
 * A service exists for a generation only when the embedder bound it: a feature is never offered
 * without the service behind it (INIT-29), and a method of a service not bound is answered as
 * unsupported by the inbox.
 */
import type { ApiVersion, JsonRpcId, ResourceOwner, ToolDefinition } from "@octet/protocol";
import type { ActiveParent } from "../child-inbox.js";
import type { DiagnosticLevel, HostEvent } from "../events.js";
import type { ExtensionManifest } from "../manifest/manifest.js";
import type { MediaResolver } from "./artifacts/artifacts-service.js";

/** One reverse request as a service sees it. */
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

/** What one bound service provides to one generation. */
export interface GenerationService {
  /** Optional features this service makes the host offer (only on API versions it supports). */
  readonly features: readonly string[];
  readonly requests?: Readonly<Record<string, ChildRequestHandler>>;
  readonly notifications?: Readonly<Record<string, ChildNotificationHandler>>;
  /** Called once the initialize response is accepted, with the features the extension selected. */
  negotiated?(features: readonly string[]): void;
  /** Called once when the generation ends (stopped or crashed): release what it held. */
  dispose?(): void;
  /** The artifacts service only: resolves a result's image and audio parts (CALL-18). */
  readonly media?: MediaResolver;
}

/** What a service factory knows of the generation it serves. */
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
  diagnose(level: DiagnosticLevel, message: string): void;
  emit(event: HostEvent): void;
}

/** Builds one generation's instance of a service, or null when it does not apply to it. */
export type ServiceFactory = (g: ServiceGeneration) => GenerationService | null;

/** The services of one generation, merged: features offered, and method tables. */
export class GenerationServices {
  readonly features: string[];
  /** The artifacts service's resolver, when it is bound for this generation. */
  readonly media: MediaResolver | undefined;
  readonly #requests = new Map<string, ChildRequestHandler>();
  readonly #notifications = new Map<string, ChildNotificationHandler>();
  readonly #services: GenerationService[];

  constructor(services: GenerationService[]) {
    this.#services = services;
    const features = new Set<string>();
    for (const s of services) {
      for (const f of s.features) features.add(f);
      for (const [method, h] of Object.entries(s.requests ?? {})) this.#requests.set(method, h);
      for (const [method, h] of Object.entries(s.notifications ?? {})) this.#notifications.set(method, h);
    }
    this.features = [...features];
    this.media = services.find((s) => s.media)?.media;
  }

  static none(): GenerationServices {
    return new GenerationServices([]);
  }

  request(method: string): ChildRequestHandler | undefined {
    return this.#requests.get(method);
  }

  notification(method: string): ChildNotificationHandler | undefined {
    return this.#notifications.get(method);
  }

  negotiated(features: readonly string[]): void {
    for (const s of this.#services) s.negotiated?.(features);
  }

  dispose(): void {
    for (const s of this.#services) {
      try {
        s.dispose?.();
      } catch {
        // A service's cleanup failing must not stop the others'.
      }
    }
  }
}
