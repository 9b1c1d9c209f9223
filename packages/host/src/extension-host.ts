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
 */
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import {
  OctetError, WireError, bounds,
  validateCommandResult,
  type CommandResult, type ContextContribution, type HookName, type HostState,
  type RenderSegment, type StatusContribution, type ToolDefinition, type UiSurface,
  type CommandDefinition, type ProgressEvent, type ExtensionMenu, type CacheWarmingPayload, type CompactionPayload,
} from "@octet/protocol";
import type { HostEvent, HostEventListener } from "./events.js";
import { Generation } from "./generation.js";
import type { CallOptions as CollectOptions, CollectEnv, HookOutcome, RenderInput } from "./modules/collection/collect.js";
import { LifecycleHub, type LifecycleMethod } from "./lifecycle.js";
import { ContributionStore, type Contributions } from "./contributions.js";
import { toolError, toolOutcome, type ToolCallOutcome } from "./tool-outcome.js";
import { collectMenu, offersMenu, requireAction, type MenuOutcome } from "./modules/menus/menus.js";
import type { ConfirmService, InputService } from "./child-inbox.js";
import { discoverExtensions, type DiscoveredExtension } from "./manifest/discovery.js";
import { resolveStartDecision } from "./manifest/trust.js";
import { truncateBytes } from "./transport/stderr-sink.js";
import { catalogOf, notReadyReasons, statusOf, type Entry, type ExtensionStatus } from "./extension-status.js";
import { Supervisor, isPermanentRestartError, type SupervisorClock } from "./supervision/supervisor.js";
import { DEFAULT_RESTART_POLICY, type RestartPolicy } from "./supervision/restart-policy.js";
import { bindModules, embedderSurface, type EmbedderSurface, type HostServiceOptions } from "./modules/registry.js";
import type { BoundModule } from "./modules/module.js";
import { CatalogSnapshot } from "./catalog-snapshot.js";
import { nameOwners, toolConflict } from "./tool-names.js";
import { refuseInvalidArguments } from "./schema-check/call-arguments.js";
import type { ToolSchemas } from "./schema-check/tool-schemas.js";
import type { CacheWarmingAdvice } from "./modules/advisory-hooks/advisory-hooks.js";
import { PresentationStore } from "./modules/presentation/presentation-store.js";
import type { PresentationRecord } from "./modules/presentation/presentation-service.js";
import type { Artifact } from "./modules/artifacts/artifact-store.js";
import type { ForeignRuntime } from "./foreign-runtime.js";
import { sweepStaleScratch } from "./process/scratch.js";

export type { ConfirmService, InputService, HookOutcome, RenderInput, MenuOutcome, Contributions, ToolCallOutcome };

export interface ExtensionHostOptions {
  /** The workspace: every child's cwd. Default: process.cwd(). */
  workspace?: string;
  /**
   * Foreign runtimes (e.g. rpiRuntime() from @octet/rpi): their manifests are discovered beside
   * extension.toml ones and their extensions served like any other.
   */
  runtimes?: readonly ForeignRuntime[];
  /** Explicit extension directories (--extension-dir). */
  extensionDirs?: string[];
  /** Extensions to start; enablement is explicit (MAN-18). */
  enable?: string[];
  /** Explicit trust grants (--trust-extension). */
  trust?: string[];
  /** Removes the implicit authority of full access (MAN-20). */
  safeMode?: boolean;
  /** "full-access" (default) trusts enabled global extensions; "controlled" trusts only explicit grants. */
  policy?: "full-access" | "controlled";
  /** Where global extensions live: <octetHome>/extensions. Default $OCTET_HOME or ~/.octet. */
  octetHome?: string;
  /** The embedder's services; one left out is not offered, and its requests are refused or answered empty. */
  services?: { confirm?: ConfirmService; input?: InputService } & HostServiceOptions;
  session?: Partial<HostState>;
  onEvent?: HostEventListener;
  /** The environment the child allowlist is taken from. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Tool names the embedder owns; extensions cannot take them. */
  reservedToolNames?: string[];
  /** Deadlines; frameAssemblyMs: how long a frame may stay unfinished on stdout (default 10 s). */
  timeouts?: { initializeMs?: number; callMs?: number; collectMs?: number; frameAssemblyMs?: number };
  /** Aborting it during start() stops every extension started so far (fast shutdown). */
  signal?: AbortSignal;
  /**
   * Automatic restarts after an unexpected end (SUP-01..11). On by default; `enabled: false`
   * leaves a crashed extension down until reload(). `clock` and `policy` are for tests and for
   * embedders with their own limits.
   */
  supervision?: { enabled?: boolean; clock?: SupervisorClock; policy?: Partial<RestartPolicy> };
}

export interface CallOptions extends CollectOptions {
  /** Receives the call's $/progress events (API 0.2+), output cut into chunks of at most 8 KiB. */
  onProgress?: (event: ProgressEvent) => void;
  /**
   * The catalog snapshot the model request that produced this call was built from
   * (host.catalog()): the call then uses the definition and catalog epoch the model saw
   * (CALL-04, CAT-15). Without it, the catalog published now.
   */
  catalog?: CatalogSnapshot;
}

export interface HostTool extends ToolDefinition {
  extension: string;
}
export interface HostCommand extends CommandDefinition {
  extension: string;
}




export class ExtensionHost {
  readonly workspace: string;
  readonly instanceId = randomUUID();
  readonly #options: ExtensionHostOptions;
  readonly #entries: Entry[] = [];
  readonly #listeners: HostEventListener[] = [];
  #nextGeneration = 1;
  /** Every generation not yet known to be over, reload candidates included, so shutdown reaches all. */
  readonly #live = new Set<Generation>();
  readonly #lifecycle = new LifecycleHub();
  readonly #contributions = new ContributionStore();
  /** The menu last collected per extension: actions run only from a menu the host validated. */
  readonly #menus = new Map<string, ExtensionMenu>();
  #shutdown: Promise<void> | null = null;
  /** The host modules, bound to the services the embedder gave (modules/registry.ts). */
  readonly #modules: BoundModule[];
  /** The host modules' embedder APIs (collection, advisory hooks), over the ready generations. */
  readonly #api: EmbedderSurface;
  /** The latest accepted presentation snapshots (modules/presentation/). */
  readonly #presentations = new PresentationStore();

  private constructor(options: ExtensionHostOptions) {
    this.#options = options;
    this.#modules = bindModules(options.services ?? {}, { nameOwners: (extension) => this.#nameOwners(extension) });
    this.#api = embedderSurface({ ready: () => this.#readyGenerations(), env: () => this.#collectEnv() });
    this.workspace = resolve(options.workspace ?? process.cwd());
    if (options.onEvent) this.#listeners.push(options.onEvent);
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
      if (!host.#shutdown) await host.#startAll();
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
    return this.#ready().flatMap(({ g }) => g.tools.map((t) => ({ ...t, extension: g.name })));
  }

  /**
   * The catalog for one model request (CAT-14): take it when building the request, give the
   * model its tools(), and pass it with every call of that request (CallOptions.catalog).
   * Mutations published later appear in the next snapshot, never in this one.
   */
  catalog(): CatalogSnapshot {
    return new CatalogSnapshot(this.#ready().flatMap(({ g }) => g.tools.map((definition) => ({ extension: g.name, generation: g.number, revision: g.catalogRevision, definition, schemas: g.schemas }))));
  }

  commands(): HostCommand[] {
    return this.#ready().flatMap(({ g }) => (g.accepted?.result.commands ?? []).map((c) => ({ ...c, extension: g.name })));
  }

  /**
   * Calls a tool. A tool error, a JSON-RPC error reply or an invalid result come back as a
   * result with is_error true (CALL-13, CALL-23); an extension that cannot be reached (not
   * ready, crashed, timed out, cancelled) throws an OctetError.
   */
  callTool(name: string, args: Record<string, unknown> = {}, options: CallOptions = {}): Promise<ToolCallOutcome> {
    return this.#callTool(name, args, options, null);
  }

  /** The generation, definition, epoch and its schemas a call goes out with (CALL-03, CALL-04, CAT-15). */
  #resolveTool(name: string, options: CallOptions, refusedBy: Generation | null): { g: Generation; definition: ToolDefinition; revision: number | null; schemas: ToolSchemas } {
    const seen = options.catalog?.entry(name);
    if (options.catalog && !seen) throw new OctetError("unknown_tool", `tool "${name}" is not in the catalog snapshot this call was made from (available: ${options.catalog.tools().map((t) => t.name).join(", ") || "none"})`);
    const g = seen
      ? this.#ready().find(({ g: x }) => x !== refusedBy && x.name === seen.extension)?.g
      : this.#ready().find(({ g: x }) => x !== refusedBy && x.tools.some((t) => t.name === name))?.g;
    if (!g) throw new OctetError("unknown_tool", this.#unknown("tool", name, this.tools().map((t) => t.name)));
    if (!seen) return { g, definition: g.tools.find((t) => t.name === name)!, revision: g.catalogRevision, schemas: g.schemas };
    if (seen.generation === g.number) return { g, definition: seen.definition, revision: seen.revision, schemas: seen.schemas ?? g.schemas };
    // The snapshot's generation was replaced. Without dynamic tools the catalog is the same by
    // construction (SUP-15); with them, the epoch the model saw belongs to a process that is gone.
    const current = g.tools.find((t) => t.name === name);
    if (seen.revision !== null || g.catalogRevision !== null || !current) {
      throw new OctetError("stale_catalog", `tool "${name}" was planned against generation ${seen.generation} of extension "${seen.extension}", which was replaced by generation ${g.number}; take a new catalog snapshot`);
    }
    return { g, definition: current, revision: null, schemas: g.schemas };
  }

  async #callTool(name: string, args: Record<string, unknown>, options: CallOptions, refusedBy: Generation | null): Promise<ToolCallOutcome> {
    const { g, definition, revision, schemas } = this.#resolveTool(name, options, refusedBy);
    // The host argument validator: before any send (and, through runHook, before any hook).
    refuseInvalidArguments(name, schemas, args);
    const params: Record<string, unknown> = { name, arguments: args, context: g.context(true) };
    // Only for a generation that negotiated dynamic_tools (CALL-03).
    if (revision !== null) params["catalog_revision"] = revision;
    let raw: unknown;
    try {
      raw = await g.request("tool/call", params, { timeoutMs: options.timeoutMs ?? this.#options.timeouts?.callMs ?? bounds.CALL_TIMEOUT_MS, signal: options.signal, onProgress: options.onProgress });
    } catch (err) {
      if (err instanceof WireError) return toolError(g, `Tool ${name} failed: ${err.message} (code ${err.code})`);
      // Refused before a byte was written (the generation began draining while the call waited
      // for a slot): send it to the replacement if one serves the tool now. Not a replay.
      if (err instanceof OctetError && err.code === "not_sent" && refusedBy === null && this.#ready().some(({ g: other }) => other !== g && other.name === g.name)) {
        return this.#callTool(name, args, options, g);
      }
      throw withSubject(err, `tool "${name}" of extension "${g.name}"`);
    }
    return toolOutcome(g, definition, raw, (event) => this.#emit(event), schemas);
  }

  /**
   * A verified artifact of `extension`'s current generation, for the embedder (for example the
   * media of a partial_result progress event); undefined when unknown, after a reload or
   * restart, or when no artifacts service is bound (ART-14, ART-15). Final results carry their
   * media in ToolCallOutcome.media already. The bytes are the host's snapshot: do not modify them.
   */
  artifact(extension: string, id: string): Artifact | undefined {
    const g = this.#ready().find(({ g }) => g.name === extension)?.g;
    return g?.media?.get(id, g.owner());
  }

  /** Runs a slash command (CMD-01). */
  runCommand(name: string, args: string[] = [], options: CallOptions = {}): Promise<CommandResult & { extension: string }> {
    return this.#runCommand(name, args, options, null, false);
  }

  async #runCommand(name: string, args: string[], options: CallOptions, only: string | null, preApproved: boolean): Promise<CommandResult & { extension: string }> {
    const found = this.#ready().find(({ g }) => (only === null || g.name === only) && g.accepted?.result.commands.some((c) => c.name === name));
    if (!found) throw new OctetError("unknown_command", this.#unknown("command", name, this.commands().map((c) => c.name)));
    const { g } = found;
    let raw: unknown;
    try {
      raw = await g.request("command/execute", { name, arguments: args, context: g.context(true) }, {
        timeoutMs: options.timeoutMs ?? this.#options.timeouts?.callMs ?? bounds.CALL_TIMEOUT_MS,
        signal: options.signal,
        onProgress: options.onProgress,
        preApproveFirstConfirmation: preApproved,
      });
    } catch (err) {
      throw withSubject(err, `command /${name} of extension "${g.name}"`);
    }
    const checked = validateCommandResult(raw);
    if (!checked.ok) throw new OctetError("invalid_result", `extension "${g.name}" returned an invalid command/execute result: ${checked.problems.join("; ")}`);
    return { ...checked.value, extension: g.name };
  }

  /**
   * Runs a hook on every ready extension that declared it, in discovery order. A failing or
   * timed-out hook counts as continue and is diagnosed (HOOK-10). Deny is honoured only for
   * before_prompt and before_tool_call (HOOK-06); the first deny stops the chain.
   */
  runHook(hook: HookName, payload: Record<string, unknown>, options: CallOptions = {}): Promise<HookOutcome> {
    // A call the validator refuses never reaches a before_tool_call hook (issue 13.2, COMP-14).
    if (hook === "before_tool_call" && typeof payload["name"] === "string" && payload["arguments"] !== undefined) {
      const found = this.#knownTool(payload["name"], options);
      if (found) {
        try {
          refuseInvalidArguments(payload["name"], found, payload["arguments"]);
        } catch (err) {
          return Promise.reject(err);
        }
      }
    }
    return this.#api.runHook(hook, payload, options);
  }

  /** context/collect from every ready extension that declared contributes.context (CTX-03). */
  collectContext(input: { prompt: string | null }, options: CallOptions = {}): Promise<(ContextContribution & { extension: string })[]> {
    return this.#api.collectContext(input, options);
  }

  /** status/collect from every ready extension that declared the surface in contributes.ui. */
  collectStatus(surface: UiSurface = "status", options: CallOptions = {}): Promise<(StatusContribution & { extension: string })[]> {
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
  async collectMenu(extension: string, options: CollectOptions = {}): Promise<MenuOutcome> {
    const g = this.#readyGeneration(extension);
    const outcome = await collectMenu(g, options);
    if (outcome.generated && offersMenu(g)) this.#emit({ type: "diagnostic", extension, generation: g.number, level: "warning", message: `showing generated menu: ${outcome.reason ?? ""}` });
    this.#menus.set(extension, outcome.menu);
    return outcome;
  }

  /**
   * Runs the menu action at `path` ("setup" or "submenu/item") of the menu last collected for
   * `extension`: command/execute of a declared command with the literal arguments (MENU-11), for
   * up to 30 minutes (MENU-12). A destructive action is confirmed with the embedder first and
   * refused without a confirmation service (MENU-13).
   */
  async runMenuAction(extension: string, path: string, options: CallOptions = {}): Promise<CommandResult & { extension: string }> {
    const menu = this.#menus.get(extension);
    if (!menu) throw new OctetError("unknown_command", `collect the menu of "${extension}" first (collectMenu)`);
    const action = requireAction(menu, path, extension);
    if (action.destructive === true) {
      const confirm = this.#options.services?.confirm;
      const controller = new AbortController();
      const ok = confirm ? await confirm({ extension, prompt: `Run "${action.label}"?`, detail: "This action is marked destructive.", destructive: true, default: false, signal: options.signal ?? controller.signal }) : false;
      if (!ok) throw new OctetError("request_cancelled", `menu action "${action.label}" of "${extension}" was not confirmed`);
    }
    // The action runs on this extension only, and a destructive one confirmed here needs no second yes (MENU-13).
    return this.#runCommand(action.command, [...action.arguments], { timeoutMs: options.timeoutMs ?? bounds.MENU_ACTION_TIMEOUT_MS, ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) }, extension, action.destructive === true);
  }

  /**
   * Reports a session, turn or tool start or settlement (LIFE-04..10). Every ready extension that
   * negotiated lifecycle_events and subscribed to the method is notified; delivery is best-effort
   * and never blocks. after_response is not implied: run it with runHook after a successful,
   * complete response only (HOOK-07). Throws OctetError when the event is malformed.
   */
  emitLifecycle(method: LifecycleMethod, params: Record<string, unknown>): void {
    this.#lifecycle.emit(method, params, this.#ready().map(({ g }) => g));
  }

  /**
   * Cache-warming advice (API 0.4, PY-46..51): asks every extension that negotiated
   * cache_warming_decision, in order, each for at most 200 ms; the last valid action wins, and
   * anything else keeps the action before it. `deadlineMs` is the refresh's own deadline.
   */
  adviseCacheWarming(payload: CacheWarmingPayload, options: { signal?: AbortSignal; deadlineMs?: number } = {}): Promise<CacheWarmingAdvice> {
    return this.#api.adviseCacheWarming(payload, options);
  }

  /**
   * Compaction frames (API 0.4, PY-43, PY-45) from the first extension that negotiated
   * compaction_strategy: every frame a complete PNG, at most 16, or null.
   */
  compactionFrames(payload: CompactionPayload, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<{ extension: string; frames: Uint8Array[] } | null> {
    return this.#api.compactionFrames(payload, options);
  }

  /** The latest unsolicited context and status contributions of the running generations (CTX-07). */
  contributions(): Contributions {
    return this.#contributions.snapshot();
  }

  status(): ExtensionStatus[] {
    return this.#entries.map((e) => statusOf(e));
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
  async runPresentationAction(extension: string, actionId: string, options: CallOptions & { at?: { instance: string; generation: number; revision: number } } = {}): Promise<CommandResult & { extension: string }> {
    const record = this.#presentations.latest(extension);
    if (!record) throw new OctetError("unknown_command", `extension "${extension}" has no presentation snapshot`);
    const { at } = options;
    if (at && (at.instance !== record.instance || at.generation !== record.generation || at.revision !== record.revision)) {
      throw new OctetError("unknown_command", `the presentation of "${extension}" changed (now generation ${record.generation}, revision ${record.revision}); look at it again before running an action`);
    }
    const action = record.snapshot.actions.find((a) => a.id === actionId);
    if (!action) throw new OctetError("unknown_command", `presentation of "${extension}" has no action ${JSON.stringify(actionId.slice(0, 64))}; its actions: ${record.snapshot.actions.map((a) => a.id).join(", ") || "none"}`);
    if (action.destructive) {
      const confirm = this.#options.services?.confirm;
      const controller = new AbortController();
      const ok = confirm ? await confirm({ extension, prompt: `Run "${action.label}"?`, detail: "This action is marked destructive.", destructive: true, default: false, signal: options.signal ?? controller.signal }) : false;
      if (!ok) throw new OctetError("request_cancelled", `presentation action "${action.label}" of "${extension}" was not confirmed`);
    }
    return this.#runCommand(action.command, [...action.arguments], { ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}), ...(options.signal ? { signal: options.signal } : {}), ...(options.onProgress ? { onProgress: options.onProgress } : {}) }, extension, action.destructive);
  }

  /**
   * Stops every extension concurrently: each runs its stop ladder within `budgetMs` (3 s for a
   * normal shutdown, SHUT-06; 1.4 s with fast, SHUT-07), and then every group still alive is killed.
   */
  shutdown(options: { fast?: boolean } = {}): Promise<void> {
    this.#shutdown ??= (async () => {
      // No restart follows an explicit shutdown (SUP-07).
      for (const e of this.#entries) e.supervisor?.stop();
      const budget = options.fast ? bounds.SHUTDOWN_FAST_TIMEOUT_MS : bounds.SHUTDOWN_AGGREGATE_TIMEOUT_MS;
      await Promise.all([...this.#live].map((g) => g.stop(budget)));
    })();
    return this.#shutdown;
  }

  async #discover(): Promise<void> {
    const found = await discoverExtensions({
      workspace: this.workspace,
      extensionDirs: this.#options.extensionDirs ?? [],
      octetHome: this.#options.octetHome ?? (this.#options.env ?? process.env)["OCTET_HOME"],
      runtimes: this.#options.runtimes ?? [],
    });
    const enabled = new Set(this.#options.enable ?? []);
    const trusted = new Set(this.#options.trust ?? []);
    for (const d of found) {
      const fullAccess = (this.#options.policy ?? "full-access") === "full-access";
      const decision = resolveStartDecision(d, { enabled, trusted, safeMode: this.#options.safeMode ?? false, fullAccess });
      // MAN-21: API 0.1 has none of the negotiated guarantees (cancellation, owners, draining),
      // so a resident API 0.1 child is started only under the full-access policy; under
      // controlled it stays discovered, with no process.
      const gated = decision.enabled && decision.trusted && !fullAccess && d.manifest?.api_version === "0.1";
      const reason = gated ? `extension "${d.name}" speaks API 0.1, which starts only under the full-access policy; under the controlled policy it stays discovered without a process` : decision.reason;
      this.#entries.push({ discovered: d, enabled: gated ? false : decision.enabled, trusted: decision.trusted, reason, generation: null, parkedError: null, supervisor: null, catalog: null });
    }
    for (const name of enabled) {
      if (!found.some((d) => d.name === name)) {
        this.#emit({ type: "diagnostic", extension: name, generation: 0, level: "error", message: `--enable-extension ${name}: no extension of that name was discovered` });
      }
    }
  }

  async #startAll(): Promise<void> {
    const claimed = new Map<string, string>();
    for (const name of this.#options.reservedToolNames ?? []) claimed.set(name, "the host");
    const toStart: Entry[] = [];
    for (const e of this.#entries) {
      const m = e.discovered.manifest;
      if (!m || e.discovered.errors.length > 0 || e.discovered.shadowedBy || !e.enabled || !e.trusted) continue;
      // Tool names are reserved from the manifests before any process starts, in discovery order.
      const conflict = m.contributes.tools.find((t) => claimed.has(t));
      if (conflict !== undefined) {
        e.parkedError = `tool "${conflict}" is already provided by ${claimed.get(conflict) === "the host" ? "the host" : `extension "${claimed.get(conflict)}"`}; not started`;
        e.nameConflict = true;
        this.#emit({ type: "diagnostic", extension: m.name, generation: 0, level: "error", message: e.parkedError });
        continue;
      }
      for (const t of m.contributes.tools) claimed.set(t, m.name);
      toStart.push(e);
    }
    await Promise.all(toStart.map((e) => this.#startEntry(e)));
  }

  async #startEntry(e: Entry): Promise<void> {
    const g = this.#newGeneration(e);
    e.generation = g;
    try {
      await g.start();
    } catch (err) {
      // Initial spawn/initialize failures are parked generation-0 entries, not retried (SUP-10).
      e.parkedError = err instanceof Error ? err.message : String(err);
      this.#emit({ type: "diagnostic", extension: g.name, generation: g.number, level: "error", message: `could not start: ${e.parkedError}` });
      return;
    }
    // A foreign extension's tools are known only once it registered them: the names must still
    // be free (a manifest-declared extension reserved its names before anything started).
    const owners = e.discovered.foreign ? this.#nameOwners(g.name) : null;
    const taken = owners ? g.tools.find((t) => owners.has(t.name)) : undefined;
    if (taken && owners) {
      e.parkedError = `tool "${taken.name}" is already provided by ${owners.get(taken.name)}; not started`;
      e.nameConflict = true;
      this.#emit({ type: "diagnostic", extension: g.name, generation: g.number, level: "error", message: e.parkedError });
      await g.stop(bounds.SHUTDOWN_FAST_TIMEOUT_MS);
      return;
    }
    e.catalog = catalogOf(g);
    // Supervision starts only after one successful initialization (SUP-01).
    if (this.#options.supervision?.enabled !== false && !this.#shutdown) {
      e.supervisor = this.#newSupervisor(e);
      e.supervisor.ready();
    }
  }

  #newSupervisor(e: Entry): Supervisor {
    const name = e.discovered.name;
    const supervisor = new Supervisor({
      ...(this.#options.supervision?.clock ? { clock: this.#options.supervision.clock } : {}),
      policy: { ...DEFAULT_RESTART_POLICY, ...this.#options.supervision?.policy },
      restart: () => this.#enqueueReplace(e, "restart").then(() => undefined),
      isPermanent: isPermanentRestartError,
      emit: (event) => {
        if (event.action === "parked") e.parkedError = event.reason;
        if (event.action === "revived") e.parkedError = null;
        const generation = e.generation?.number ?? 0;
        this.#emit({ type: "supervision", extension: name, generation, ...event });
        if (event.action === "restart_scheduled" || event.action === "parked") {
          this.#emit({ type: "diagnostic", extension: name, generation, level: event.action === "parked" ? "error" : "warning",
            message: event.action === "parked" ? `parked, no more automatic restarts: ${event.reason}; reload it to try again` : `ended unexpectedly (${event.reason}); restart ${event.attempt + 1} in ${event.delayMs} ms` });
        }
      },
    });
    return supervisor;
  }

  #newGeneration(e: Entry): Generation {
    const m = e.discovered.manifest!;
    const session = this.#options.session ?? {};
    for (const g of this.#live) if (g.state === "stopped" || g.state === "crashed") this.#live.delete(g);
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
      ...(e.discovered.foreign ? { foreign: { extension: e.discovered.foreign, trusted: e.trusted, catalog: () => ({ tools: this.tools().map((t) => ({ name: t.name, description: t.description })), commands: this.commands().map((c) => ({ name: c.name, description: c.description })) }) } } : {}),
      ...(this.#options.timeouts?.initializeMs !== undefined ? { initializeTimeoutMs: this.#options.timeouts.initializeMs } : {}),
      ...(this.#options.timeouts?.frameAssemblyMs !== undefined ? { frameAssemblyTimeoutMs: this.#options.timeouts.frameAssemblyMs } : {}),
    });
    // Open sessions, turns and tools are settled for a generation after its drain, before its
    // shutdown request (LIFE-12).
    g.spec.onDrained = (reason) => this.#lifecycle.settleOpen(g, reason);
    // Only the end of the active generation concerns the supervisor: a failed candidate is the
    // replacement's business, and an old generation being replaced is already on its way out.
    g.spec.onUnexpectedEnd = (error) => {
      if (e.generation === g) e.supervisor?.ended(error.message);
    };
    this.#live.add(g);
    return g;
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
    const e = this.#entries.find((x) => x.discovered.name === name && !x.discovered.shadowedBy);
    if (!e) return Promise.reject(new OctetError("not_enabled", `no extension named "${name}" was discovered`));
    if (!e.discovered.manifest || e.discovered.errors.length > 0) return Promise.reject(new OctetError("manifest_invalid", `extension "${name}" has an invalid manifest: ${e.discovered.errors[0]?.message ?? "unknown error"}`));
    if (!e.enabled || !e.trusted) return Promise.reject(new OctetError(e.enabled ? "not_trusted" : "not_enabled", `extension "${name}" cannot start: ${e.reason}`));
    if (this.#shutdown) return Promise.reject(new OctetError("shutdown", "the host is shutting down"));
    // A scheduled automatic restart is dropped: this reload takes its place.
    e.supervisor?.preempt();
    return this.#enqueueReplace(e, "manual");
  }

  /** Runs a replacement of `e` after any in progress (the reload lock, SUP-08). */
  #enqueueReplace(e: Entry, mode: "manual" | "restart"): Promise<ExtensionStatus> {
    const run = (): Promise<ExtensionStatus> => this.#replace(e, mode);
    const next = (e.reloading ?? Promise.resolve()).then(run, run);
    e.reloading = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  }

  async #replace(e: Entry, mode: "manual" | "restart"): Promise<ExtensionStatus> {
    const name = e.discovered.name;
    if (this.#shutdown) throw new OctetError("shutdown", "the host is shutting down");
    const old = e.generation;
    const oldServing = old !== null && old.state === "ready";
    // A restart queued behind a reload that already brought a ready generation has nothing to do.
    if (mode === "restart" && oldServing) {
      e.supervisor?.ready();
      return statusOf(e);
    }
    // The tool names must still be free: a reload never brings back an extension that was
    // refused for a conflict, nor lets two extensions publish one name.
    const conflict = this.#toolConflict(e);
    if (conflict) {
      // Another holds one of its names: while it does not run, it holds none (tool-names.ts).
      if (!oldServing) e.nameConflict = true;
      throw this.#replaceFailed(e, mode, oldServing, new OctetError("tool_conflict", `reload of "${name}" refused: ${conflict}`));
    }
    const candidate = this.#newGeneration(e);
    try {
      await candidate.start();
    } catch (err) {
      const what = mode === "restart" ? "restart" : "reload";
      throw this.#replaceFailed(e, mode, oldServing, new OctetError("initialize_failed", `${what} of "${name}" failed; ${oldServing ? `generation ${old!.number} stays active` : "the extension stays down"}: ${err instanceof Error ? err.message : String(err)}`));
    }
    if (this.#shutdown) {
      await candidate.stop(bounds.SHUTDOWN_FAST_TIMEOUT_MS);
      throw new OctetError("shutdown", `reload of "${name}" abandoned: the host is shutting down`);
    }
    // A foreign extension's names are known only now (its manifest declares none): they must be
    // free, as at its first start, or a reload would give one name to two extensions.
    const owners = e.discovered.foreign ? this.#nameOwners(name) : null;
    const taken = owners ? candidate.tools.find((t) => owners.has(t.name)) : undefined;
    if (taken && owners) {
      await candidate.stop(bounds.SHUTDOWN_FAST_TIMEOUT_MS);
      if (!oldServing) e.nameConflict = true;
      throw this.#replaceFailed(e, mode, oldServing, new OctetError("tool_conflict", `reload of "${name}" refused: tool "${taken.name}" is already provided by ${owners.get(taken.name)}; ${oldServing ? `generation ${old!.number} stays active` : "the extension stays down"}`));
    }
    // The product boundary was built with the first catalog: without dynamic tools a changed
    // one needs a full rebuild (SUP-15, SUP-16), whether the old generation still runs or not.
    if (e.catalog !== null && catalogOf(candidate) !== e.catalog) {
      await candidate.stop();
      throw this.#replaceFailed(e, mode, oldServing, new OctetError("reregistration_required", `reload of "${name}" refused: re-registration required (its tools or commands changed; restart the host to accept them); ${oldServing ? `generation ${old!.number} stays active` : "the extension stays down"}`));
    }
    // The swap: from here new calls route to the candidate (SUP-17's last step, made first so
    // no call waits for the old generation's drain).
    e.generation = candidate;
    e.parkedError = null;
    e.nameConflict = false;
    e.catalog ??= catalogOf(candidate);
    if (mode === "manual") e.supervisor?.revived();
    else e.supervisor?.ready();
    if (!e.supervisor && this.#options.supervision?.enabled !== false) {
      e.supervisor = this.#newSupervisor(e);
      e.supervisor.ready();
    }
    if (old) await old.drainAndStop(bounds.SHUTDOWN_STAGE_TIMEOUT_MS);
    return statusOf(e);
  }

  /** A failed manual reload of an extension that is not running parks it (it said why). */
  #replaceFailed(e: Entry, mode: "manual" | "restart", oldServing: boolean, error: OctetError): OctetError {
    if (mode === "manual" && !oldServing) {
      if (e.supervisor) e.supervisor.park(error.message);
      else e.parkedError = error.message;
    }
    return error;
  }

  /** Why `e` may not publish its tools now, or null (tool-names.ts). */
  #toolConflict(e: Entry): string | null {
    return toolConflict(this.#entries, e, this.#options.reservedToolNames ?? []);
  }

  /** Every tool name held by the host or by an enabled extension other than `extension` (CAT-06, 13c). */
  #nameOwners(extension: string): Map<string, string> {
    return nameOwners(this.#entries, extension, this.#options.reservedToolNames ?? []);
  }

  /** The schemas a call of `name` would be validated against, or null for a tool no extension provides (the embedder's own). */
  #knownTool(name: string, options: CallOptions): ToolSchemas | null {
    try {
      return this.#resolveTool(name, options, null).schemas;
    } catch {
      return null;
    }
  }

  #ready(): { e: Entry; g: Generation }[] {
    return this.#entries.flatMap((e) => (e.generation && e.generation.state === "ready" ? [{ e, g: e.generation }] : []));
  }

  #readyGeneration(extension: string): Generation {
    const found = this.#ready().find(({ g }) => g.name === extension);
    if (!found) throw new OctetError("not_ready", `extension "${extension}" is not running`);
    return found.g;
  }

  #readyGenerations(): Generation[] {
    return this.#ready().map(({ g }) => g);
  }

  #collectEnv(): CollectEnv {
    return {
      collectMs: this.#options.timeouts?.collectMs ?? bounds.COLLECT_TIMEOUT_MS,
      emit: (event) => this.#emit(event),
      diagnoseFailure: (g, what, err) => this.#diagnoseFailure(g, what, err),
    };
  }

  #unknown(kind: string, name: string, known: string[]): string {
    const entry = this.#entries.find((e) => e.discovered.manifest?.contributes[kind === "tool" ? "tools" : "commands"].includes(name));
    if (entry) {
      const s = statusOf(entry);
      return `${kind} "${name}" belongs to extension "${s.name}", which is ${s.state}: ${s.lastError ?? s.reason}`;
    }
    // Every enabled extension that is not ready is named with why: that is usually the answer (13.3).
    const notReady = notReadyReasons(this.status(), this.#options.enable ?? []);
    const running = known.length > 0 ? `available: ${known.join(", ")}` : notReady.length > 0 ? "no extension is running" : "no extension is running; enable one with --enable-extension NAME";
    return `no ready extension provides ${kind} "${name}" (${running})${notReady.map((r) => `\n  ${r}`).join("")}`;
  }

  #diagnoseFailure(g: { readonly name: string; readonly number: number }, what: string, err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.#emit({ type: "diagnostic", extension: g.name, generation: g.number, level: "warning", message: `${what} failed: ${truncateBytes(message, 1024)}` });
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

/** Prefixes a local error with what was being done, keeping its code ("tool "x" of extension "y": ..."). */
function withSubject(err: unknown, subject: string): unknown {
  if (err instanceof OctetError) return new OctetError(err.code, `${subject}: ${err.message}`, { cause: err });
  if (err instanceof WireError) return new WireError(err.code, `${subject}: ${err.message}`, err.data);
  return err;
}
