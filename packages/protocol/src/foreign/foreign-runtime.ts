/**
 * Foreign runtimes: extensions that speak another protocol (rpi's pi-extension.json, in
 * @octet/rpi) plugged into the octet host so they share its catalog, routing, status, reload and
 * supervision. A runtime finds its manifests next to extension.toml ones, validates them, and
 * launches an instance as a stand-in child that speaks octet's JSON-RPC on its stdio; the host
 * treats that child like any other. The host never imports a runtime (the embedder passes it)
 * and a runtime never imports the host: both implement these types, which is why they live here.
 *
 * Type-only, and generic in the two platform types this pure package cannot name: `Child`, what
 * the host's generation talks to (Node streams in @octet/host's LaunchedChild), and `Process`,
 * what the host's spawner returns (Node's ChildProcessWithoutNullStreams).
 */
import type { ManifestSource, ResourceOwner } from "../api/types.js";
import type { Message } from "../jsonrpc.js";

/** A process to start: exactly `env` is its environment (nothing is inherited). */
export interface ForeignSpawnSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * The messages of an in-process stand-in (a foreign runtime's bridge in the host's own process),
 * with no frame between it and the host: a child may offer it beside its stdio, and a host that
 * knows it then hands JSON-RPC messages across as objects, skipping the encoding, the pipe buffers,
 * the line scan and the parse on the receiving side. Each message is one the sender's RpcPeer
 * encoded to measure it (so it has JSON text within the frame bound, FRAME-09) and holds no member
 * whose value is undefined, at any depth (JSON text would not have it); it is delivered
 * synchronously in order and judged by its reader as a decoded envelope is (parseEnvelope: closed
 * members, the id rules). A message is the receiver's once handed over: the sender keeps no
 * reference it mutates later, and the receiver changes none it was given. The stdio streams stay
 * the child's lifecycle: closing stdin, the end of stdout, stderr.
 */
export interface ForeignMessages {
  /** One host message to the instance. */
  write(message: Message): void;
  /** Sets the host's reader of the instance's messages, once, before the host writes its first one. */
  read(listener: (message: Message) => void): void;
}

/** The part of an AbortSignal a runtime uses (declared here: this package has no DOM or Node types). */
export interface ForeignStopSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** The host's ready tools and commands at one moment (every extension's); read-only, the host may share it. */
export interface ForeignCatalog {
  readonly tools: readonly Readonly<{ name: string; description: string }>[];
  readonly commands: readonly Readonly<{ name: string; description: string }>[];
}

export interface ForeignLaunchContext<Process> {
  workspace: string;
  generation: number;
  source: ManifestSource;
  /** The host's start decision said trusted (project extensions need an explicit grant). */
  trusted: boolean;
  /**
   * Starts a real process the host's way: its own process group, contained (PID namespace and
   * parent-death signal when available), with exactly `env` as its environment.
   */
  spawn(spec: ForeignSpawnSpec): Promise<Process>;
  /** A diagnostic of this generation (shown with the extension's status and events). */
  diagnose(level: "info" | "warning" | "error", message: string): void;
  /** Aborted when the host stops this generation, also while launch() is still running. */
  signal: ForeignStopSignal;
  /**
   * The host's catalog at the moment of the call, for a runtime whose protocol hands the catalog
   * to its extensions (rpi's invocation context).
   */
  catalog(): ForeignCatalog;
  /**
   * The events of the runtime's protocol that the embedder's session layer delivers itself
   * (ForeignLaunched.sessionEvents), or null without one. The runtime does not map these onto
   * octet's hooks and lifecycle events as well: each event reaches the extension once.
   */
  sessionLayer: ForeignSessionLayer | null;
}

/**
 * Events of the runtime's own protocol that a session layer (the embedder's agent) delivers
 * itself, with that protocol's payloads and result rules, because octet's wire hooks cannot
 * carry them (a pi `context` rewrite, an `input` transform, `session_before_compact`'s cancel).
 * Offered by an instance launched with `sessionLayer: true`; the embedder reaches it through
 * ExtensionHost.foreignEvents(name).
 */
export interface ForeignSessionEvents {
  /** The event names the instance handles now. */
  names(): readonly string[];
  /**
   * Delivers one event and resolves with the instance's answer (undefined: no opinion); rejects
   * with an Error saying why when the instance failed, timed out or was cancelled.
   */
  dispatch(
    name: string,
    data: Record<string, unknown>,
    options: {
      signal?: ForeignStopSignal;
      /** The owner triple the host issued to the instance: what its requests act under (WAVE1-11). */
      owner?: ResourceOwner;
      /** Progress the instance reports before its answer (pi's user_bash output run in the extension). */
      onUpdate?: (value: unknown) => void;
    },
  ): Promise<unknown>;
}

/**
 * The foreground session as the embedder's session layer describes it to foreign runtimes whose
 * extensions read it synchronously (pi's ctx.sessionManager, ctx.isIdle(), ctx.getContextUsage()).
 */
export interface ForeignSessionState {
  id: string;
  /** The session file's absolute path. */
  file: string;
  name: string | null;
  /** The entry the next one will follow; null in an empty session. */
  leafId: string | null;
  idle: boolean;
  /** Messages wait to be sent with the next request or to run after the current one. */
  pendingMessages: boolean;
  systemPrompt: string;
  /** The context's size now against the model's window; null when unknown. */
  contextUsage: { tokens: number; contextWindow: number; percent: number } | null;
  model: { provider: string; id: string; name: string; contextWindow: number; reasoning: boolean } | null;
  /**
   * Every entry in file order, in the shape the runtime's extensions know (pi's SessionEntry for
   * rpi). The same array object while the session is unchanged, so a runtime can send deltas.
   */
  entries: readonly Record<string, unknown>[];
  /** The thinking level the model is asked with (pi's: off, minimal, low, medium, high, xhigh). */
  thinkingLevel?: string;
  /**
   * Every model the layer's registry knows (pi's ctx.modelRegistry), each with whether its key is
   * configured (keys never cross). `list` is the same array while the registry is unchanged.
   */
  models?: { list: readonly { model: Record<string, unknown>; available: boolean }[] };
  /**
   * The layer's own tools (the agent's built-in read, write, edit, bash), which the host's catalog
   * does not list, and the active set (null: every tool): pi's getAllTools and getActiveTools.
   */
  tools?: { builtin: readonly string[]; active: readonly string[] | null };
}

/** What the embedder's session layer offers foreign runtimes (ForeignLaunchContext.sessionLayer). */
export interface ForeignSessionLayer {
  /** The runtime's events the layer delivers itself (ForeignLaunched.sessionEvents). */
  readonly events: readonly string[];
  /** The foreground session now, or null before the layer opened one. */
  state?(): ForeignSessionState | null;
  /**
   * A model provider an instance registered at its load (pi's registerProvider, its data only, in
   * models.json's provider shape): the layer's model registry takes it, so `--model NAME/ID` can
   * name it. Returns null when taken, else why not (said as a diagnostic of the extension).
   */
  registerProvider?(extension: string, name: string, config: Record<string, unknown>): string | null;
  /**
   * pi.setModel: the layer's model from the next request on. Resolves false when the model is
   * unknown or has no key (pi's answer), true when switched.
   */
  setModel?(extension: string, provider: string, id: string): Promise<boolean>;
  /** pi.setThinkingLevel: resolves with the level in effect (clamped to the model); rejects for an unknown level. */
  setThinkingLevel?(extension: string, level: string): Promise<string>;
  /**
   * Session replacement and tree navigation asked by an instance (pi's ctx.newSession, ctx.fork,
   * ctx.navigateTree): not octet wire methods (session_control_v1 names only wait_for_idle and
   * switch), so the in-process runtime asks the layer directly. Each resolves once done, with
   * `cancelled` true when an extension's before-hook cancelled it, or rejects with an Error saying why.
   */
  control?: ForeignSessionControl;
  /**
   * The dialogs of a handler the layer itself invoked (a pi session event: tool_call,
   * session_before_switch, ...), which no octet request owns, so the wire's confirmation and input
   * requests (parented to a live call) cannot carry them. The embedder asks the person, as for
   * its own confirmations. Absent: such dialogs are refused.
   */
  dialogs?: ForeignSessionDialogs;
}

/** ForeignSessionLayer.dialogs: the embedder's own confirm and input, as its host services answer them. */
export interface ForeignSessionDialogs {
  /** Resolves true when confirmed; false when declined, or when nobody can be asked. */
  confirm(r: { extension: string; prompt: string; detail?: string; signal: ForeignStopSignal }): Promise<boolean>;
  /** Resolves with the text given, or null when cancelled or nobody can be asked. */
  input(r: { extension: string; prompt: string; signal: ForeignStopSignal }): Promise<string | null>;
}

/** ForeignSessionLayer.control; entries are in the runtime's shapes (pi's SessionEntry for rpi). */
export interface ForeignSessionControl {
  /** A new session; `entries` (pi's setup writes, ids and parents given) are in it before it starts. */
  newSession(o: {
    extension: string;
    parentSession?: string;
    entries?: readonly Record<string, unknown>[];
  }): Promise<{ cancelled: boolean }>;
  fork(o: { extension: string; entryId: string; position: "before" | "at" }): Promise<{ cancelled: boolean }>;
  navigateTree(o: {
    extension: string;
    targetId: string;
    summarize?: boolean;
    customInstructions?: string;
    replaceInstructions?: boolean;
    label?: string;
  }): Promise<{ cancelled: boolean }>;
}

export interface ForeignLaunched<Child> {
  child: Child;
  /**
   * The tool and command names the instance registered (what initialize must answer) and the
   * octet hooks it answers.
   */
  contributes: {
    tools: string[];
    commands: string[];
    hooks?: string[];
    /** Tools whose renderer the instance answers tool/render for (the manifest's tool_renderers). */
    toolRenderers?: string[];
  };
  /**
   * Events the instance hooked in its own protocol that this host never delivers (e.g. a pi
   * extension's "session_before_compact"): shown as the extension's unsupportedHooks in status.
   */
  unsupportedHooks?: string[];
  /** Present when launched with `sessionLayer`: the events the session layer delivers. */
  sessionEvents?: ForeignSessionEvents;
}

export interface ForeignExtension<Child, Process> {
  name: string;
  version: string;
  /** Shown in status, e.g. "rpi-process" or "quickjs". */
  runtime: string;
  /** UI surfaces and services its manifest grants, for the host's per-generation checks. */
  grants: { notifications: boolean; confirmations: boolean; status?: boolean };
  /** Validates again (files may have changed since discovery) and starts one instance. */
  launch(context: ForeignLaunchContext<Process>): Promise<ForeignLaunched<Child>>;
}

export type ForeignLoadResult<Child, Process> =
  | { ok: true; extension: ForeignExtension<Child, Process> }
  | { ok: false; errors: string[] };

export interface ForeignRuntime<Child, Process> {
  /** The file name its manifests have, e.g. "pi-extension.json". */
  readonly manifestFile: string;
  /**
   * Paths the user named for this runtime on the command line, loaded with no manifest file
   * (e.g. a pi extension's .ts file): discovery passes each to load() with the "explicit" source.
   */
  readonly explicitPaths?: readonly string[];
  /** Reads and validates one manifest; problems are returned as messages, never thrown. */
  load(
    manifestPath: string,
    context: { source: ManifestSource; workspace: string },
  ): Promise<ForeignLoadResult<Child, Process>>;
}
