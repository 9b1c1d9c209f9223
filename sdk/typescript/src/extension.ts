/**
 * The extension runtime: registration of tools, commands, hooks, context, status, renderers and
 * lifecycle handlers; the initialize handshake and feature negotiation (negotiation.ts); dispatch
 * of host requests under the concurrency limit, each inside its request scope (request-scope.ts);
 * cancellation; notifications to the host; shutdown and stdin EOF. Protocol frames leave only
 * through the StdoutWriter.
 *
 * Contract for handlers: they run concurrently up to maxConcurrentRequests; ctx.signal aborts on
 * host cancellation (API 0.2+) or shutdown, and cancellation is cooperative, never a rollback.
 * A handler that throws produces a tool error result (tool/call) or a JSON-RPC error (others);
 * once its request was cancelled, whatever it throws is answered -32800 (API 0.2+).
 */
import {
  ErrorCode,
  EnvelopeReader,
  RpcPeer,
  WireError,
  isPlainObject,
  isNegotiated,
  isValidToolName,
  validateToolDefinition,
  validateStatusContribution,
  type ApiVersion,
  type CommandDefinition,
  type JsonRpcId,
  type RequestMessage,
  type NotificationMessage,
  type ToolDefinition,
  type HookName,
  type LifecycleEvent,
  type AdvisoryHook,
  type CacheWarmingAction,
  type CacheWarmingPayload,
  ADVISORY_HOOKS,
  CANCEL_REQUEST,
  HOOK_NAMES,
  INITIALIZE,
  LIFECYCLE_EVENTS,
  SHUTDOWN,
  isAdvisoryHook,
  legalMethod,
} from "@octet/protocol";
import { StdoutWriter } from "./stdout-writer.js";
import { toContext, toNotification } from "./results.js";
import type {
  Cancellation,
  CommandHandler,
  CommandSpec,
  ContextHandler,
  ExtensionOptions,
  HandlerContext,
  HookHandler,
  LifecycleHandler,
  NotificationInput,
  Progress,
  RenderHandler,
  MenuHandler,
  StatusHandler,
  StatusInput,
  ToolHandler,
  ToolSpec,
  ContextInput,
  CatalogChange,
  DynamicTool,
} from "./types.js";
import { Semaphore } from "./semaphore.js";
import { route, type Registry } from "./dispatch.js";
import { negotiate } from "./negotiation.js";
import { LifecycleHandlers } from "./lifecycle.js";
import { AmbientProgress } from "./progress.js";
import { RequestScope, ambientCancellation, requestStorage, type Link } from "./request-scope.js";
import { confirm, input } from "./reverse-requests.js";
import { ToolCatalog, type CatalogTool } from "./catalog.js";
import { Presentation } from "./presentation.js";
import { publishArtifact } from "./artifacts.js";
import { policyApi, secretsApi, type PolicyApi, type SecretsApi } from "./host-services.js";
import { buildTypedTool, type TypedToolHandler, type TypedToolSpec } from "./typed-tool.js";
import type { TObject, TSchema } from "@sinclair/typebox";

const DEFAULT_MAX_CONCURRENT = 16;
const NO_FEATURES: ReadonlySet<string> = new Set();

export class Extension {
  readonly apiVersion: ApiVersion;
  /** The running request's cancellation token, wherever the handler's code is (AsyncLocalStorage). */
  readonly cancellation: Cancellation = ambientCancellation;
  /** The running request's progress, as ctx.progress; throws outside a request handler. */
  readonly progress: Progress;
  /** presentation/update (API 0.2+, contributes.presentation): ext.presentation.update(snapshot). */
  readonly presentation: Presentation;
  /** initialize params.contributes, kept for the presentation checks. */
  #contributes: Record<string, unknown> | null = null;
  /** policy/evaluate for the running request (API 0.2+, when the host offers policy_intents). */
  readonly policy: PolicyApi = policyApi(() => this.#link);
  /** secret/get for the running request (API 0.2+, when the host offers secrets). */
  readonly secrets: SecretsApi = secretsApi(() => this.#link);
  readonly #maxConcurrent: number;
  readonly #registry = {
    tools: new Map<string, { definition: ToolDefinition; handler: ToolHandler }>(),
    toolsAt: undefined as ((revision: number | undefined) => ReadonlyMap<string, CatalogTool>) | undefined,
    commands: new Map<string, { definition: CommandDefinition; handler: CommandHandler }>(),
    hooks: new Map<string, HookHandler>(),
    renderers: new Map<string, RenderHandler>(),
    contextHandler: null as ContextHandler | null,
    statusHandler: null as StatusHandler | null,
    menuHandler: null as MenuHandler | null,
  } satisfies Registry;
  readonly #lifecycle = new LifecycleHandlers();
  readonly #active = new Map<JsonRpcId, RequestScope>();
  #peer: RpcPeer | null = null;
  /** Set by initialize: the negotiated connection the requests use. */
  #link: Link | null = null;
  readonly #writer: StdoutWriter;
  #semaphore: Semaphore;
  #exiting = false;
  readonly #dynamicTools: boolean;
  /** The catalog epochs, once dynamic_tools is negotiated. */
  #catalog: ToolCatalog | null = null;

  constructor(options: ExtensionOptions) {
    if (!["0.1", "0.2", "0.4"].includes(options.apiVersion)) {
      throw new TypeError(`apiVersion must be "0.1", "0.2" or "0.4", got ${JSON.stringify(options.apiVersion)}`);
    }
    const max = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT;
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`maxConcurrentRequests must be a positive integer, got ${max}`);
    this.apiVersion = options.apiVersion;
    this.#maxConcurrent = max;
    if (options.dynamicTools === true && options.apiVersion === "0.1")
      throw new TypeError("dynamicTools needs API 0.2 or later");
    this.#dynamicTools = options.dynamicTools === true;
    this.#semaphore = new Semaphore(max);
    this.presentation = new Presentation(() => ({ link: this.#link, contributes: this.#contributes }));
    this.progress = new AmbientProgress(
      () => requestStorage.getStore()?.progress,
      () => this.#link?.features ?? new Set(),
    );
    // Take stdout over now, not in run(): a "loading..." log between the two must not reach the
    // host as a non-frame (FRAME-03).
    this.#writer = new StdoutWriter();
  }

  /** The features negotiated in initialize (empty before it, and always on API 0.1). */
  get features(): readonly string[] {
    return [...(this.#link?.features ?? [])];
  }

  tool(spec: ToolSpec, handler: ToolHandler): this {
    if (this.#registry.tools.has(spec.name)) throw new TypeError(`tool "${spec.name}" is registered twice`);
    this.#registry.tools.set(spec.name, { definition: this.#definitionOf(spec), handler });
    return this;
  }

  /**
   * A typed tool (API 0.4): TypeBox schemas give the parameters and output_schema, and the handler
   * receives the decoded arguments (defaults filled in) and returns the output value or a
   * TypedResult. Arguments that do not match are answered -32602 before the handler runs; output
   * that does not match is never published as success. See typed-tool.ts.
   */
  typedTool<I extends TObject, O extends TSchema | undefined = undefined>(
    spec: TypedToolSpec<I, O>,
    handler: TypedToolHandler<I, O>,
  ): this {
    if (this.apiVersion !== "0.4")
      throw new TypeError(
        `typed tool "${spec.name}": typed tools need API 0.4 (this extension speaks API ${this.apiVersion})`,
      );
    const built = buildTypedTool(spec, handler);
    return this.tool(built.spec, built.handler);
  }

  /**
   * Adds tools, or replaces the definitions and handlers of ones this extension has, at run time
   * (tools/register; needs dynamicTools and a host that offers it). Resolves with the new epoch
   * and every tool published now: the host's tool policy may have left some out (CAT-08).
   */
  registerTools(tools: readonly DynamicTool[]): Promise<CatalogChange> {
    const catalog = this.#dynamicCatalog("registerTools");
    if (!Array.isArray(tools) || tools.length === 0)
      throw new TypeError(
        "registerTools() needs at least one tool: an empty change is not sent (it would only move the epoch)",
      );
    const entries = tools.map((t) => {
      if (typeof t?.handler !== "function")
        throw new TypeError(`registerTools(): tool ${JSON.stringify(t?.spec?.name)} needs a handler function`);
      return { definition: this.#definitionOf(t.spec), handler: t.handler };
    });
    const names = entries.map((e) => e.definition.name);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined)
      throw new TypeError(`registerTools(): tool "${dup}" appears twice; names in one change must be unique`);
    const peer = this.#link!.peer;
    return catalog.mutate(
      (current) => {
        const next = new Map(current);
        for (const e of entries) next.set(e.definition.name, e);
        return next;
      },
      () => peer.request("tools/register", { tools: entries.map((e) => e.definition) }).result,
    );
  }

  /** Removes tools of this extension at run time (tools/unregister); names it does not have are ignored by the host. */
  unregisterTools(names: readonly string[]): Promise<CatalogChange> {
    const catalog = this.#dynamicCatalog("unregisterTools");
    if (!Array.isArray(names) || names.length === 0)
      throw new TypeError(
        "unregisterTools() needs at least one name: an empty change is not sent (it would only move the epoch)",
      );
    for (const n of names)
      if (!isValidToolName(n))
        throw new TypeError(`unregisterTools(): ${JSON.stringify(n)} is not a tool name (^[A-Za-z0-9_-]{1,128}$)`);
    const dup = names.find((n, i) => names.indexOf(n) !== i);
    if (dup !== undefined)
      throw new TypeError(`unregisterTools(): "${dup}" appears twice; names in one change must be unique`);
    const peer = this.#link!.peer;
    return catalog.mutate(
      (current) => {
        const next = new Map(current);
        for (const n of names) next.delete(n);
        return next;
      },
      () => peer.request("tools/unregister", { names: [...names] }).result,
    );
  }

  /** The current catalog epoch (0 = initialize), or null without dynamic_tools negotiated. */
  get catalogRevision(): number | null {
    return this.#catalog?.revision ?? null;
  }

  #dynamicCatalog(what: string): ToolCatalog {
    if (!this.#dynamicTools) throw new Error(`${what}() needs new Extension({ dynamicTools: true, ... })`);
    if (!this.#link)
      throw new Error(
        `${what}() can be used only after initialize (from a handler, or after the extension is running)`,
      );
    if (!this.#catalog)
      throw new Error(`${what}(): the host did not offer dynamic_tools, so the tool catalog is fixed for this process`);
    return this.#catalog;
  }

  /** A ToolSpec as a wire definition, checked with the host's own rules now rather than as a refusal later. */
  #definitionOf(spec: ToolSpec): ToolDefinition {
    const name = spec.name;
    if (!isValidToolName(name))
      throw new TypeError(`tool name ${JSON.stringify(name)} does not match ^[A-Za-z0-9_-]{1,128}$`);
    if (typeof spec.description !== "string" || spec.description.trim() === "")
      throw new TypeError(`tool "${name}" needs a non-empty description`);
    if (spec.outputSchema !== undefined && this.apiVersion === "0.1")
      throw new TypeError(`tool "${name}": outputSchema needs API 0.2 or later`);
    if ((spec.promptSnippet !== undefined || spec.promptGuidelines !== undefined) && this.apiVersion !== "0.4") {
      throw new TypeError(
        `tool "${name}": promptSnippet and promptGuidelines need API 0.4 (this extension speaks API ${this.apiVersion})`,
      );
    }
    const definition: ToolDefinition = {
      name,
      description: spec.description,
      parameters: spec.parameters ?? { type: "object", properties: {} },
    };
    if (spec.outputSchema !== undefined) definition.output_schema = spec.outputSchema;
    if (spec.promptSnippet !== undefined) definition.prompt_snippet = spec.promptSnippet;
    if (spec.promptGuidelines !== undefined) definition.prompt_guidelines = spec.promptGuidelines;
    // The host's own check, now rather than as a refused initialize later. Prompt metadata is
    // checked as if negotiated: initialize leaves it out when the host does not offer the feature.
    const checked = validateToolDefinition(
      definition,
      this.apiVersion,
      this.apiVersion === "0.4" ? ["tool_prompt_metadata_v1"] : [],
    );
    if (!checked.ok) throw new TypeError(`tool "${name}" is invalid: ${checked.problems.join("; ")}`);
    return definition;
  }

  command(spec: CommandSpec, handler: CommandHandler): this {
    if (!isValidToolName(spec.name))
      throw new TypeError(`command name ${JSON.stringify(spec.name)} does not match ^[A-Za-z0-9_-]{1,128}$`);
    if (this.#registry.commands.has(spec.name)) throw new TypeError(`command "${spec.name}" is registered twice`);
    if (typeof spec.description !== "string" || spec.description.trim() === "")
      throw new TypeError(`command "${spec.name}" needs a non-empty description`);
    this.#registry.commands.set(spec.name, {
      definition: { name: spec.name, description: spec.description, usage: spec.usage ?? `/${spec.name}` },
      handler,
    });
    return this;
  }

  hook(name: HookName | AdvisoryHook, handler: HookHandler): this {
    if (isAdvisoryHook(name)) {
      // PY-52: the advisory hooks exist on API 0.4 only.
      if (this.apiVersion !== "0.4")
        throw new TypeError(`hook "${name}" needs API 0.4 (this extension speaks API ${this.apiVersion})`);
    } else if (!HOOK_NAMES.includes(name)) {
      throw new TypeError(
        `unknown hook ${JSON.stringify(name)}; expected one of ${[...HOOK_NAMES, ...ADVISORY_HOOKS].join(", ")}`,
      );
    }
    if (this.#registry.hooks.has(name)) throw new TypeError(`hook "${name}" is registered twice`);
    this.#registry.hooks.set(name, handler);
    return this;
  }

  /**
   * Cache-warming advice (API 0.4, PY-46): the handler gets the decision the host is about to
   * take and returns "warm", "stop", or null/undefined for no opinion. Declare
   * hooks = ["cache_warming_decision"] in the manifest: the host offers it only then.
   */
  cacheWarmingDecision(
    handler: (
      payload: CacheWarmingPayload,
      ctx: HandlerContext,
    ) => CacheWarmingAction | null | undefined | Promise<CacheWarmingAction | null | undefined>,
  ): this {
    return this.hook(
      "cache_warming_decision",
      (payload, ctx) => handler(payload as unknown as CacheWarmingPayload, ctx) as unknown as ReturnType<HookHandler>,
    );
  }

  context(handler: ContextHandler): this {
    this.#registry.contextHandler = handler;
    return this;
  }

  status(handler: StatusHandler): this {
    this.#registry.statusHandler = handler;
    return this;
  }

  /**
   * The extension's menu (API 0.2+; the manifest needs `menu = true` and at least one command):
   * the handler returns {title, status?, detail?, items}, built fresh on each menu/collect. It is
   * checked with the host's rules (each action runs a declared command); without a handler the
   * host shows its generated menu, one entry per command. See docs/sdk-options.md.
   */
  menu(handler: MenuHandler): this {
    if (this.apiVersion === "0.1")
      throw new TypeError("menu() needs API 0.2 or later (menu/collect is not part of API 0.1)");
    if (typeof handler !== "function") throw new TypeError("menu() needs a handler function");
    // One menu per extension: a second handler would silently replace the first, unlike tools.
    if (this.#registry.menuHandler)
      throw new TypeError("menu() is registered twice; an extension has one menu handler");
    this.#registry.menuHandler = handler;
    return this;
  }

  renderer(toolName: string, handler: RenderHandler): this {
    if (this.#registry.renderers.has(toolName)) throw new TypeError(`renderer for "${toolName}" is registered twice`);
    this.#registry.renderers.set(toolName, handler);
    return this;
  }

  /**
   * Subscribes to a lifecycle notification (API 0.2+, before initialize). The subscription is
   * negotiated: the handler runs only if the host offered lifecycle_events. Best-effort: never
   * awaited, and what it throws goes to stderr.
   */
  on(event: LifecycleEvent, handler: LifecycleHandler): this {
    if (!isNegotiated(this.apiVersion))
      throw new TypeError(`lifecycle events need API 0.2 or later (this extension speaks API ${this.apiVersion})`);
    if (this.#link) throw new Error(`on("${event}") after initialize: the subscription was already negotiated`);
    this.#lifecycle.add(event, handler);
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

  /** Pushes unsolicited status for a surface the manifest declares in contributes.ui (after initialize). */
  contributeStatus(status: StatusInput): void {
    const peer = this.#requirePeer("contributeStatus");
    const params = {
      surface: status.surface,
      text: status.text,
      style_role: status.styleRole ?? null,
      priority: status.priority ?? 0,
    };
    const checked = validateStatusContribution(params);
    if (!checked.ok) throw new TypeError(`contributeStatus(): ${checked.problems.join("; ")}`);
    peer.notify("status/contribution", params);
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

  #requirePeer(what: string): RpcPeer {
    if (!this.#peer || !this.#link)
      throw new Error(`${what}() is available only after the host initialized the extension`);
    return this.#peer;
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
    ...LIFECYCLE_EVENTS.map((event) => [event, (n: NotificationMessage) => this.#deliver(event, n.params)] as const),
  ]);

  /** The session requests answered here; content requests go to route() (dispatch.ts). */
  readonly #session = new Map<string, (params: unknown) => unknown>([
    [INITIALIZE.method, (params) => this.#initialize(params)],
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
    if (handle && legalMethod(n.method, { direction: "host->child", apiVersion: this.apiVersion, features })) handle(n);
  }

  #deliver(event: string, params: unknown): void {
    this.#lifecycle.deliver(event, params);
  }

  /** $/cancelRequest: the id names a host request only (FRAME-14). */
  #onCancel(params: unknown): void {
    if (!isPlainObject(params)) return;
    const id = params["id"];
    const reason = typeof params["reason"] === "string" ? ` (${params["reason"].slice(0, 256)})` : "";
    if (typeof id !== "number" && typeof id !== "string") return;
    this.#active.get(id)?.abort(new Error(`cancelled by the host${reason}`));
  }

  async #onRequest(request: RequestMessage): Promise<unknown> {
    const session = this.#session.get(request.method);
    if (session) return session(request.params);
    const link = this.#link;
    if (!link) throw new WireError(ErrorCode.Unavailable, `${request.method} before initialize`);
    const scope = new RequestScope(request.id, request.method, link);
    this.#active.set(request.id, scope);
    // A request cancelled while it waits for a slot is answered at once, not when a running
    // handler frees one: the host ends a generation that leaves a cancel unanswered for 2 s.
    const admitted = await this.#semaphore.acquire(scope);
    try {
      // Cancelled while waiting for a slot: answer without running the handler, so no work (and
      // no side effect) starts after the host gave up on it.
      if (scope.aborted) throw scope.abortReason;
      const ctx = (context: HandlerContext["context"]): HandlerContext => this.#context(scope, link, context);
      const registry = this.#registry;
      const api = this.apiVersion;
      return await requestStorage.run(scope, () => route(request, registry, api, scope, ctx, link.features));
    } catch (err) {
      if (scope.aborted && isNegotiated(this.apiVersion))
        throw new WireError(ErrorCode.RequestCancelled, `request ${String(request.id)} was cancelled`);
      throw err;
    } finally {
      // The response is decided: nothing more may be sent for this request (progress, children).
      scope.settle();
      if (admitted) this.#semaphore.release();
      if (this.#active.get(request.id) === scope) this.#active.delete(request.id);
    }
  }

  #initialize(params: unknown): unknown {
    if (this.#link) throw new WireError(ErrorCode.InvalidRequest, "initialize was already received");
    if (!isPlainObject(params)) throw new WireError(ErrorCode.InvalidParams, "initialize params must be an object");
    if (params["api_version"] !== this.apiVersion) {
      throw new WireError(
        ErrorCode.InvalidParams,
        `host asked for API ${JSON.stringify(params["api_version"])} but this extension speaks API ${this.apiVersion}; make the manifest's api_version match`,
      );
    }
    const peer = this.#peer;
    if (!peer) throw new WireError(ErrorCode.InternalError, "initialize before run()");
    this.#contributes = isPlainObject(params["contributes"]) ? params["contributes"] : null;
    const tools = [...this.#registry.tools.values()].map((t) => t.definition);
    const commands = [...this.#registry.commands.values()].map((c) => c.definition);
    if (!isNegotiated(this.apiVersion)) {
      this.#link = { api: this.apiVersion, features: new Set(), peer };
      return { api_version: this.apiVersion, tools, commands };
    }
    const advisoryHooks = ADVISORY_HOOKS.filter((h) => this.#registry.hooks.has(h));
    const n = negotiate(params["protocol"], {
      api: this.apiVersion,
      maxConcurrent: this.#maxConcurrent,
      lifecycleEvents: this.#lifecycle.events,
      tools,
      dynamicTools: this.#dynamicTools,
      advisoryHooks,
    });
    if (n.strippedPromptMetadata.length > 0) {
      process.stderr.write(
        `octet-extension: the host did not offer tool_prompt_metadata_v1; the prompt metadata of ${n.strippedPromptMetadata.join(", ")} is not sent\n`,
      );
    }
    if (this.#lifecycle.events.length > 0 && !n.features.has("lifecycle_events")) {
      process.stderr.write(
        `octet-extension: the host did not offer lifecycle_events; the handlers for ${this.#lifecycle.events.join(", ")} will not run\n`,
      );
    }
    const subscribed = n.protocol["lifecycle_events"];
    this.#lifecycle.subscribe(Array.isArray(subscribed) ? (subscribed as string[]) : []);
    this.#semaphore = new Semaphore(n.maxConcurrent);
    this.#link = { api: this.apiVersion, features: n.features, peer };
    if (n.features.has("dynamic_tools")) {
      // Epoch 0 is the catalog sent in this response (CAT-09), definitions as sent.
      const sent = new Map<string, CatalogTool>(
        n.tools.map((d) => [d.name, { definition: d, handler: this.#registry.tools.get(d.name)!.handler }]),
      );
      const catalog = new ToolCatalog(sent);
      this.#catalog = catalog;
      this.#registry.toolsAt = (revision) => catalog.at(revision);
    } else if (this.#dynamicTools) {
      process.stderr.write(
        "octet-extension: the host did not offer dynamic_tools; registerTools() and unregisterTools() will refuse\n",
      );
    }
    return { api_version: this.apiVersion, tools: n.tools, commands, protocol: n.protocol };
  }

  #context(scope: RequestScope, link: Link, context: HandlerContext["context"]): HandlerContext {
    return {
      get signal() {
        return scope.signal;
      },
      requestId: scope.id,
      method: scope.method,
      context,
      progress: scope.progress,
      notify: (n) => this.notify(n),
      confirm: (options) => confirm(scope, link, options),
      input: (options) => input(scope, link, options),
      publishArtifact: (source, mimeType, options) => publishArtifact(scope, link, source, mimeType, options),
      throwIfCancelled: () => scope.throwIfCancelled(),
    };
  }
}
