/**
 * Routing of one host content request to the author's handler: params validated with the host's
 * own validators (-32602 naming the problem), unknown names refused, the handler's value turned
 * into the wire result of its method, and what it throws mapped to the wire (tool errors become
 * error results; other methods answer a JSON-RPC error). Concurrency, cancellation and the
 * request scope are the caller's (extension.ts).
 */
import { toAdvisoryResult } from "./advisory.js";
import {
  COMMAND_EXECUTE,
  CONTEXT_COLLECT,
  ErrorCode,
  HOOK_RUN,
  MENU_COLLECT,
  STATUS_COLLECT,
  TOOL_CALL,
  TOOL_RENDER,
  WireError,
  isAdvisoryHook,
  isTurnHook,
  isCompactionHook,
  validateCompactionHookParams,
  validateTurnHookParams,
  isPlainObject,
  isServerErrorCode,
  isThenable,
  legalMethod,
  methodSpec,
  validateAdvisoryHookParams,
  validateMenu,
  type ApiVersion,
  type Checked,
  type CommandDefinition,
  type ExecutionContext,
  type RequestMessage,
  type ToolDefinition,
} from "@octet/protocol";
import {
  toCommandResult,
  toContext,
  toHookResult,
  toRenderResult,
  toStatusResult,
  toToolResult,
  toTurnHookResult,
} from "./results.js";
import { requestStorage } from "./request-scope.js";
import { markTurnHook } from "./session.js";
import { markCompactionHook } from "./session-control.js";
import type {
  CommandHandler,
  ContextHandler,
  HandlerContext,
  HookHandler,
  MenuHandler,
  RenderHandler,
  StatusHandler,
  ToolHandler,
  ToolReturn,
} from "./types.js";

/** What the author registered. */
export interface Registry {
  readonly tools: ReadonlyMap<string, { definition: ToolDefinition; handler: ToolHandler }>;
  /** With dynamic_tools negotiated: the tools of a catalog epoch (throws -32602 for one not kept). */
  readonly toolsAt?:
    | ((revision: number | undefined) => ReadonlyMap<string, { definition: ToolDefinition; handler: ToolHandler }>)
    | undefined;
  readonly commands: ReadonlyMap<string, { definition: CommandDefinition; handler: CommandHandler }>;
  readonly hooks: ReadonlyMap<string, HookHandler>;
  readonly renderers: ReadonlyMap<string, RenderHandler>;
  readonly contextHandler: ContextHandler | null;
  readonly statusHandler: StatusHandler | null;
  /** menu/collect (API 0.2+); without one the method is unknown and the host generates a menu. */
  readonly menuHandler?: MenuHandler | null;
}

/** Builds the ctx of the running request from the execution context its params carried. */
export type ContextFactory = (context: ExecutionContext | null) => HandlerContext;

/** What a method's handler needs of the request being routed. */
interface Routed {
  readonly registry: Registry;
  readonly api: ApiVersion;
  readonly signal: { readonly aborted: boolean };
  readonly ctx: ContextFactory;
}
/** A method's answer: the value, or a promise of it when the author's handler is asynchronous. */
type MethodHandler = (params: unknown, r: Routed) => unknown;

/**
 * Routes a host content request by the method table (packages/protocol/src/methods): a name with
 * no handler here, or one the table does not carry on this API version or behind a feature not in
 * `features`, is an unknown method (-32601), as an extension that does not implement it answers.
 */
export async function route(...args: Parameters<typeof routeNow>): Promise<unknown> {
  return routeNow(...args);
}

/**
 * route() for the serving loop: the result, or a promise of it when the handler is asynchronous;
 * a refusal may be thrown synchronously. A synchronous answer costs no promise.
 */
export function routeNow(
  request: RequestMessage,
  registry: Registry,
  api: ApiVersion,
  signal: { readonly aborted: boolean },
  ctx: ContextFactory,
  features: ReadonlySet<string> = NO_FEATURES,
): unknown {
  const handler = HANDLERS.get(request.method);
  if (!handler || !legalMethod(request.method, { direction: "host->child", apiVersion: api, features })) {
    throw unknownMethod(request.method);
  }
  return handler(request.params, { registry, api, signal, ctx });
}

const NO_FEATURES: ReadonlySet<string> = new Set();

/** Said after "method not found" where the reason is the author's to fix. */
const UNKNOWN_HINTS: Readonly<Record<string, string>> = {
  [MENU_COLLECT.method]: "this extension registers no menu: ext.menu(handler)",
};

function unknownMethod(method: string): WireError {
  const hint = UNKNOWN_HINTS[method];
  return new WireError(ErrorCode.MethodNotFound, `method not found: ${method}${hint ? ` (${hint})` : ""}`);
}

/**
 * A handler that returns a value (not a promise) is answered without a promise: most small tools
 * are synchronous, and the promises of an async path were a large part of a call's cost.
 */
function toolCall(raw: unknown, r: Routed): unknown {
  const { registry, api, ctx } = r;
  const p = params(TOOL_CALL.validateParams(raw));
  const tool = (registry.toolsAt ? registry.toolsAt(p.catalog_revision) : registry.tools).get(p.name);
  if (!tool) throw new WireError(ErrorCode.InvalidParams, `unknown tool "${p.name}"`);
  let value: unknown;
  try {
    value = tool.handler(p.arguments, ctx(p.context));
    if (!isThenable(value)) return toToolResult(value as ToolReturn, api);
  } catch (err) {
    return toolFailure(err, r);
  }
  return Promise.resolve(value).then(
    (v) => {
      try {
        return toToolResult(v as ToolReturn, api);
      } catch (err) {
        return toolFailure(err, r);
      }
    },
    (err: unknown) => toolFailure(err, r),
  );
}

/**
 * What a tool handler threw: a WireError (or anything, once cancelled) answers the request; the
 * rest becomes an error result.
 */
function toolFailure(err: unknown, { api, signal }: Routed): unknown {
  if (err instanceof WireError || signal.aborted) throw authorError(err);
  const message = err instanceof Error ? err.message : String(err);
  return toToolResult({ content: `Error: ${message}`, isError: true }, api);
}

async function commandExecute(raw: unknown, { registry, ctx }: Routed): Promise<unknown> {
  const p = params(COMMAND_EXECUTE.validateParams(raw));
  const command = registry.commands.get(p.name);
  if (!command) throw new WireError(ErrorCode.InvalidParams, `unknown command "${p.name}"`);
  return toCommandResult(await author(() => command.handler(p.arguments, ctx(p.context))));
}

async function hookRun(raw: unknown, { registry, ctx }: Routed): Promise<unknown> {
  const named = isPlainObject(raw) ? raw["hook"] : undefined;
  if (isTurnHook(named)) {
    const t = params(validateTurnHookParams(raw));
    const turn = registry.hooks.get(t.hook);
    if (!turn) throw new WireError(ErrorCode.InvalidParams, `no handler for hook "${t.hook}"`);
    // While it runs, this request parents ctx.session's requests (the private append lane, TURN-08).
    const scope = requestStorage.getStore();
    if (scope) markTurnHook(scope);
    const payload = t.payload as unknown as Record<string, unknown>;
    return toTurnHookResult(await author(() => turn(payload, ctx(t.context))));
  }
  if (isCompactionHook(named)) {
    // session_before_compact / session_compact (WAVE1-40): awaited like the model-turn hooks, with
    // ctx.session's private lane; a compaction cannot be started from them (SCOMP-07).
    const c = params(validateCompactionHookParams(raw));
    const handler = registry.hooks.get(c.hook);
    if (!handler) throw new WireError(ErrorCode.InvalidParams, `no handler for hook "${c.hook}"`);
    const scope = requestStorage.getStore();
    if (scope) {
      markTurnHook(scope);
      markCompactionHook(scope);
    }
    const payload = c.payload as unknown as Record<string, unknown>;
    return toTurnHookResult(await author(() => handler(payload, ctx(c.context))));
  }
  if (isAdvisoryHook(named)) {
    const a = params(validateAdvisoryHookParams(raw));
    const advisory = registry.hooks.get(a.hook);
    if (!advisory) throw new WireError(ErrorCode.InvalidParams, `no handler for hook "${a.hook}"`);
    const hookScope = requestStorage.getStore();
    if (a.hook === "compaction_strategy" && hookScope) markCompactionHook(hookScope);
    const payload = a.payload as unknown as Record<string, unknown>;
    return toAdvisoryResult(a.hook, await author(() => advisory(payload, ctx(a.context))));
  }
  const p = params(HOOK_RUN.validateParams(raw));
  const hook = registry.hooks.get(p.hook);
  if (!hook) throw new WireError(ErrorCode.InvalidParams, `no handler for hook "${p.hook}"`);
  return toHookResult(await author(() => hook(p.payload as Record<string, unknown>, ctx(p.context))));
}

async function contextCollect(raw: unknown, { registry, ctx }: Routed): Promise<unknown> {
  const p = params(CONTEXT_COLLECT.validateParams(raw));
  const handler = registry.contextHandler;
  if (!handler) return [];
  return (await author(() => handler(p.prompt, ctx(p.context)))).map(toContext);
}

async function statusCollect(raw: unknown, { registry, ctx }: Routed): Promise<unknown> {
  const p = params(STATUS_COLLECT.validateParams(raw));
  const handler = registry.statusHandler;
  if (!handler) return null;
  return toStatusResult(await author(() => handler(p.surface, ctx(p.context))), p.surface);
}

async function toolRender(raw: unknown, { registry, ctx }: Routed): Promise<unknown> {
  const p = params(TOOL_RENDER.validateParams(raw));
  const renderer = registry.renderers.get(p.name);
  if (!renderer) throw new WireError(ErrorCode.InvalidParams, `no renderer for tool "${p.name}"`);
  const input = { name: p.name, arguments: p.arguments, output: p.output, isError: p.is_error };
  return toRenderResult(await author(() => renderer(input, ctx(p.context))));
}

async function menuCollect(raw: unknown, { registry, ctx }: Routed): Promise<unknown> {
  const handler = registry.menuHandler;
  if (!handler) throw unknownMethod(MENU_COLLECT.method);
  const context = isPlainObject(raw) ? raw["context"] : undefined;
  if (!isPlainObject(context)) {
    throw new WireError(ErrorCode.InvalidParams, "invalid params: context must be an object");
  }
  const value = await author(() => handler(ctx(context as unknown as ExecutionContext)));
  // Checked here with the host's own rules, so the author reads what is wrong in the
  // extension's error rather than only as the reason of the host's generated fallback.
  const checked = validateMenu(value, [...registry.commands.keys()]);
  if (!checked.ok) throw new WireError(ErrorCode.InternalError, `invalid menu: ${checked.problems.join("; ")}`);
  return checked.value;
}

/** The host content requests an extension answers, by method name. */
const HANDLERS: ReadonlyMap<string, MethodHandler> = new Map<string, MethodHandler>([
  [TOOL_CALL.method, toolCall],
  [COMMAND_EXECUTE.method, commandExecute],
  [HOOK_RUN.method, hookRun],
  [CONTEXT_COLLECT.method, contextCollect],
  [STATUS_COLLECT.method, statusCollect],
  [TOOL_RENDER.method, toolRender],
  [MENU_COLLECT.method, menuCollect],
]);
for (const method of HANDLERS.keys()) {
  const spec = methodSpec(method);
  if (spec?.direction !== "host->child" || spec.kind !== "request") {
    throw new Error(`dispatch: ${method} is not a declared host request`);
  }
}

/**
 * Author handlers may throw WireError with a server code (-32000..-32099, ERR-03) or the standard
 * -32602 / -32603 / -32800; any other code would impersonate the protocol (-32601 means "unknown
 * method") and becomes -32603, keeping the message.
 */
export function authorError(err: unknown): unknown {
  if (!(err instanceof WireError)) return err;
  const allowed =
    isServerErrorCode(err.code) ||
    err.code === ErrorCode.InvalidParams ||
    err.code === ErrorCode.InternalError ||
    err.code === ErrorCode.RequestCancelled;
  return allowed
    ? err
    : new WireError(
        ErrorCode.InternalError,
        `${err.message} (the extension used code ${err.code}, outside the -32000..-32099 server range)`,
        err.data,
      );
}

/** Runs an author handler, mapping what it throws through authorError. */
async function author<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw authorError(err);
  }
}

function params<T>(checked: Checked<T>): T {
  if (!checked.ok) throw new WireError(ErrorCode.InvalidParams, `invalid params: ${checked.problems.join("; ")}`);
  return checked.value;
}
