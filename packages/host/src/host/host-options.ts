/** What an embedder passes to ExtensionHost.start (and ExtensionHost.discover). */
import type { HostState } from "@octet/protocol";
import type { HostEventListener } from "../events.js";
import type { ConfirmService, InputService } from "../generation/child-inbox.js";
import type { SupervisorClock } from "../supervision/supervisor.js";
import type { RestartPolicy } from "../supervision/restart-policy.js";
import type { HostServiceOptions } from "../modules/registry.js";
import type { FrameTrace } from "../transport/frame-trace.js";
import type { ForeignRuntime, ForeignSessionLayer } from "../foreign-runtime.js";

export interface ExtensionHostOptions {
  /** The workspace: every child's cwd. Default: process.cwd(). */
  workspace?: string;
  /**
   * Foreign runtimes (e.g. rpiRuntime() from @octet/rpi): their manifests are discovered beside
   * extension.toml ones and their extensions served like any other.
   */
  runtimes?: readonly ForeignRuntime[];
  /**
   * The embedder runs a session layer (an agent) that delivers these events of the foreign
   * runtimes' own protocol itself, through foreignEvents(): a pi extension's `context`, `input`
   * or `session_before_compact` with pi's payloads and results. The runtimes then do not map
   * them onto octet's hooks and lifecycle events. Without it, they map what they can.
   */
  sessionLayer?: ForeignSessionLayer;
  /** Explicit extension directories (--extension-dir). */
  extensionDirs?: string[];
  /** Extensions to start; enablement is explicit (MAN-18). */
  enable?: string[];
  /** Explicit trust grants (--trust-extension). */
  trust?: string[];
  /** Removes the implicit authority of full access (MAN-20). */
  safeMode?: boolean;
  /** "full-access" (default) trusts enabled global extensions; "controlled" trusts only explicit grants. */
  policy?: "full-access" | "controlled";
  /** Where global extensions live: <octetHome>/extensions. Default $OCTET_HOME or ~/.octet. */
  octetHome?: string;
  /** The embedder's services; one left out is not offered, and its requests are refused or answered empty. */
  services?: { confirm?: ConfirmService; input?: InputService } & HostServiceOptions;
  session?: Partial<HostState>;
  onEvent?: HostEventListener;
  /** Every frame of every generation, both directions, to this trace (transport/frame-trace.ts). */
  trace?: FrameTrace;
  /** The environment the child allowlist is taken from. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Tool names the embedder owns; extensions cannot take them. */
  reservedToolNames?: string[];
  /** Deadlines; frameAssemblyMs: how long a frame may stay unfinished on stdout (default 10 s). */
  timeouts?: { initializeMs?: number; callMs?: number; collectMs?: number; frameAssemblyMs?: number };
  /** Aborting it during start() stops every extension started so far (fast shutdown). */
  signal?: AbortSignal;
  /**
   * Automatic restarts after an unexpected end (SUP-01..11). On by default; `enabled: false`
   * leaves a crashed extension down until reload(). `clock` and `policy` are for tests and for
   * embedders with their own limits.
   */
  supervision?: { enabled?: boolean; clock?: SupervisorClock; policy?: Partial<RestartPolicy> };
}
