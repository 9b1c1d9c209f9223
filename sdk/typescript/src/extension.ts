/**
 * The extension runtime's public API: registration of tools, commands, hooks, context, status,
 * menu, renderers and lifecycle handlers, each checked when it is registered; dynamic tools;
 * notifications to the host. Serving the host (initialize and feature negotiation, dispatch under
 * the concurrency limit, cancellation, shutdown and stdin EOF) is serving.ts; the ctx a handler
 * receives is handler-context.ts.
 *
 * Contract for handlers: they run concurrently up to maxConcurrentRequests; ctx.signal aborts on
 * host cancellation (API 0.2+) or shutdown, and cancellation is cooperative, never a rollback.
 * A handler that throws produces a tool error result (tool/call) or a JSON-RPC error (others);
 * once its request was cancelled, whatever it throws is answered -32800 (API 0.2+).
 */
import {
  isNegotiated,
  isValidToolName,
  validateToolDefinition,
  validateStatusContribution,
  type ApiVersion,
  type CommandDefinition,
  type RpcPeer,
  type ToolDefinition,
  type HookName,
  type LifecycleEvent,
  type AdvisoryHook,
  type CacheWarmingAction,
  type CacheWarmingPayload,
  type TurnHook,
  type CompactionHook,
  ADVISORY_HOOKS,
  COMPACTION_HOOKS,
  HOOK_NAMES,
  TURN_HOOKS,
  isAdvisoryHook,
  isCompactionHook,
  isTurnHook,
} from "@octet/protocol";
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
import { LifecycleHandlers } from "./lifecycle.js";
import { AmbientProgress } from "./progress.js";
import { ambientCancellation, requestStorage } from "./request-scope.js";
import type { ToolCatalog, CatalogTool } from "./catalog.js";
import { Presentation } from "./presentation.js";
import { policyApi, secretsApi, type PolicyApi, type SecretsApi } from "./host-services.js";
import { parentOf, sessionApi, type SessionApi } from "./session.js";
import { activeToolsApi, isMessageEvent, MessageHandlers } from "./message-injection.js";
import type { ActiveToolsApi, MessageEvent, MessageHandler } from "./types.js";
import { sessionControlApi, type SessionControlApi } from "./session-control.js";
import { TerminalGrants, type TerminalApi, type TerminalGrantLostHandler } from "./terminal.js";
import { FrontendRegistry, type AutocompleteHandler, type ShortcutHandler } from "./frontend.js";
import { buildTypedTool, type TypedToolHandler, type TypedToolSpec } from "./typed-tool.js";
import { Serving, type ServedRegistry } from "./serving.js";
import type { TObject, TSchema } from "@sinclair/typebox";

const DEFAULT_MAX_CONCURRENT = 16;

export class Extension {
  readonly apiVersion: ApiVersion;
  /** The running request's cancellation token, wherever the handler's code is (AsyncLocalStorage). */
  readonly cancellation: Cancellation = ambientCancellation;
  /** The running request's progress, as ctx.progress; throws outside a request handler. */
  readonly progress: Progress;
  /** presentation/update (API 0.2+, contributes.presentation): ext.presentation.update(snapshot). */
  readonly presentation: Presentation;
  /** policy/evaluate for the running request (API 0.2+, when the host offers policy_intents). */
  readonly policy: PolicyApi = policyApi(() => this.#serving.link);
  /** secret/get for the running request (API 0.2+, when the host offers secrets). */
  readonly secrets: SecretsApi = secretsApi(() => this.#serving.link);
  /** session_entries for the running request (API 0.2+, when the host binds a session writer); as ctx.session. */
  readonly session: SessionApi = sessionApi(
    () => requestStorage.getStore(),
    () => this.#serving.link,
  );
  /** tools/set_active for the running request (API 0.2+, feature active_tools); as ctx.tools. */
  readonly tools: ActiveToolsApi = activeToolsApi(
    parentOf,
    () => requestStorage.getStore(),
    () => this.#serving.link,
  );
  readonly #messages = new MessageHandlers();
  /** session_control_v1 / session_compaction_v1 (API 0.4): waits, switches and compactions; as ctx.sessionControl. */
  readonly sessionControl: SessionControlApi = sessionControlApi(
    () => requestStorage.getStore(),
    () => this.#serving.link,
    () => undefined,
  );
  readonly #terminal = new TerminalGrants();
  /** terminal_handoff for the running request (API 0.2+, when the host binds a terminal); as ctx.terminal. */
  readonly terminal: TerminalApi = this.#terminal.api(
    () => requestStorage.getStore(),
    () => this.#serving.link,
  );
  readonly #registry = {
    tools: new Map<string, { definition: ToolDefinition; handler: ToolHandler }>(),
    toolsAt: undefined as ((revision: number | undefined) => ReadonlyMap<string, CatalogTool>) | undefined,
    commands: new Map<string, { definition: CommandDefinition; handler: CommandHandler }>(),
    hooks: new Map<string, HookHandler>(),
    renderers: new Map<string, RenderHandler>(),
    contextHandler: null as ContextHandler | null,
    statusHandler: null as StatusHandler | null,
    menuHandler: null as MenuHandler | null,
  } satisfies ServedRegistry;
  readonly #lifecycle = new LifecycleHandlers();
  readonly #frontend = new FrontendRegistry();
  readonly #dynamicTools: boolean;
  /** Serving the host, once run(); until initialize it has no link. */
  readonly #serving: Serving;

  constructor(options: ExtensionOptions) {
    if (!["0.1", "0.2", "0.4"].includes(options.apiVersion)) {
      throw new TypeError(`apiVersion must be "0.1", "0.2" or "0.4", got ${JSON.stringify(options.apiVersion)}`);
    }
    const max = options.maxConcurrentRequests ?? DEFAULT_MAX_CONCURRENT;
    if (!Number.isInteger(max) || max < 1)
      throw new RangeError(`maxConcurrentRequests must be a positive integer, got ${max}`);
    this.apiVersion = options.apiVersion;
    if (options.dynamicTools === true && options.apiVersion === "0.1")
      throw new TypeError("dynamicTools needs API 0.2 or later");
    this.#dynamicTools = options.dynamicTools === true;
    this.presentation = new Presentation(() => ({ link: this.#serving.link, contributes: this.#serving.contributes }));
    this.progress = new AmbientProgress(
      () => requestStorage.getStore()?.progress,
      () => this.#serving.link?.features ?? new Set(),
    );
    // Take stdout over now, not in run(): a "loading..." log between the two must not reach the
    // host as a non-frame (FRAME-03).
    this.#serving = new Serving({
      apiVersion: this.apiVersion,
      maxConcurrent: max,
      dynamicTools: this.#dynamicTools,
      registry: this.#registry,
      lifecycle: this.#lifecycle,
      messages: this.#messages,
      terminal: this.#terminal,
      frontend: this.#frontend,
      notify: (n) => this.notify(n),
    });
  }

  /** The features negotiated in initialize (empty before it, and always on API 0.1). */
  get features(): readonly string[] {
    return [...(this.#serving.link?.features ?? [])];
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
    const peer = this.#serving.link!.peer;
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
    const peer = this.#serving.link!.peer;
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
    return this.#serving.catalog?.revision ?? null;
  }

  #dynamicCatalog(what: string): ToolCatalog {
    if (!this.#dynamicTools) throw new Error(`${what}() needs new Extension({ dynamicTools: true, ... })`);
    if (!this.#serving.link)
      throw new Error(
        `${what}() can be used only after initialize (from a handler, or after the extension is running)`,
      );
    const catalog = this.#serving.catalog;
    if (!catalog)
      throw new Error(`${what}(): the host did not offer dynamic_tools, so the tool catalog is fixed for this process`);
    return catalog;
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
        `tool "${name}": promptSnippet and promptGuidelines need API 0.4 (this extension speaks API ` +
          `${this.apiVersion})`,
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

  /**
   * A hook handler. model_turn_start / model_turn_end (W 1.4b) need API 0.4, the hook in the
   * manifest's contributes.hooks and session_entries negotiated; they may only observe (return
   * nothing, notifications, or sessionOperation {action: "continue"}) and may write entries with
   * ctx.session while they run. session_before_compact / session_compact (WAVE1-40) have the same
   * gate; the before-hook may veto with sessionOperation {action: "cancel"}.
   */
  hook(name: HookName | AdvisoryHook | TurnHook | CompactionHook, handler: HookHandler): this {
    if (isAdvisoryHook(name) || isTurnHook(name) || isCompactionHook(name)) {
      // PY-52 and W 1.4b: the advisory and model-turn hooks exist on API 0.4 only.
      if (this.apiVersion !== "0.4")
        throw new TypeError(`hook "${name}" needs API 0.4 (this extension speaks API ${this.apiVersion})`);
    } else if (!HOOK_NAMES.includes(name)) {
      const known = [...HOOK_NAMES, ...ADVISORY_HOOKS, ...TURN_HOOKS, ...COMPACTION_HOOKS].join(", ");
      throw new TypeError(`unknown hook ${JSON.stringify(name)}; expected one of ${known}`);
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
  on(event: LifecycleEvent, handler: LifecycleHandler): this;
  /**
   * message/updated: the model's text in coalesced batches {message_id, delta, deltas}, and
   * message/settled {message_id} after a message's last batch (feature message_injection).
   */
  on(event: MessageEvent, handler: MessageHandler): this;
  on(event: LifecycleEvent | MessageEvent, handler: LifecycleHandler | MessageHandler): this {
    if (isMessageEvent(event)) {
      if (!isNegotiated(this.apiVersion))
        throw new TypeError(`${event} needs API 0.2 or later (this extension speaks API ${this.apiVersion})`);
      this.#messages.add(event, handler as MessageHandler);
      return this;
    }
    return this.#onLifecycle(event, handler as LifecycleHandler);
  }

  #onLifecycle(event: LifecycleEvent, handler: LifecycleHandler): this {
    if (!isNegotiated(this.apiVersion))
      throw new TypeError(`lifecycle events need API 0.2 or later (this extension speaks API ${this.apiVersion})`);
    if (this.#serving.link) throw new Error(`on("${event}") after initialize: the subscription was already negotiated`);
    this.#lifecycle.add(event, handler);
    return this;
  }

  /**
   * Runs `handler` when the host takes a terminal grant back (terminal/grant-lost: the call
   * ended, shutdown, a revocation); the grant's `lost` signal is aborted first. Stop writing then.
   */
  onTerminalGrantLost(handler: TerminalGrantLostHandler): this {
    this.#terminal.onLost(handler);
    return this;
  }

  /**
   * A key binding in the host's line editor (before run(); feature shortcuts, API 0.2+). `key` is
   * lowercase `+`-joined modifiers (ctrl, alt, shift, meta) and one key (a-z, 0-9, f1..f12), e.g.
   * "ctrl+g" or "alt+x"; keys the editor binds itself are refused. Registered inside initialize;
   * returns the stable id. The handler runs outside any request: it may notify, not ask.
   */
  shortcut(key: string, handler: ShortcutHandler, description = ""): string {
    return this.#frontend.addShortcut(key, handler, description);
  }

  /**
   * Completions for the host's prompt line on Tab (before run(); feature autocomplete). Return the
   * suffix before the cursor to replace (`prefix`) and the choices, or null to let the next chain
   * and the host's own completion answer. Chains share one 500 ms deadline.
   */
  autocomplete(handler: AutocompleteHandler): this {
    this.#frontend.setAutocomplete(handler);
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
   * Starts serving the host on stdin/stdout (serving.ts). Resolves never in practice: the process
   * exits on shutdown or stdin EOF.
   */
  run(): Promise<void> {
    return this.#serving.run();
  }

  #requirePeer(what: string): RpcPeer {
    const peer = this.#serving.peer;
    if (!peer || !this.#serving.link)
      throw new Error(`${what}() is available only after the host initialized the extension`);
    return peer;
  }
}
