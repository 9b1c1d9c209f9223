/**
 * What one generation is made from: the manifest and where it was found, the workspace and host
 * state it runs under, the embedder's services and callbacks, and how its child is launched.
 */
import type { HostState, ManifestSource, OctetError } from "@octet/protocol";
import type { ExtensionManifest } from "../manifest/manifest.js";
import type { HostEvent } from "../events.js";
import type { ConfirmService, InputService } from "../child-inbox.js";
import type { ServiceFactory } from "../services/child-service.js";
import type { ForeignExtension, ForeignLaunchContext } from "../foreign-runtime.js";
import type { ChildLauncher } from "./child.js";

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
  /** Answers confirmation/request; absent means no interactive frontend, which denies (CONF-04). */
  confirm?: ConfirmService | undefined;
  /** Answers input/request (API 0.2+); absent means headless, which cancels (INPUT-06). */
  input?: InputService | undefined;
  initializeTimeoutMs?: number;
  /** How long a frame may stay unfinished on stdout (default FRAME_ASSEMBLY_TIMEOUT_MS). */
  frameAssemblyTimeoutMs?: number;
  /**
   * Called in the stop sequence after the drain and before the shutdown request: the moment to
   * send the remaining lifecycle terminal events (LIFE-12). `reason` says why it stops.
   */
  onDrained?: ((reason: "shutdown" | "reload") => void) | undefined;
  /** Called once when the generation ends for any reason other than a requested stop. */
  onUnexpectedEnd?: (error: OctetError) => void;
  /** The host services the embedder bound; each builds this generation's instance (services/). */
  services?: readonly ServiceFactory[];
  /** A foreign runtime's extension (foreign-runtime.ts): launched by it instead of spawned here. */
  foreign?: { extension: ForeignExtension; trusted: boolean; catalog?: ForeignLaunchContext["catalog"] };
  /** Starts the child; default: a process spawned the host's way, or the foreign runtime's instance. */
  launch?: ChildLauncher | undefined;
}
