/**
 * The serving loop of an Extension (extension.ts): frames read from stdin, the session requests
 * answered here (initialize with feature negotiation, negotiation.ts; shutdown), the host
 * notifications acted on (cancellation, lifecycle events), and every other request dispatched
 * (dispatch.ts) under the concurrency limit, each inside its request scope (request-scope.ts).
 * Stdin EOF and shutdown exit the process. Protocol frames leave only through the StdoutWriter.
 */
import { flushAfterReply } from "./session-control.js";
import {
  ErrorCode,
  EnvelopeReader,
  IdTable,
  RpcPeer,
  WireError,
  isPlainObject,
  isNegotiated,
  type ApiVersion,
  type JsonRpcId,
  type RequestMessage,
  type NotificationMessage,
  ADVISORY_HOOKS,
  AUTOCOMPLETE_COMPLETE,
  CANCEL_REQUEST,
  TERMINAL_GRANT_LOST,
  INITIALIZE,
  SHORTCUT_TRIGGER,
  LIFECYCLE_EVENTS,
  SHUTDOWN,
  legalMethod,
} from "@octet/protocol";
import { StdoutWriter } from "./stdout-writer.js";
import type { HandlerContext, NotificationInput } from "./types.js";
import { Semaphore } from "./semaphore.js";
import { routeNow, type Registry } from "./dispatch.js";
import { negotiate } from "./negotiation.js";
import type { LifecycleHandlers } from "./lifecycle.js";
import { MESSAGE_EVENTS, type MessageHandlers } from "./message-injection.js";
import { RequestScope, requestStorage, type Link } from "./request-scope.js";
import { ToolCatalog, type CatalogTool } from "./catalog.js";
import { handlerContext } from "./handler-context.js";
import type { TerminalGrants } from "./terminal.js";
import type { FrontendRegistry } from "./frontend.js";

const NO_FEATURES: ReadonlySet<string> = new Set();
/** The Wave-1 notifications of W 1.11 the SDK receives; unnegotiated, each is diagnosed, not delivered. */
const WAVE1_NOTIFICATIONS: readonly string[] = [SHORTCUT_TRIGGER.method, ...MESSAGE_EVENTS];

/** The registry as initialize completes it: toolsAt is set once dynamic_tools is negotiated. */
export interface ServedRegistry extends Registry {
  readonly tools: ReadonlyMap<string, CatalogTool>;
  toolsAt: ((revision: number | undefined) => ReadonlyMap<string, CatalogTool>) | undefined;
}

/** What the serving loop needs of its Extension: its options and what was registered. */
export interface Served {
  readonly apiVersion: ApiVersion;
  readonly maxConcurrent: number;
  readonly dynamicTools: boolean;
  readonly registry: ServedRegistry;
  readonly lifecycle: LifecycleHandlers;
  /** message/updated and message/settled handlers (message-injection.ts). */
  readonly messages?: MessageHandlers;
  /** The extension's terminal grant (terminal_handoff): ctx.terminal and terminal/grant-lost. */
  readonly terminal?: TerminalGrants;
  /** ext.shortcut and ext.autocomplete (frontend.ts). */
  readonly frontend: FrontendRegistry;
  /** ctx.notify of every handler. */
  notify(notification: NotificationInput): void;
}

export class Serving {
  readonly #x: Served;
  /** The requests being served (an IdTable: a churned Map outlives its entries, see id-table.ts). */
  readonly #active = new IdTable<RequestScope>();
  #peer: RpcPeer | null = null;
  /** Set by initialize: the negotiated connection the requests use. */
  #link: Link | null = null;
  /** initialize params.contributes, kept for the presentation checks. */
  #contributes: Record<string, unknown> | null = null;
  readonly #writer: StdoutWriter;
  #semaphore: Semaphore;
  #exiting = false;
  /** The catalog epochs, once dynamic_tools is negotiated. */
  #catalog: ToolCatalog | null = null;

  /** Takes stdout over at once (see StdoutWriter). */
  constructor(served: Served) {
    this.#x = served;
    this.#semaphore = new Semaphore(served.maxConcurrent);
    this.#writer = new StdoutWriter();
  }

  get peer(): RpcPeer | null {
    return this.#peer;
  }
  get link(): Link | null {
    return this.#link;
  }
  get contributes(): Record<string, unknown> | null {
    return this.#contributes;
  }
  get catalog(): ToolCatalog | null {
    return this.#catalog;
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
    // stdin's chunks are fresh per read: a frame's pieces are kept as views, not copies.
    const reader = new EnvelopeReader({ borrowChunks: true });
    process.stdin.on("data", (chunk: Buffer) => {
      for (const event of reader.push(chunk)) {
        if (event.kind === "envelope") peer.receive(event.envelope);
        else if (event.kind === "invalid_envelope")
          peer.replyError(event.id, ErrorCode.InvalidRequest, `invalid request: ${event.reason}`);
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

  async #exit(code: number): Promise<void> {
    if (this.#exiting) return;
    this.#exiting = true;
    for (const scope of this.#active.values()) scope.abort(new Error("extension is shutting down"));
    await this.#writer.flushed();
    process.exit(code);
  }

  /** The host notifications this runtime acts on, by method; the others are ignored. */
  readonly #notifications = new Map<string, (n: NotificationMessage) => void>([
    [CANCEL_REQUEST.method, (n) => this.#onCancel(n.params)],
    [SHORTCUT_TRIGGER.method, (n) => this.#x.frontend.trigger(n.params)],
    ...LIFECYCLE_EVENTS.map((event) => [event, (n: NotificationMessage) => this.#deliver(event, n.params)] as const),
    ...MESSAGE_EVENTS.map(
      (event) => [event, (n: NotificationMessage) => this.#x.messages?.deliver(event, n.params)] as const,
    ),
    [TERMINAL_GRANT_LOST.method, (n) => this.#x.terminal?.lost(n.params)],
  ]);

  /** The session requests answered here; content requests go to route() (dispatch.ts). */
  readonly #session = new Map<string, (params: unknown, id: JsonRpcId) => unknown>([
    [INITIALIZE.method, (params, id) => this.#initialize(params, id)],
    [AUTOCOMPLETE_COMPLETE.method, (params) => this.#x.frontend.complete(params, this.#link)],
    [
      SHUTDOWN.method,
      () => {
        setImmediate(() => void this.#exit(0));
        return {};
      },
    ],
  ]);

  #onNotification(n: NotificationMessage): void {
    // Legal by the method table: API 0.1 has no cancellation (CANCEL-01), and a lifecycle event
    // arrives only with lifecycle_events negotiated (the subscription is checked in deliver()).
    const handle = this.#notifications.get(n.method);
    const features = this.#link?.features ?? NO_FEATURES;
    if (handle && legalMethod(n.method, { direction: "host->child", apiVersion: this.#x.apiVersion, features }))
      handle(n);
    else if (handle && WAVE1_NOTIFICATIONS.includes(n.method))
      // A Wave-1 notification this connection did not negotiate is refused with a diagnostic (WAVE1-02).
      process.stderr.write(`octet-extension: ignored ${n.method}: its feature was not negotiated\n`);
  }

  #deliver(event: string, params: unknown): void {
    this.#x.lifecycle.deliver(event, params);
  }

  /** $/cancelRequest: the id names a host request only (FRAME-14). */
  #onCancel(params: unknown): void {
    if (!isPlainObject(params)) return;
    const id = params["id"];
    const reason = typeof params["reason"] === "string" ? ` (${params["reason"].slice(0, 256)})` : "";
    if (typeof id !== "number" && typeof id !== "string") return;
    this.#active.get(id)?.abort(new Error(`cancelled by the host${reason}`));
  }

  /**
   * Answers a content request: with a free slot and a handler that returns a value, synchronously
   * (no promise is made for the call); else through the slot's wait or the handler's promise.
   */
  #onRequest(request: RequestMessage): unknown {
    const session = this.#session.get(request.method);
    if (session) return session(request.params, request.id);
    const link = this.#link;
    if (!link) throw new WireError(ErrorCode.Unavailable, `${request.method} before initialize`);
    const scope = new RequestScope(request.id, request.method, link);
    this.#active.set(request.id, scope);
    if (this.#semaphore.tryAcquire()) return this.#run(request, scope, link, true);
    // A request cancelled while it waits for a slot is answered at once, not when a running
    // handler frees one: the host ends a generation that leaves a cancel unanswered for 2 s.
    return this.#semaphore.acquire(scope).then((admitted) => this.#run(request, scope, link, admitted));
  }

  #run(request: RequestMessage, scope: RequestScope, link: Link, admitted: boolean): unknown {
    let result: unknown;
    try {
      // Cancelled while waiting for a slot: answer without running the handler, so no work (and
      // no side effect) starts after the host gave up on it.
      if (scope.aborted) throw scope.abortReason;
      const ctx = (context: HandlerContext["context"]): HandlerContext =>
        handlerContext(scope, link, context, this.#x.notify, this.#x.terminal);
      const registry = this.#x.registry;
      const api = this.#x.apiVersion;
      result = requestStorage.run(scope, () => routeNow(request, registry, api, scope, ctx, link.features));
    } catch (err) {
      return this.#failed(request, scope, link, admitted, err);
    }
    if (!(result instanceof Promise)) return this.#answered(request, scope, link, admitted, result);
    return result.then(
      (value: unknown) => this.#answered(request, scope, link, admitted, value),
      (err: unknown) => this.#failed(request, scope, link, admitted, err),
    );
  }

  #answered(request: RequestMessage, scope: RequestScope, link: Link, admitted: boolean, result: unknown): unknown {
    try {
      // Queued ctx.sessionControl.compact() goes out only after this reply (SCOMP-06); a tool that
      // failed (its error became an is_error result) ended in error, so it is dropped (SCOMP-07).
      flushAfterReply(scope, link, !scope.aborted && !(isPlainObject(result) && result["is_error"] === true));
    } catch (err) {
      return this.#failed(request, scope, link, admitted, err);
    }
    this.#settled(request, scope, admitted);
    return result;
  }

  #failed(request: RequestMessage, scope: RequestScope, link: Link, admitted: boolean, err: unknown): never {
    try {
      flushAfterReply(scope, link, false);
    } finally {
      this.#settled(request, scope, admitted);
    }
    if (scope.aborted && isNegotiated(this.#x.apiVersion))
      throw new WireError(ErrorCode.RequestCancelled, `request ${String(request.id)} was cancelled`);
    throw err;
  }

  /** The response is decided: nothing more may be sent for this request (progress, children). */
  #settled(request: RequestMessage, scope: RequestScope, admitted: boolean): void {
    scope.settle();
    if (admitted) this.#semaphore.release();
    if (this.#active.get(request.id) === scope) this.#active.delete(request.id);
  }

  #initialize(params: unknown, id: JsonRpcId): unknown {
    if (this.#link) throw new WireError(ErrorCode.InvalidRequest, "initialize was already received");
    if (!isPlainObject(params)) throw new WireError(ErrorCode.InvalidParams, "initialize params must be an object");
    if (params["api_version"] !== this.#x.apiVersion) {
      throw new WireError(
        ErrorCode.InvalidParams,
        `host asked for API ${JSON.stringify(params["api_version"])} but this extension speaks API ` +
          `${this.#x.apiVersion}; make the manifest's api_version match`,
      );
    }
    const peer = this.#peer;
    if (!peer) throw new WireError(ErrorCode.InternalError, "initialize before run()");
    this.#contributes = isPlainObject(params["contributes"]) ? params["contributes"] : null;
    const tools = [...this.#x.registry.tools.values()].map((t) => t.definition);
    const commands = [...this.#x.registry.commands.values()].map((c) => c.definition);
    if (!isNegotiated(this.#x.apiVersion)) {
      this.#link = { api: this.#x.apiVersion, features: new Set(), peer };
      return { api_version: this.#x.apiVersion, tools, commands };
    }
    const advisoryHooks = ADVISORY_HOOKS.filter((h) => this.#x.registry.hooks.has(h));
    const n = negotiate(params["protocol"], {
      api: this.#x.apiVersion,
      maxConcurrent: this.#x.maxConcurrent,
      lifecycleEvents: this.#x.lifecycle.events,
      tools,
      dynamicTools: this.#x.dynamicTools,
      advisoryHooks,
      shortcuts: this.#x.frontend.wantsShortcuts,
      autocomplete: this.#x.frontend.wantsAutocomplete,
    });
    if (n.strippedPromptMetadata.length > 0) {
      process.stderr.write(
        `octet-extension: the host did not offer tool_prompt_metadata_v1; the prompt metadata of ` +
          `${n.strippedPromptMetadata.join(", ")} is not sent\n`,
      );
    }
    if (this.#x.lifecycle.events.length > 0 && !n.features.has("lifecycle_events")) {
      process.stderr.write(
        `octet-extension: the host did not offer lifecycle_events; the handlers for ` +
          `${this.#x.lifecycle.events.join(", ")} will not run\n`,
      );
    }
    const subscribed = n.protocol["lifecycle_events"];
    this.#x.lifecycle.subscribe(Array.isArray(subscribed) ? (subscribed as string[]) : []);
    this.#semaphore = new Semaphore(n.maxConcurrent);
    this.#link = { api: this.#x.apiVersion, features: n.features, peer };
    // Inside initialize, before its answer (WAVE1-24); the chain registers once it is answered.
    this.#x.frontend.registerShortcuts(this.#link, id);
    this.#x.frontend.registerAutocomplete(this.#link);
    if (n.features.has("dynamic_tools")) {
      // Epoch 0 is the catalog sent in this response (CAT-09), definitions as sent.
      const sent = new Map<string, CatalogTool>(
        n.tools.map((d) => [d.name, { definition: d, handler: this.#x.registry.tools.get(d.name)!.handler }]),
      );
      const catalog = new ToolCatalog(sent);
      this.#catalog = catalog;
      this.#x.registry.toolsAt = (revision) => catalog.at(revision);
    } else if (this.#x.dynamicTools) {
      process.stderr.write(
        "octet-extension: the host did not offer dynamic_tools; registerTools() and unregisterTools() will refuse\n",
      );
    }
    return { api_version: this.#x.apiVersion, tools: n.tools, commands, protocol: n.protocol };
  }
}
