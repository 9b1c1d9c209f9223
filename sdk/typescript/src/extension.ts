/**
 * The extension runtime: registration of tools, commands, hooks, context, status and renderers;
 * the initialize handshake; dispatch of host requests under the concurrency limit; cancellation
 * tokens; shutdown and stdin EOF. Protocol frames leave only through the StdoutWriter.
 *
 * Contract for handlers: they run concurrently up to maxConcurrentRequests; ctx.signal aborts on
 * host cancellation (API 0.2+) or shutdown, and cancellation is cooperative, never a rollback.
 * A handler that throws produces a tool error result (tool/call) or a JSON-RPC error (others).
 */
import {
  ErrorCode, EnvelopeReader, RpcPeer, WireError, isPlainObject, isNegotiated, isServerErrorCode,
  validateToolCallParams, validateCommandExecuteParams, validateHookRunParams, validateContextCollectParams,
  validateStatusCollectParams, validateToolRenderParams, isValidToolName, REQUIRED_FEATURES,
  type ApiVersion, type CommandDefinition, type ExecutionContext, type JsonRpcId, type RequestMessage,
  type NotificationMessage, type ToolDefinition, type Checked, type HookName,
} from "@octet/protocol";
import { StdoutWriter } from "./stdout-writer.js";
import { toCommandResult, toContext, toHookResult, toNotification, toRenderResult, toStatusResult, toToolResult } from "./results.js";
import type {
  CommandHandler, CommandSpec, ConfirmOptions, ContextHandler, ExtensionOptions, HandlerContext, HookHandler,
  NotificationInput, RenderHandler, StatusHandler, ToolHandler, ToolSpec, ContextInput,
} from "./types.js";
import { Semaphore } from "./semaphore.js";

const DEFAULT_MAX_CONCURRENT = 16;
const HOOK_NAMES: readonly string[] = ["before_prompt", "after_response", "before_tool_call", "after_tool_call"];

interface ActiveRequest {
  controller: AbortController;
  method: string;
}

export class Extension {
  readonly apiVersion: ApiVersion;
  readonly #maxConcurrent: number;
  readonly #tools = new Map<string, { definition: ToolDefinition; handler: ToolHandler }>();
  readonly #commands = new Map<string, { definition: CommandDefinition; handler: CommandHandler }>();
  readonly #hooks = new Map<string, HookHandler>();
  readonly #renderers = new Map<string, RenderHandler>();
  #contextHandler: ContextHandler | null = null;
  #statusHandler: StatusHandler | null = null;
  readonly #active = new Map<JsonRpcId, ActiveRequest>();
  #peer: RpcPeer | null = null;
  readonly #writer: StdoutWriter;
  #initialized = false;
  #features = new Set<string>();
  #semaphore: Semaphore;
  #exiting = false;

  constructor(options: ExtensionOptions) {
    if (!["0.1", "0.2", "0.4"].includes(options.apiVersion)) {
      throw new TypeError(`apiVersion must be "0.1", "0.2" or "0.4", got ${JSON.stringify(options.apiVersion)}`);
    }
    const max = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT;
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`maxConcurrentRequests must be a positive integer, got ${max}`);
    this.apiVersion = options.apiVersion;
    this.#maxConcurrent = max;
    this.#semaphore = new Semaphore(max);
    // Take stdout over now, not in run(): a "loading..." log between the two must not reach the
    // host as a non-frame (FRAME-03).
    this.#writer = new StdoutWriter();
  }

  tool(spec: ToolSpec, handler: ToolHandler): this {
    if (!isValidToolName(spec.name)) throw new TypeError(`tool name ${JSON.stringify(spec.name)} does not match ^[A-Za-z0-9_-]{1,128}$`);
    if (this.#tools.has(spec.name)) throw new TypeError(`tool "${spec.name}" is registered twice`);
    if (typeof spec.description !== "string" || spec.description.trim() === "") throw new TypeError(`tool "${spec.name}" needs a non-empty description`);
    if (spec.outputSchema !== undefined && this.apiVersion === "0.1") throw new TypeError(`tool "${spec.name}": outputSchema needs API 0.2 or later`);
    const definition: ToolDefinition = {
      name: spec.name,
      description: spec.description,
      parameters: spec.parameters ?? { type: "object", properties: {} },
    };
    if (spec.outputSchema !== undefined) definition.output_schema = spec.outputSchema;
    this.#tools.set(spec.name, { definition, handler });
    return this;
  }

  command(spec: CommandSpec, handler: CommandHandler): this {
    if (!isValidToolName(spec.name)) throw new TypeError(`command name ${JSON.stringify(spec.name)} does not match ^[A-Za-z0-9_-]{1,128}$`);
    if (this.#commands.has(spec.name)) throw new TypeError(`command "${spec.name}" is registered twice`);
    if (typeof spec.description !== "string" || spec.description.trim() === "") throw new TypeError(`command "${spec.name}" needs a non-empty description`);
    this.#commands.set(spec.name, { definition: { name: spec.name, description: spec.description, usage: spec.usage ?? `/${spec.name}` }, handler });
    return this;
  }

  hook(name: HookName, handler: HookHandler): this {
    if (!HOOK_NAMES.includes(name)) throw new TypeError(`unknown hook ${JSON.stringify(name)}; expected one of ${HOOK_NAMES.join(", ")}`);
    if (this.#hooks.has(name)) throw new TypeError(`hook "${name}" is registered twice`);
    this.#hooks.set(name, handler);
    return this;
  }

  context(handler: ContextHandler): this {
    this.#contextHandler = handler;
    return this;
  }

  status(handler: StatusHandler): this {
    this.#statusHandler = handler;
    return this;
  }

  renderer(toolName: string, handler: RenderHandler): this {
    if (this.#renderers.has(toolName)) throw new TypeError(`renderer for "${toolName}" is registered twice`);
    this.#renderers.set(toolName, handler);
    return this;
  }

  /** Sends a user-visible notification (after initialize). */
  notify(notification: NotificationInput): void {
    this.#requirePeer("notify").notify("notification", toNotification(notification));
  }

  /** Pushes unsolicited prompt context (after initialize). */
  contributeContext(contribution: ContextInput): void {
    this.#requirePeer("contributeContext").notify("context/contribution", toContext(contribution));
  }

  /**
   * Starts serving the host on stdin/stdout. Resolves never in practice: the process exits on
   * shutdown or stdin EOF.
   */
  run(): Promise<void> {
    if (this.#peer) throw new Error("run() was called twice");
    const writer = this.#writer;
    const peer = new RpcPeer({
      transport: writer,
      onRequest: (request) => this.#onRequest(request),
      onNotification: (n) => this.#onNotification(n),
      onDiagnostic: (d) => process.stderr.write(`octet-extension: ${JSON.stringify(d)}\n`),
    });
    this.#peer = peer;
    const reader = new EnvelopeReader();
    process.stdin.on("data", (chunk: Buffer) => {
      for (const event of reader.push(chunk)) {
        if (event.kind === "envelope") peer.receive(event.envelope);
        else if (event.kind === "invalid_envelope") peer.replyError(event.id, ErrorCode.InvalidRequest, `invalid request: ${event.reason}`);
        else if (event.error.fatal) {
          process.stderr.write(`octet-extension: unreadable input from the host (${event.error.message}); exiting\n`);
          void this.#exit(1);
        } else peer.replyError(null, ErrorCode.ParseError, `parse error: ${event.error.message}`);
      }
    });
    // Stdin EOF is transport loss or final teardown: exit promptly (FRAME-12).
    process.stdin.on("end", () => void this.#exit(0));
    process.stdin.on("error", () => void this.#exit(1));
    return new Promise<void>(() => {});
  }

  #requirePeer(what: string): RpcPeer {
    if (!this.#peer || !this.#initialized) throw new Error(`${what}() is available only after the host initialized the extension`);
    return this.#peer;
  }

  async #exit(code: number): Promise<void> {
    if (this.#exiting) return;
    this.#exiting = true;
    for (const a of this.#active.values()) a.controller.abort(new Error("extension is shutting down"));
    await this.#writer.flushed();
    process.exit(code);
  }

  #onNotification(n: NotificationMessage): void {
    if (n.method === "$/cancelRequest" && isNegotiated(this.apiVersion) && isPlainObject(n.params)) {
      const id = n.params["id"];
      if (typeof id === "number" || typeof id === "string") this.#active.get(id)?.controller.abort(new Error("cancelled by the host"));
    }
    // Other notifications (lifecycle events of later features) are ignored unless subscribed.
  }

  async #onRequest(request: RequestMessage): Promise<unknown> {
    if (request.method === "initialize") return this.#initialize(request.params);
    if (request.method === "shutdown") {
      setImmediate(() => void this.#exit(0));
      return {};
    }
    if (!this.#initialized) throw new WireError(ErrorCode.Unavailable, `${request.method} before initialize`);
    const controller = new AbortController();
    const entry: ActiveRequest = { controller, method: request.method };
    this.#active.set(request.id, entry);
    await this.#semaphore.acquire();
    try {
      // Cancelled while waiting for a slot: answer without running the handler, so no work (and
      // no side effect) starts after the host gave up on it.
      if (controller.signal.aborted) throw controller.signal.reason;
      return await this.#route(request, controller.signal);
    } catch (err) {
      if (controller.signal.aborted && isNegotiated(this.apiVersion)) throw new WireError(ErrorCode.RequestCancelled, `request ${String(request.id)} was cancelled`);
      throw err;
    } finally {
      this.#semaphore.release();
      this.#active.delete(request.id);
    }
  }

  #initialize(params: unknown): unknown {
    if (this.#initialized) throw new WireError(ErrorCode.InvalidRequest, "initialize was already received");
    if (!isPlainObject(params)) throw new WireError(ErrorCode.InvalidParams, "initialize params must be an object");
    if (params["api_version"] !== this.apiVersion) {
      throw new WireError(ErrorCode.InvalidParams, `host asked for API ${JSON.stringify(params["api_version"])} but this extension speaks API ${this.apiVersion}; make the manifest's api_version match`);
    }
    const result: Record<string, unknown> = {
      api_version: this.apiVersion,
      tools: [...this.#tools.values()].map((t) => t.definition),
      commands: [...this.#commands.values()].map((c) => c.definition),
    };
    if (isNegotiated(this.apiVersion)) {
      const protocol = isPlainObject(params["protocol"]) ? params["protocol"] : {};
      const limits = isPlainObject(protocol["limits"]) ? protocol["limits"] : {};
      const offeredMax = typeof limits["max_concurrent_requests"] === "number" ? limits["max_concurrent_requests"] : this.#maxConcurrent;
      const max = Math.max(1, Math.min(this.#maxConcurrent, offeredMax));
      this.#semaphore = new Semaphore(max);
      this.#features = new Set(REQUIRED_FEATURES);
      result["protocol"] = { version: this.apiVersion, features: [...this.#features], limits: { max_concurrent_requests: max } };
    }
    this.#initialized = true;
    return result;
  }

  #context(id: JsonRpcId, method: string, signal: AbortSignal, context: ExecutionContext | null): HandlerContext {
    return {
      signal,
      requestId: id,
      method,
      context,
      notify: (n) => this.notify(n),
      confirm: (options) => this.#confirm(id, method, signal, options),
    };
  }

  /**
   * confirmation/request parented to the running request. Resolves false when the host refuses
   * (no frontend, undeclared); rejects when the request is cancelled meanwhile, so a handler never
   * waits on an answer nobody will give.
   */
  async #confirm(parent: JsonRpcId, method: string, signal: AbortSignal, options: ConfirmOptions): Promise<boolean> {
    const peer = this.#requirePeer("confirm");
    const params: Record<string, unknown> = {
      prompt: options.prompt,
      destructive: options.destructive ?? false,
      default: options.default ?? false,
    };
    if (options.detail !== undefined) params["detail"] = options.detail;
    if (isNegotiated(this.apiVersion)) {
      if (typeof parent !== "number" || (method !== "tool/call" && method !== "command/execute")) {
        throw new Error("confirm() needs an active tool/call or command/execute parent on API 0.2+");
      }
      params["parent_request_id"] = parent;
    }
    signal.throwIfAborted();
    const outgoing = peer.request("confirmation/request", params);
    const onAbort = (): void => {
      peer.abandon(outgoing.id, "cancelled", signal.reason instanceof Error ? signal.reason : new Error("cancelled"));
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const answer = await outgoing.result;
      return isPlainObject(answer) && answer["confirmed"] === true;
    } catch (err) {
      if (err instanceof WireError) return false;
      throw err;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  async #route(request: RequestMessage, signal: AbortSignal): Promise<unknown> {
    const id = request.id;
    switch (request.method) {
      case "tool/call": {
        const p = params(validateToolCallParams(request.params));
        const tool = this.#tools.get(p.name);
        if (!tool) throw new WireError(ErrorCode.InvalidParams, `unknown tool "${p.name}"`);
        try {
          const value = await tool.handler(p.arguments, this.#context(id, request.method, signal, p.context));
          return toToolResult(value, this.apiVersion);
        } catch (err) {
          if (err instanceof WireError || signal.aborted) throw authorError(err);
          const message = err instanceof Error ? err.message : String(err);
          return toToolResult({ content: `Error: ${message}`, isError: true }, this.apiVersion);
        }
      }
      case "command/execute": {
        const p = params(validateCommandExecuteParams(request.params));
        const command = this.#commands.get(p.name);
        if (!command) throw new WireError(ErrorCode.InvalidParams, `unknown command "${p.name}"`);
        return toCommandResult(await author(() => command.handler(p.arguments, this.#context(id, request.method, signal, p.context))));
      }
      case "hook/run": {
        const p = params(validateHookRunParams(request.params));
        const hook = this.#hooks.get(p.hook);
        if (!hook) throw new WireError(ErrorCode.InvalidParams, `no handler for hook "${p.hook}"`);
        return toHookResult(await author(() => hook(p.payload as Record<string, unknown>, this.#context(id, request.method, signal, p.context))));
      }
      case "context/collect": {
        const p = params(validateContextCollectParams(request.params));
        if (!this.#contextHandler) return [];
        const handler = this.#contextHandler;
        return (await author(() => handler(p.prompt, this.#context(id, request.method, signal, p.context)))).map(toContext);
      }
      case "status/collect": {
        const p = params(validateStatusCollectParams(request.params));
        if (!this.#statusHandler) return null;
        const handler = this.#statusHandler;
        return toStatusResult(await author(() => handler(p.surface, this.#context(id, request.method, signal, p.context))), p.surface);
      }
      case "tool/render": {
        const p = params(validateToolRenderParams(request.params));
        const renderer = this.#renderers.get(p.name);
        if (!renderer) throw new WireError(ErrorCode.InvalidParams, `no renderer for tool "${p.name}"`);
        const input = { name: p.name, arguments: p.arguments, output: p.output, isError: p.is_error };
        return toRenderResult(await author(() => renderer(input, this.#context(id, request.method, signal, p.context))));
      }
      default:
        throw new WireError(ErrorCode.MethodNotFound, `method not found: ${request.method}`);
    }
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
