/**
 * What one generation is made from: the manifest and where it was found, the workspace and host
 * state it runs under, the embedder's services and callbacks, and how its child is launched.
 */
import type { HostState, ManifestSource, OctetError } from "@octet/protocol";
import type { ExtensionManifest } from "../manifest/manifest.js";
import type { HostEvent } from "../events.js";
import type { BoundModule } from "../modules/module.js";
import type { ForeignExtension, ForeignLaunchContext, ForeignSessionLayer } from "../foreign-runtime.js";
import type { ChildLauncher } from "./child.js";
import type { FrameTrace } from "../transport/frame-trace.js";

/** A foreign runtime's extension, how the host launches it, and what it tells the runtime. */
export interface ForeignSpec {
  extension: ForeignExtension;
  trusted: boolean;
  catalog?: ForeignLaunchContext["catalog"];
  /** The events the embedder's session layer delivers itself (ForeignLaunchContext.sessionLayer). */
  sessionLayer?: ForeignSessionLayer | undefined;
}

export interface GenerationSpec {
  manifest: ExtensionManifest;
  manifestPath: string;
  extensionDir: string;
  source: ManifestSource;
  workspace: string;
  number: number;
  instanceId: string;
  host: HostState;
  parentEnv: Readonly<Record<string, string | undefined>>;
  emit: (event: HostEvent) => void;
  initializeTimeoutMs?: number;
  /** How long a frame may stay unfinished on stdout (default FRAME_ASSEMBLY_TIMEOUT_MS). */
  frameAssemblyTimeoutMs?: number;
  /** Where every frame of this generation is traced (--trace); none by default. */
  trace?: FrameTrace;
  /**
   * Called in the stop sequence after the drain and before the shutdown request: the moment to
   * send the remaining lifecycle terminal events (LIFE-12). `reason` says why it stops.
   */
  onDrained?: ((reason: "shutdown" | "reload") => void) | undefined;
  /** Called once when the generation ends for any reason other than a requested stop. */
  onUnexpectedEnd?: (error: OctetError) => void;
  /** The host modules, bound to the embedder's services; each opens this generation's instance (modules/). */
  modules: readonly BoundModule[];
  /** A foreign runtime's extension (foreign-runtime.ts): launched by it instead of spawned here. */
  foreign?: ForeignSpec;
  /** Starts the child; default: a process spawned the host's way, or the foreign runtime's instance. */
  launch?: ChildLauncher | undefined;
}
