/**
 * The author-facing types of the TypeScript SDK: tool, command, hook, context, status and renderer
 * handlers and what they may return. Wire shapes come from @octet/protocol.
 */
import type { SessionControlApi } from "./session-control.js";
import type {
  ApiVersion,
  ContentPart,
  ContextContribution,
  ExecutionContext,
  ExtensionNotification,
  HookName,
  Placement,
  RenderSegment,
  StatusContribution,
  UiSurface,
  NotificationLevel,
  JsonRpcId,
  ExtensionMenu,
} from "@octet/protocol";
import type { Diagnostic } from "./diagnostic-types.js";

export interface ExtensionOptions {
  /** The wire version; must equal the manifest's api_version. */
  apiVersion: ApiVersion;
  /** Host requests handled at once; more wait in order (API 0.2+ also negotiates it). Default 16. */
  maxConcurrentRequests?: number;
  /**
   * API 0.2+: negotiate dynamic_tools when the host offers it, so registerTools() and
   * unregisterTools() can change the tool catalog at run time. Default false.
   */
  dynamicTools?: boolean;
}

/** One tool for Extension.registerTools(): its spec and handler, as for Extension.tool(). */
export interface DynamicTool {
  spec: ToolSpec;
  handler: ToolHandler;
}

/** The host's answer to a catalog change: the new epoch and every tool published now. */
export interface CatalogChange {
  revision: number;
  tools: string[];
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments; default: an object with no declared properties. */
  parameters?: Record<string, unknown>;
  /** API 0.2+: JSON Schema that structuredContent must match. */
  outputSchema?: Record<string, unknown>;
  /**
   * API 0.4 only (refused at registration on 0.1/0.2): a short line the host may put in the
   * model's prompt about this tool. Sent only when the host offers tool_prompt_metadata_v1;
   * otherwise it is left out of the catalog (presentation only, never needed for a call).
   */
  promptSnippet?: string;
  /** API 0.4 only, as promptSnippet: at most 16 guidelines of at most 1,024 bytes each. */
  promptGuidelines?: string[];
}

export interface ToolResultObject {
  /** Model-visible text, or API 0.2+ content parts. */
  content: string | ContentPart[];
  isError?: boolean;
  /** API 0.2+ only; required when the tool declares an outputSchema. */
  structuredContent?: unknown;
  /** Never shown to the model (API 0.1 hosts discard it). */
  metadata?: unknown;
  /**
   * API 0.4: diagnostics, sent in metadata.octet_diagnostics_v1 (which must then be unset) with
   * their plain-text projection appended to the content. Checked before sending: a malformed one
   * turns the result into a tool error.
   */
  diagnostics?: readonly Diagnostic[];
}
export type ToolReturn = string | ToolResultObject;

export interface CommandSpec {
  name: string;
  description: string;
  /** Display text such as "/hello [name]"; default "/<name>". */
  usage?: string;
}
export interface CommandResultObject {
  text: string;
  notifications?: NotificationInput[];
  context?: ContextInput[];
}
export type CommandReturn = string | CommandResultObject;

export interface NotificationInput {
  level?: NotificationLevel;
  title: string;
  message: string;
}
export interface ContextInput {
  label: string;
  content: string;
  placement?: Placement;
}

export interface HookReturnObject {
  /** Deny the intercepted operation (honoured for before_prompt and before_tool_call). */
  deny?: string;
  context?: ContextInput[];
  notifications?: NotificationInput[];
  /**
   * model_turn_start / model_turn_end only (W 1.4b): sent as session_operation. The host accepts
   * {action: "continue"} alone and stops the run for anything else.
   */
  sessionOperation?: { action: string };
}
export type HookReturn = void | undefined | HookReturnObject;

export type StatusReturn = null | undefined | string | { text: string; styleRole?: string | null; priority?: number };
export type RenderReturn = string | RenderSegment[];

export interface InputOptions {
  /** The question; must contain non-whitespace text, at most 16 KiB. */
  prompt: string;
  /** Suppress echo in the frontend; the SDK never writes the answer anywhere. */
  secret?: boolean;
}

export interface StatusInput {
  surface: UiSurface;
  text: string;
  styleRole?: string | null;
  priority?: number;
}

export interface ProgressStatusOptions {
  current?: number;
  total?: number;
  unit?: string;
}
export interface ProgressOutputOptions {
  /** Default "stdout". */
  stream?: "stdout" | "stderr";
  /** Default "utf8"; "base64" for bytes. */
  encoding?: "utf8" | "base64";
}

/**
 * $/progress for the running request (API 0.2+). Every call is a silent no-op when the host did
 * not negotiate request_progress (always on API 0.1), once the request has been answered, and,
 * for decoration(), without progress_decoration: progress is ephemeral and optional, so code that
 * reports it runs unchanged against any host. Arguments are checked either way.
 */
export interface Progress {
  /** True when request_progress was negotiated, i.e. progress reaches the host at all. */
  readonly enabled: boolean;
  /** True when progress_decoration was negotiated too. */
  readonly decorationEnabled: boolean;
  status(message: string, options?: ProgressStatusOptions): void;
  output(data: string, options?: ProgressOutputOptions): void;
  decoration(label: string, detail?: string): void;
  /** API 0.4 tool/call only (throws elsewhere): a provisional result shown before the final one. */
  partialResult(result: ToolReturn): void;
}

/** The ambient cancellation token of the request whose handler is running (ext.cancellation). */
export interface Cancellation {
  /** True when the current request was cancelled; false outside any request. */
  readonly cancelled: boolean;
  /** The current request's signal; undefined outside any request. */
  readonly signal: AbortSignal | undefined;
  /**
   * Throws when the current request was cancelled; the SDK then answers it -32800 (API 0.2+).
   * Outside any request it does nothing: there is nothing to cancel.
   */
  throwIfCancelled(): void;
}

/**
 * Params of a lifecycle notification as the host sent them (LIFE-06, LIFE-07): start events carry
 * session_id, run_id, turn_id (tool events also tool_call_id, tool_name); settled events add
 * outcome, duration_ms and reason.
 */
export interface LifecycleParams {
  session_id?: string;
  run_id?: string;
  turn_id?: string;
  tool_call_id?: string;
  tool_name?: string;
  outcome?: string;
  duration_ms?: number;
  reason?: string | null;
  [key: string]: unknown;
}
export type LifecycleHandler = (params: LifecycleParams) => void | Promise<void>;

export interface ConfirmOptions {
  prompt: string;
  detail?: string;
  destructive?: boolean;
  default?: boolean;
}

/** ctx.composer (W 2.19, feature composer): see frontend.ts. */
export interface ComposerApi {
  /** Whether the host offered the composer feature (it binds an interactive frontend). */
  readonly available: boolean;
  get(): Promise<string>;
  /** Replaces the whole composer line. */
  set(text: string): Promise<void>;
  /** Inserts at the composer's cursor. */
  insert(text: string): Promise<void>;
}

/** ctx.session / ext.session (W 2.21, session_entries): see session.ts. */
export interface SessionApi extends MessageInjectionApi {
  /** Whether the host offered session_entries and this connection negotiated it. */
  readonly available: boolean;
  /** Appends a custom entry (never sent to the model); resolves to its durable entry id. */
  appendEntry(entryType: string, data: unknown): Promise<string>;
  /** Names the session; "" clears the name. */
  setName(name: string): Promise<void>;
  /** Labels an entry of the session; "" clears the label. */
  setLabel(entryId: string, label: string): Promise<void>;
}

/** session/send_message and session/send_user_message (feature message_injection), on ctx.session. */
export interface MessageInjectionApi {
  /** Places an assistant or system message in the session's context; resolves once admitted. */
  sendMessage(role: "assistant" | "system", text: string): Promise<void>;
  /** A user message: it starts a run when the agent is idle, else waits behind the running one. */
  sendUserMessage(text: string): Promise<void>;
}

/** tools/set_active (feature active_tools), as ctx.tools and ext.tools. */
export interface ActiveToolsApi {
  /** Whether the host offered active_tools and this connection negotiated it. */
  readonly available: boolean;
  /** The complete set of tool names the model is offered from its next request on. */
  setActive(names: readonly string[]): Promise<void>;
}

export type MessageEvent = "message/updated" | "message/settled";
/** One coalesced batch of the model's text (message/updated), or the message's end (message/settled: no delta). */
export interface MessageParams {
  message_id: string;
  delta?: string;
  deltas?: number;
}
export type MessageHandler = (params: MessageParams) => void | Promise<void>;
/**
 * A live terminal grant (ctx.terminal, W 2.24, see terminal.ts): the size the frontend reported,
 * and a signal aborted when the host takes it back.
 */
export interface HeldTerminal {
  readonly grant_id: string;
  readonly columns: number;
  readonly rows: number;
  /** Aborted (reason: the host's) on terminal/grant-lost; stop writing then. */
  readonly lost: AbortSignal;
}

export interface TerminalApi {
  /** Whether the host offered terminal_handoff (it binds a frontend that owns a terminal). */
  readonly available: boolean;
  /** Takes the foreground terminal for this request; refused while another grant is live. */
  acquire(): Promise<HeldTerminal>;
  /** Gives it back; resolves once the frontend has its prompt again. */
  release(): Promise<void>;
}

export type TerminalGrantLostHandler = (lost: { grant_id: string; reason: string }) => void | Promise<void>;

/** What every handler receives besides its own input. */
export interface HandlerContext {
  /** Aborted when the host cancels this request (API 0.2+) or the extension shuts down. */
  readonly signal: AbortSignal;
  readonly requestId: JsonRpcId;
  readonly method: string;
  /** The execution context the host sent (workspace, host state, resource owner on 0.2+). */
  readonly context: ExecutionContext | null;
  notify(notification: NotificationInput): void;
  /**
   * Asks the user a yes/no question and waits for the answer; false when nobody can answer.
   * API 0.2+: only from a tool/call or command/execute handler, while its request is active.
   */
  confirm(options: ConfirmOptions): Promise<boolean>;
  /**
   * API 0.2+ input/request, parented to this request (tool/call or command/execute only): the
   * text the user typed, or null when the frontend cancelled or cannot answer. Rejects when this
   * request is cancelled meanwhile.
   */
  input(options: InputOptions): Promise<string | null>;
  /** Throws when this request was cancelled; the SDK then answers it -32800 (API 0.2+). */
  throwIfCancelled(): void;
  /**
   * session_entries (API 0.2+), parented to this request: a tool/call or command/execute, or a
   * model_turn_start / model_turn_end hook while it runs. Throws when not negotiated.
   */
  readonly session: SessionApi;
  /** tools/set_active (API 0.2+, feature active_tools), parented to this request as ctx.session is. */
  readonly tools: ActiveToolsApi;
  /** session_control_v1 / session_compaction_v1 (API 0.4): see session-control.ts. */
  readonly sessionControl: SessionControlApi;
  /** terminal_handoff (API 0.2+), parented to this request (tool/call or command/execute): see terminal.ts. */
  readonly terminal: TerminalApi;
  /** composer (API 0.2+): the host's prompt line, parented to this tool/call or command/execute. */
  readonly composer: ComposerApi;
  /** $/progress for this request; see Progress for when it is a silent no-op. */
  readonly progress: Progress;
  /**
   * API 0.2+ artifact/publish, parented to this request (tool/call or command/execute only):
   * publishes image or audio bytes, or a file under OCTET_EXTENSION_SCRATCH, with a canonical
   * MIME type (image/png, audio/wav, ...). Resolves to the id and the content part to put in the
   * result. Throws when the host did not negotiate `artifacts`, or the host refused the bytes.
   */
  publishArtifact(
    source: ArtifactSourceInput,
    mimeType: string,
    options?: PublishArtifactOptions,
  ): Promise<PublishedArtifact>;
}

/** What publishArtifact() publishes: the bytes, or a file path relative to OCTET_EXTENSION_SCRATCH. */
export type ArtifactSourceInput = Uint8Array | { path: string };
export interface PublishArtifactOptions {
  /** The image part's alt text. */
  alt?: string;
  /** The audio part's transcript. */
  transcript?: string;
}
export interface PublishedArtifact {
  artifactId: string;
  mimeType: string;
  /** The image or audio part naming the artifact, ready for a result's content. */
  part: ContentPart;
}

export type ToolHandler = (args: Record<string, unknown>, ctx: HandlerContext) => ToolReturn | Promise<ToolReturn>;
export type CommandHandler = (args: string[], ctx: HandlerContext) => CommandReturn | Promise<CommandReturn>;
export type HookHandler = (payload: Record<string, unknown>, ctx: HandlerContext) => HookReturn | Promise<HookReturn>;
export type ContextHandler = (prompt: string | null, ctx: HandlerContext) => ContextInput[] | Promise<ContextInput[]>;
export type StatusHandler = (surface: UiSurface, ctx: HandlerContext) => StatusReturn | Promise<StatusReturn>;
export interface RenderInput {
  name: string;
  arguments: Record<string, unknown>;
  output: string;
  isError: boolean;
}
export type RenderHandler = (input: RenderInput, ctx: HandlerContext) => RenderReturn | Promise<RenderReturn>;
/** The extension's menu (API 0.2+, `menu = true`): built fresh on each menu/collect. */
export type MenuHandler = (ctx: HandlerContext) => ExtensionMenu | Promise<ExtensionMenu>;

export type { HookName, StatusContribution, ExtensionNotification, ContextContribution };
