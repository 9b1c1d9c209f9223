/**
 * The embedding API: discovery, the trust and enablement gate, one generation per started
 * extension, the host catalog of tools and commands, routing of calls, hooks and collection
 * requests, status, and shutdown within the aggregate deadline.
 *
 * Contract: start() never throws because an extension failed; failures are recorded per
 * extension (status, events) and the others keep working. Calls name tools and commands from the
 * accepted catalogs only (INIT-49). After an extension's first successful start, a supervisor
 * per extension restarts it when it ends unexpectedly (supervision/), through the same
 * candidate-first, serialized replacement as reload().
 *
 * This class is the facade: it wires the parts in host/ together (gate: discovery and gating;
 * tool-ledger: who holds which tool name; replacement: the reload queue and supervisors;
 * routing: calls and commands; actions: menu and presentation actions) and creates generations.
 */
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import {
  OctetError,
  bounds,
  type CommandResult,
  type ContextContribution,
  type HookName,
  type RenderSegment,
  type StatusContribution,
  type UiSurface,
  type CacheWarmingPayload,
  type CompactionPayload,
  type TurnHook,
  type TurnPayload,
} from "@octet/protocol";
import type { HostEvent, HostEventListener } from "../events.js";
import { Generation } from "../generation/generation.js";
import type {
  CallOptions as CollectOptions,
  CollectEnv,
  HookOutcome,
  RenderInput,
} from "../modules/collection/collect.js";
import { LifecycleHub, type LifecycleMethod } from "../generation/lifecycle.js";
import { ContributionStore, type Contributions } from "../modules/collection/contribution-store.js";
import type { ToolCallOutcome } from "../generation/tool-outcome.js";
import type { MenuOutcome } from "../modules/menus/menus.js";
import type { ConfirmService, InputService } from "../generation/child-inbox.js";
import { truncateBytes } from "../transport/stderr-sink.js";
import type { Entry, ExtensionStatus } from "./extension-status.js";
import { bindModules, embedderSurface, type EmbedderSurface } from "../modules/registry.js";
import type { BoundModule } from "../modules/module.js";
import type { CatalogSnapshot } from "./catalog-snapshot.js";
import type { CacheWarmingAdvice } from "../modules/advisory-hooks/advisory-hooks.js";
import type { TurnHookOptions, TurnHookOutcome } from "../modules/session-entries/turn-hooks.js";
import type { FrontendApi } from "../modules/frontend/module.js";
import type { CompactionHookApi } from "../modules/session-control/module.js";
import { PresentationStore } from "../modules/presentation/presentation-store.js";
import type { PresentationRecord } from "../modules/presentation/presentation-service.js";
import type { Artifact } from "../modules/artifacts/artifact-store.js";
import type { ExtensionHostOptions } from "./host-options.js";
import type { ForeignEventTarget } from "../modules/foreign-events/module.js";
import { sweepStaleScratch } from "../process/scratch.js";
import { Roster, type ForeignCatalogView, type HostCommand, type HostTool } from "./roster.js";
import { ToolNameLedger } from "./tool-ledger.js";
import { ReplacementQueue } from "./replacement.js";
import { discoverEntries, reloadRefusal, startEntries } from "./gate.js";
import { Router, type CallOptions } from "./routing.js";
import { Actions, type PresentationActionOptions } from "./actions.js";

export type { ConfirmService, InputService, HookOutcome, RenderInput, MenuOutcome, Contributions, ToolCallOutcome };
export type { CallOptions, HostTool, HostCommand, ExtensionHostOptions };

/** What a command, a menu action or a presentation action answers: its result and who ran it. */
type CommandOutcome = Promise<CommandResult & { extension: string }>;

export class ExtensionHost {
  readonly workspace: string;
  readonly instanceId = randomUUID();
  readonly #options: ExtensionHostOptions;
  readonly #roster = new Roster();
  readonly #listeners: HostEventListener[] = [];
  #nextGeneration = 1;
  readonly #lifecycle = new LifecycleHub();
  readonly #contributions = new ContributionStore();
  #shutdown: Promise<void> | null = null;
  /** The host modules, bound to the services the embedder gave (modules/registry.ts). */
  readonly #modules: BoundModule[];
  /** The host modules' embedder APIs (collection, advisory hooks), over the ready generations. */
  readonly #api: EmbedderSurface;
  /** The latest accepted presentation snapshots (modules/presentation/). */
  readonly #presentations = new PresentationStore();
  readonly #ledger: ToolNameLedger;
  readonly #replacements: ReplacementQueue;
  readonly #router: Router;
  readonly #actions: Actions;

  private constructor(options: ExtensionHostOptions) {
    this.#options = options;
    this.#ledger = new ToolNameLedger(this.#roster.entries, options.reservedToolNames ?? []);
    this.#modules = bindModules(options.services ?? {}, { nameOwners: (extension) => this.#ledger.owners(extension) });
    this.#api = embedderSurface({ ready: () => this.#roster.readyGenerations(), env: () => this.#collectEnv() });
    this.workspace = resolve(options.workspace ?? process.cwd());
    if (options.onEvent) this.#listeners.push(options.onEvent);
    const emit = (event: HostEvent): void => this.#emit(event);
    this.#replacements = new ReplacementQueue({
      ledger: this.#ledger,
      newGeneration: (e) => this.#newGeneration(e),
      isShuttingDown: () => this.#shutdown !== null,
      supervision: options.supervision,
      emit,
    });
    const roster = this.#roster;
    this.#router = new Router({ roster, callMs: options.timeouts?.callMs, enabled: options.enable ?? [], emit });
    const confirm = options.services?.confirm;
    this.#actions = new Actions({ roster, router: this.#router, presentations: this.#presentations, confirm, emit });
  }

  /** Discovers extensions without starting any (for `octet extensions list`). */
  static async discover(options: ExtensionHostOptions = {}): Promise<ExtensionStatus[]> {
    const host = new ExtensionHost(options);
    await host.#discover();
    return host.status();
  }

  /** Discovers, gates and starts the enabled, trusted extensions concurrently. */
  static async start(options: ExtensionHostOptions = {}): Promise<ExtensionHost> {
    // Scratch directories left by hosts that died without cleaning up (issue 13); in the background.
    void sweepStaleScratch();
    const host = new ExtensionHost(options);
    const onAbort = (): void => void host.shutdown({ fast: true });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      if (options.signal?.aborted) onAbort();
      await host.#discover();
      if (!host.#shutdown) {
        await startEntries(host.#roster.entries, {
          ledger: host.#ledger,
          replacements: host.#replacements,
          newGeneration: (e) => host.#newGeneration(e),
          isShuttingDown: () => host.#shutdown !== null,
          emit: (event) => host.#emit(event),
        });
      }
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
    return host;
  }

  onEvent(listener: HostEventListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i !== -1) this.#listeners.splice(i, 1);
    };
  }

  /** Model-visible tool definitions of every ready extension. */
  tools(): HostTool[] {
    return this.#roster.tools();
  }

  /**
   * The catalog for one model request (CAT-14): take it when building the request, give the
   * model its tools(), and pass it with every call of that request (CallOptions.catalog).
   * Mutations published later appear in the next snapshot, never in this one.
   */
  catalog(): CatalogSnapshot {
    return this.#roster.catalog();
  }

  commands(): HostCommand[] {
    return this.#roster.commands();
  }

  /**
   * Calls a tool. A tool error, a JSON-RPC error reply or an invalid result come back as a
   * result with is_error true (CALL-13, CALL-23); an extension that cannot be reached (not
   * ready, crashed, timed out, cancelled) throws an OctetError.
   */
  callTool(name: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<ToolCallOutcome> {
    return this.#router.callTool(name, args, options);
  }

  /**
   * A verified artifact of `extension`'s current generation, for the embedder (for example the
   * media of a partial_result progress event); undefined when unknown, after a reload or
   * restart, or when no artifacts service is bound (ART-14, ART-15). Final results carry their
   * media in ToolCallOutcome.media already. The bytes are the host's snapshot: do not modify them.
   */
  artifact(extension: string, id: string): Artifact | undefined {
    const g = this.#roster.ready().find(({ g }) => g.name === extension)?.g;
    return g?.media?.get(id, g.owner());
  }

  /** Runs a slash command (CMD-01). */
  runCommand(name: string, args: string[] = [], options: CallOptions = {}): CommandOutcome {
    return this.#router.runCommand(name, args, options);
  }

  /**
   * Runs a hook on every ready extension that declared it, in discovery order. A failing or
   * timed-out hook counts as continue and is diagnosed (HOOK-10). Deny is honoured only for
   * before_prompt and before_tool_call (HOOK-06); the first deny stops the chain.
   */
  runHook(hook: HookName, payload: Record<string, unknown>, options: CallOptions = {}): Promise<HookOutcome> {
    if (hook === "before_tool_call") {
      try {
        this.#router.checkHookCall(payload, options);
      } catch (err) {
        return Promise.reject(err);
      }
    }
    return this.#api.runHook(hook, payload, options);
  }

  /** context/collect from every ready extension that declared contributes.context (CTX-03). */
  collectContext(
    input: { prompt: string | null },
    options: CallOptions = {},
  ): Promise<(ContextContribution & { extension: string })[]> {
    return this.#api.collectContext(input, options);
  }

  /** status/collect from every ready extension that declared the surface in contributes.ui. */
  collectStatus(
    surface: UiSurface = "status",
    options: CallOptions = {},
  ): Promise<(StatusContribution & { extension: string })[]> {
    return this.#api.collectStatus(surface, options);
  }

  /**
   * tool/render for a tool whose extension declared a renderer (REND-02). Returns null when no
   * renderer applies or it failed (the caller falls back to plain output, REND-03).
   */
  renderTool(input: RenderInput, options: CallOptions = {}): Promise<RenderSegment[] | null> {
    return this.#api.renderTool(input, options);
  }

  /**
   * The menu of an API 0.2+ extension that declares one (MENU-01..10), pulled fresh; on timeout
   * (5 s), error or a rejected bound, one generated entry per declared command instead.
   */
  collectMenu(extension: string, options: CollectOptions = {}): Promise<MenuOutcome> {
    return this.#actions.collectMenu(extension, options);
  }

  /**
   * Runs the menu action at `path` ("setup" or "submenu/item") of the menu last collected for
   * `extension`: command/execute of a declared command with the literal arguments (MENU-11), for
   * up to 30 minutes (MENU-12). A destructive action is confirmed with the embedder first and
   * refused without a confirmation service (MENU-13).
   */
  runMenuAction(extension: string, path: string, options: CallOptions = {}): CommandOutcome {
    return this.#actions.runMenuAction(extension, path, options);
  }

  /**
   * Reports a session, turn or tool start or settlement (LIFE-04..10). Every ready extension that
   * negotiated lifecycle_events and subscribed to the method is notified; delivery is best-effort
   * and never blocks. after_response is not implied: run it with runHook after a successful,
   * complete response only (HOOK-07). Throws OctetError when the event is malformed.
   */
  emitLifecycle(method: LifecycleMethod, params: Record<string, unknown>): void {
    this.#lifecycle.emit(method, params, this.#roster.readyGenerations());
  }

  /**
   * Cache-warming advice (API 0.4, PY-46..51): asks every extension that negotiated
   * cache_warming_decision, in order, each for at most 200 ms; the last valid action wins, and
   * anything else keeps the action before it. `deadlineMs` is the refresh's own deadline.
   */
  adviseCacheWarming(
    payload: CacheWarmingPayload,
    options: { signal?: AbortSignal; deadlineMs?: number } = {},
  ): Promise<CacheWarmingAdvice> {
    return this.#api.adviseCacheWarming(payload, options);
  }

  /**
   * Compaction frames (API 0.4, PY-43, PY-45) from the first extension that negotiated
   * compaction_strategy: every frame a complete PNG, at most 16, or null.
   */
  compactionFrames(
    payload: CompactionPayload,
    options: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<{ extension: string; frames: Uint8Array[] } | null> {
    return this.#api.compactionFrames(payload, options);
  }

  /** model_turn_start / model_turn_end (W 1.4b; modules/session-entries/turn-hooks.ts); throws TurnHookError. */
  runTurnHook(hook: TurnHook, payload: TurnPayload, options: TurnHookOptions = {}): Promise<TurnHookOutcome> {
    return this.#api.runTurnHook(hook, payload, options);
  }

  /** A text delta of the model's message (W 1.11): batched into message/updated (message-batches.ts). */
  messageDelta(messageId: string, delta: string): void {
    this.#api.messageDelta(messageId, delta);
  }

  /** The message `messageId` ended: its last batch, then message/settled {message_id}. */
  messageSettled(messageId: string): void {
    this.#api.messageSettled(messageId);
  }

  /** services.frontend: the admitted shortcuts, shortcut/trigger and Tab's chains (modules/frontend). */
  get frontend(): FrontendApi {
    return this.#api;
  }

  /** session_before_compact / session_compact (modules/session-control/compaction-hooks.ts). */
  get compactionHooks(): CompactionHookApi {
    return this.#api;
  }

  /**
   * The ready foreign instances that take the session event `name` of their own protocol, in
   * discovery order (modules/foreign-events; only with the sessionLayer option).
   */
  foreignEvents(name: string): ForeignEventTarget[] {
    return this.#api.foreignEvents(name);
  }

  /** Whether a ready extension takes `hook` now: build its payload only then (it may be costly). */
  takesTurnHook(hook: TurnHook): boolean {
    return this.#api.takesTurnHook(hook);
  }

  /** The latest unsolicited context and status contributions of the running generations (CTX-07). */
  contributions(): Contributions {
    return this.#contributions.snapshot();
  }

  status(): ExtensionStatus[] {
    return this.#roster.status();
  }

  /**
   * The newest presentation snapshot `extension` published, with the identity the host attached
   * (PRES-22); null when there is none, the service is not bound, or its generation ended.
   */
  presentation(extension: string): PresentationRecord | null {
    return this.#presentations.latest(extension);
  }

  /**
   * Runs action `actionId` of the newest presentation snapshot of `extension`: command/execute of
   * the declared command with its literal arguments, on that extension only. The snapshot never
   * runs anything itself (PRES-23): a person does, through this. `at` pins the snapshot the person
   * saw (instance fence, generation, revision, PRES-25); a newer one refuses the action as stale.
   * A destructive action is confirmed with the embedder first and refused without a confirm service.
   */
  runPresentationAction(extension: string, actionId: string, options: PresentationActionOptions = {}): CommandOutcome {
    return this.#actions.runPresentationAction(extension, actionId, options);
  }

  /**
   * Stops every extension concurrently: each runs its stop ladder within `budgetMs` (3 s for a
   * normal shutdown, SHUT-06; 1.4 s with fast, SHUT-07), and then every group still alive is killed.
   */
  shutdown(options: { fast?: boolean } = {}): Promise<void> {
    this.#shutdown ??= (async () => {
      // No restart follows an explicit shutdown (SUP-07).
      for (const e of this.#roster.entries) e.supervisor?.stop();
      const budget = options.fast ? bounds.SHUTDOWN_FAST_TIMEOUT_MS : bounds.SHUTDOWN_AGGREGATE_TIMEOUT_MS;
      await Promise.all([...this.#roster.live].map((g) => g.stop(budget)));
    })();
    return this.#shutdown;
  }

  /**
   * Replaces an extension's process with a new generation (SUP-22, SUP-14, SUP-17): the
   * candidate is started and fully negotiated while the current one keeps serving; only when it
   * is ready are new calls routed to it, and the old generation then drains (bounded, SUP-23) and
   * stops. A candidate that fails, or whose catalog differs ("re-registration required",
   * SUP-15), leaves the current one active (SUP-18). Manual reloads and automatic restarts of one
   * extension are serialized (SUP-08). Revives a parked extension (SUP-09).
   */
  reload(name: string): Promise<ExtensionStatus> {
    const e = this.#roster.named(name);
    const refusal = reloadRefusal(e, name);
    if (refusal) return Promise.reject(refusal);
    if (this.#shutdown) return Promise.reject(new OctetError("shutdown", "the host is shutting down"));
    // A scheduled automatic restart is dropped: this reload takes its place.
    e!.supervisor?.preempt();
    return this.#replacements.enqueue(e!, "manual");
  }

  async #discover(): Promise<void> {
    const { entries, undiscovered } = await discoverEntries({ ...this.#options, workspace: this.workspace });
    this.#roster.entries.push(...entries);
    for (const name of undiscovered) {
      const message = `--enable-extension ${name}: no extension of that name was discovered`;
      this.#emit({ type: "diagnostic", extension: name, generation: 0, level: "error", message });
    }
  }

  /** A new, unstarted generation of `e`, with the embedder's session, services and deadlines. */
  #newGeneration(e: Entry): Generation {
    const m = e.discovered.manifest!;
    const session = this.#options.session ?? {};
    const timeouts = this.#options.timeouts;
    const g = new Generation({
      manifest: m,
      manifestPath: e.discovered.manifestPath,
      extensionDir: e.discovered.dir,
      source: e.discovered.source,
      workspace: this.workspace,
      number: this.#nextGeneration++,
      instanceId: this.instanceId,
      host: {
        session_id: session.session_id ?? null,
        session_name: session.session_name ?? null,
        model: session.model ?? null,
        reasoning: session.reasoning ?? null,
        active_skills: session.active_skills ?? [],
      },
      parentEnv: this.#options.env ?? process.env,
      emit: (event) => this.#emit(event),
      modules: this.#modules,
      ...(e.discovered.foreign
        ? {
            foreign: {
              extension: e.discovered.foreign,
              trusted: e.trusted,
              catalog: () => this.#foreignCatalog(),
              sessionLayer: this.#options.sessionLayer,
            },
          }
        : {}),
      ...(timeouts?.initializeMs !== undefined ? { initializeTimeoutMs: timeouts.initializeMs } : {}),
      ...(this.#options.trace ? { trace: this.#options.trace } : {}),
      ...(timeouts?.frameAssemblyMs !== undefined ? { frameAssemblyTimeoutMs: timeouts.frameAssemblyMs } : {}),
    });
    // Open sessions, turns and tools are settled for a generation after its drain, before its
    // shutdown request (LIFE-12).
    g.spec.onDrained = (reason) => this.#lifecycle.settleOpen(g, reason);
    // Only the end of the active generation concerns the supervisor: a failed candidate is the
    // replacement's business, and an old generation being replaced is already on its way out.
    g.spec.onUnexpectedEnd = (error) => {
      if (e.generation === g) e.supervisor?.ended(error.message);
    };
    this.#roster.track(g);
    return g;
  }

  /** What a foreign extension sees of the catalog (pi.getAllTools(), getCommands()), rebuilt when it changed. */
  #foreignCatalog(): ForeignCatalogView {
    return this.#roster.foreignCatalog();
  }

  #collectEnv(): CollectEnv {
    return {
      collectMs: this.#options.timeouts?.collectMs ?? bounds.COLLECT_TIMEOUT_MS,
      emit: (event) => this.#emit(event),
      diagnoseFailure: (g, what, err) => this.#diagnoseFailure(g, what, err),
    };
  }

  #diagnoseFailure(g: { readonly name: string; readonly number: number }, what: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    const text = `${what} failed: ${truncateBytes(message, 1024)}`;
    this.#emit({ type: "diagnostic", extension: g.name, generation: g.number, level: "warning", message: text });
  }

  #emit(event: HostEvent): void {
    this.#contributions.observe(event);
    this.#presentations.observe(event);
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // A listener's failure must not break the host.
      }
    }
  }
}
