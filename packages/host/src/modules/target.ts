/**
 * A ready generation as the modules that send host requests see it (collection, menus, advisory
 * hooks): its identity, what it declared and negotiated, and one way to ask it. The Generation
 * class satisfies it; the modules never import the class, so the layers do not loop.
 */
import type {
  AcceptedInitialize,
  ApiVersion,
  ExecutionContext,
  ForeignSessionEvents,
  ToolDefinition,
} from "@octet/protocol";
import type { HostEvent } from "../events.js";
import type { ExtensionManifest } from "../manifest/manifest.js";

export interface TargetRequestOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export interface RequestTarget {
  readonly name: string;
  readonly number: number;
  readonly api: ApiVersion;
  readonly spec: { readonly manifest: ExtensionManifest };
  readonly accepted: AcceptedInitialize | null;
  readonly features: readonly string[];
  readonly tools: readonly ToolDefinition[];
  context(withOwner: boolean): ExecutionContext;
  request(method: string, params: unknown, options: TargetRequestOptions): Promise<unknown>;
  /** A best-effort notification (message/updated); absent on targets that cannot take one. */
  notify?(method: string, params: Record<string, unknown>): unknown;
  /** A foreign instance's session events (modules/foreign-events); absent or null for octet extensions. */
  readonly sessionEvents?: ForeignSessionEvents | null;
}

/** What the collecting modules need of the host: the collect deadline and the event channel. */
export interface CollectEnv {
  collectMs: number;
  emit: (event: HostEvent) => void;
  diagnoseFailure: (g: { readonly name: string; readonly number: number }, what: string, err: unknown) => void;
}
