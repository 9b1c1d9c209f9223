/**
 * Routing of one host content request to the author's handler: params validated with the host's
 * own validators (-32602 naming the problem), unknown names refused, the handler's value turned
 * into the wire result of its method, and what it throws mapped to the wire (tool errors become
 * error results; other methods answer a JSON-RPC error). Concurrency, cancellation and the
 * request scope are the caller's (extension.ts).
 */
import { toAdvisoryResult } from "./advisory.js";
import {
  ErrorCode, WireError, isServerErrorCode, isPlainObject, isAdvisoryHook, validateAdvisoryHookParams, validateToolCallParams, validateCommandExecuteParams, validateHookRunParams,
  validateContextCollectParams, validateStatusCollectParams, validateToolRenderParams, validateMenu,
  type ApiVersion, type Checked, type CommandDefinition, type ExecutionContext, type RequestMessage, type ToolDefinition,
} from "@octet/protocol";
import { toCommandResult, toContext, toHookResult, toRenderResult, toStatusResult, toToolResult } from "./results.js";
import type {
  CommandHandler, ContextHandler, HandlerContext, HookHandler, MenuHandler, RenderHandler, StatusHandler, ToolHandler,
} from "./types.js";

/** What the author registered. */
export interface Registry {
  readonly tools: ReadonlyMap<string, { definition: ToolDefinition; handler: ToolHandler }>;
  /** With dynamic_tools negotiated: the tools of a catalog epoch (throws -32602 for one not kept). */
  readonly toolsAt?: ((revision: number | undefined) => ReadonlyMap<string, { definition: ToolDefinition; handler: ToolHandler }>) | undefined;
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

export async function route(request: RequestMessage, registry: Registry, api: ApiVersion, signal: { readonly aborted: boolean }, ctx: ContextFactory): Promise<unknown> {
  switch (request.method) {
    case "tool/call": {
      const p = params(validateToolCallParams(request.params));
      const tool = (registry.toolsAt ? registry.toolsAt(p.catalog_revision) : registry.tools).get(p.name);
      if (!tool) throw new WireError(ErrorCode.InvalidParams, `unknown tool "${p.name}"`);
      try {
        return toToolResult(await tool.handler(p.arguments, ctx(p.context)), api);
      } catch (err) {
        if (err instanceof WireError || signal.aborted) throw authorError(err);
        const message = err instanceof Error ? err.message : String(err);
        return toToolResult({ content: `Error: ${message}`, isError: true }, api);
      }
    }
    case "command/execute": {
      const p = params(validateCommandExecuteParams(request.params));
      const command = registry.commands.get(p.name);
      if (!command) throw new WireError(ErrorCode.InvalidParams, `unknown command "${p.name}"`);
      return toCommandResult(await author(() => command.handler(p.arguments, ctx(p.context))));
    }
    case "hook/run": {
      const named = isPlainObject(request.params) ? request.params["hook"] : undefined;
      if (isAdvisoryHook(named)) {
        const a = params(validateAdvisoryHookParams(request.params));
        const advisory = registry.hooks.get(a.hook);
        if (!advisory) throw new WireError(ErrorCode.InvalidParams, `no handler for hook "${a.hook}"`);
        return toAdvisoryResult(a.hook, await author(() => advisory(a.payload as unknown as Record<string, unknown>, ctx(a.context))));
      }
      const p = params(validateHookRunParams(request.params));
      const hook = registry.hooks.get(p.hook);
      if (!hook) throw new WireError(ErrorCode.InvalidParams, `no handler for hook "${p.hook}"`);
      return toHookResult(await author(() => hook(p.payload as Record<string, unknown>, ctx(p.context))));
    }
    case "context/collect": {
      const p = params(validateContextCollectParams(request.params));
      const handler = registry.contextHandler;
      if (!handler) return [];
      return (await author(() => handler(p.prompt, ctx(p.context)))).map(toContext);
    }
    case "status/collect": {
      const p = params(validateStatusCollectParams(request.params));
      const handler = registry.statusHandler;
      if (!handler) return null;
      return toStatusResult(await author(() => handler(p.surface, ctx(p.context))), p.surface);
    }
    case "tool/render": {
      const p = params(validateToolRenderParams(request.params));
      const renderer = registry.renderers.get(p.name);
      if (!renderer) throw new WireError(ErrorCode.InvalidParams, `no renderer for tool "${p.name}"`);
      const input = { name: p.name, arguments: p.arguments, output: p.output, isError: p.is_error };
      return toRenderResult(await author(() => renderer(input, ctx(p.context))));
    }
    case "menu/collect": {
      const handler = registry.menuHandler;
      if (api === "0.1" || !handler) throw new WireError(ErrorCode.MethodNotFound, "method not found: menu/collect (this extension registers no menu: ext.menu(handler))");
      const context = isPlainObject(request.params) ? request.params["context"] : undefined;
      if (!isPlainObject(context)) throw new WireError(ErrorCode.InvalidParams, "invalid params: context must be an object");
      const value = await author(() => handler(ctx(context as unknown as ExecutionContext)));
      // Checked here with the host's own rules, so the author reads what is wrong in the
      // extension's error rather than only as the reason of the host's generated fallback.
      const checked = validateMenu(value, [...registry.commands.keys()]);
      if (!checked.ok) throw new WireError(ErrorCode.InternalError, `invalid menu: ${checked.problems.join("; ")}`);
      return checked.value;
    }
    default:
      throw new WireError(ErrorCode.MethodNotFound, `method not found: ${request.method}`);
  }
}

/**
 * Author handlers may throw WireError with a server code (-32000..-32099, ERR-03) or the standard
 * -32602 / -32603 / -32800; any other code would impersonate the protocol (-32601 means "unknown
 * method") and becomes -32603, keeping the message.
 */
export function authorError(err: unknown): unknown {
  if (!(err instanceof WireError)) return err;
  const allowed = isServerErrorCode(err.code) || err.code === ErrorCode.InvalidParams || err.code === ErrorCode.InternalError || err.code === ErrorCode.RequestCancelled;
  return allowed ? err : new WireError(ErrorCode.InternalError, `${err.message} (the extension used code ${err.code}, outside the -32000..-32099 server range)`, err.data);
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
