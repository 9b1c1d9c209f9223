/**
 * The author-facing types of the TypeScript SDK: tool, command, hook, context, status and renderer
 * handlers and what they may return. Wire shapes come from @octet/protocol.
 */
import type {
  ApiVersion, ContentPart, ContextContribution, ExecutionContext, ExtensionNotification, HookName,
  Placement, RenderSegment, StatusContribution, UiSurface, NotificationLevel, JsonRpcId,
} from "@octet/protocol";

export interface ExtensionOptions {
  /** The wire version; must equal the manifest's api_version. */
  apiVersion: ApiVersion;
  /** Host requests handled at once; more wait in order (API 0.2+ also negotiates it). Default 16. */
  maxConcurrentRequests?: number;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments; default: an object with no declared properties. */
  parameters?: Record<string, unknown>;
  /** API 0.2+: JSON Schema that structuredContent must match. */
  outputSchema?: Record<string, unknown>;
}

export interface ToolResultObject {
  /** Model-visible text, or API 0.2+ content parts. */
  content: string | ContentPart[];
  isError?: boolean;
  /** API 0.2+ only; required when the tool declares an outputSchema. */
  structuredContent?: unknown;
  /** Never shown to the model (API 0.1 hosts discard it). */
  metadata?: unknown;
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
}
export type HookReturn = void | undefined | HookReturnObject;

export type StatusReturn = null | undefined | string | { text: string; styleRole?: string | null; priority?: number };
export type RenderReturn = string | RenderSegment[];

export interface ConfirmOptions {
  prompt: string;
  detail?: string;
  destructive?: boolean;
  default?: boolean;
}

/** What every handler receives besides its own input. */
export interface HandlerContext {
  /** Aborted when the host cancels this request (API 0.2+) or the extension shuts down. */
  readonly signal: AbortSignal;
  readonly requestId: JsonRpcId;
  readonly method: string;
  /** The execution context the host sent (workspace, host state, resource owner on 0.2+). */
  readonly context: ExecutionContext | null;
  notify(notification: NotificationInput): void;
  /** Asks the user a yes/no question and waits for the answer; false when nobody can answer. */
  confirm(options: ConfirmOptions): Promise<boolean>;
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

export type { HookName, StatusContribution, ExtensionNotification, ContextContribution };
