/**
 * The agent as a library: a session, a model and (optionally) an extension host, driven by
 * prompts. One run at a time; abort() cancels the running one (the model stream and the running
 * tools, under the host's cancellation rules) and the session keeps what was committed. The
 * session's lifecycle (session/started at open, session/settled at close) is reported to the
 * extensions that subscribed (LIFE-04..10).
 */
import type { AssistantMessage, Context } from "@mariozechner/pi-ai";
import type { ExtensionHost, ForeignSessionState } from "@octet/host";
import { AgentError } from "../agent-error.js";
import type { SessionFile } from "../session/index.js";
import type { ResolvedModel } from "../models/index.js";
import { BUILTIN_TOOLS, ToolApproval } from "../tools/index.js";
import {
  CompactionHookFailedError,
  compactSession,
  DEFAULT_COMPACTION,
  needsCompaction,
  pathTokens,
} from "./compaction.js";
import type { CompactionOutcome, CompactionSettings } from "./compaction.js";
import { CacheWarmer, DEFAULT_CACHE_WARMING } from "./cache-warming.js";
import type { AgentEvent, AgentEventListener } from "./events.js";
import { runPrompt, type RunResult } from "./run.js";
import { defaultSystemPrompt } from "./system-prompt.js";
import { hostTurnHooks } from "./turn-hooks.js";
import { noticeOf } from "./tool-runner.js";
import { checkedActiveTools, injectedEntry, link, MAX_QUEUED_USER_MESSAGES, messageStream } from "./injection.js";
import { untilIdle } from "./injection.js";
import type { InjectedMessage } from "./injection.js";
import { PiEvents } from "./pi-events.js";
import { PiSessionView } from "./pi-session-view.js";
import * as tree from "./session-tree.js";
import { runUserBash, type UserBashOptions, type UserBashResult } from "./user-bash.js";
import { PiModels, reasoningFor } from "./pi-models.js";
import { piSessionStart } from "./pi-resources.js";
import type { AgentOptions } from "./agent-options.js";

export type { AgentOptions };

export type SessionOutcome = "completed" | "interrupted" | "shutdown" | "failed";

export class Agent {
  readonly session: SessionFile;
  #host: ExtensionHost | null;
  #model: ResolvedModel;
  readonly #o: AgentOptions;
  readonly #listeners = new Set<AgentEventListener>();
  readonly #compaction: CompactionSettings;
  #running: AbortController | null = null;
  /** The running prompt or compaction, so close() can wait for its last entries. */
  #work: Promise<unknown> | null = null;
  #closed = false;
  readonly #openedAt = Date.now();
  readonly #approval: ToolApproval;
  readonly #warmer: CacheWarmer;
  /** Extension messages held for the running prompt's next request, and user messages queued behind it. */
  readonly #injected: InjectedMessage[] = [];
  readonly #queued: string[] = [];
  #activeTools: ReadonlySet<string> | null = null;
  /** pi's session events for the pi extensions that take them (pi-events.ts). */
  readonly #pi: PiEvents;
  /** pi's session_start, delivered after the constructor (#piSessionStart); a prompt waits for it. */
  #piStarted: Promise<void> = Promise.resolve();
  readonly #view = new PiSessionView();
  readonly piModels: PiModels; // pi's registry, pi.setModel and the thinking level (pi-models.ts)

  constructor(o: AgentOptions) {
    this.#o = o;
    this.session = o.session;
    this.#host = o.host ?? null;
    this.#model = o.model;
    this.#compaction = { ...DEFAULT_COMPACTION, ...o.compaction };
    this.#approval = o.approval ?? new ToolApproval({ yes: false, noInput: true });
    this.#warmer = new CacheWarmer({
      settings: { ...DEFAULT_CACHE_WARMING, ...o.cacheWarming },
      host: () => this.#host,
      model: () => this.#model,
      sessionId: this.session.id,
      emit: (e) => this.#emit(e),
    });
    this.subscribe(messageStream(() => this.#host));
    this.#pi = new PiEvents(
      () => this.#host,
      (e) => this.#emit(e),
    );
    const switchTo = (m: ResolvedModel): Promise<void> => this.setModel(m, { fromExtension: true });
    const current = { get: () => this.#model, switchTo, emit: (e: AgentEvent) => this.#emit(e) };
    this.piModels = new PiModels(o.models, o.thinkingLevel ?? "off", current, this.#pi);
    this.#lifecycle("session/started", { session_id: this.session.id });
    this.#piSessionStart();
  }

  /**
   * pi's session_start, not awaited here (the constructor cannot wait; pi extensions start their
   * state here) but before the next prompt's first model request, as pi does: a tool registered
   * in session_start is offered to the model (pi's dynamic-tools example).
   */
  #piSessionStart(): void {
    const start = this.#o.start ?? { reason: "startup" };
    if (!this.#pi.takes("session_start") && !this.#pi.takes("resources_discover")) return;
    // Delivered once the embedder holds this agent: the constructor runs inside the embedder's
    // open (or switch), before its sessionLayer.state can read this agent, and an extension that
    // rebuilds its state from ctx.sessionManager here (pi's todo) would read no session. A prompt
    // waits for it, so session_start still comes first.
    this.#piStarted = new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      piSessionStart(this.#pi, { ...start }, this.session.workspace, (e) => this.#emit(e)),
    );
  }

  get host(): ExtensionHost | null {
    return this.#host;
  }

  /**
   * Moves the agent to another host (the shell's /reload builds a new one): its extensions are
   * told the session started; the old host's got their terminal events when it shut down (LIFE-12).
   */
  setHost(host: ExtensionHost | null): void {
    if (!this.isIdle()) throw new AgentError("busy", "the host cannot change while a prompt runs");
    this.#host = host;
    this.#lifecycle("session/started", { session_id: this.session.id });
    const reload = { reason: "reload" as const };
    this.#piStarted = piSessionStart(this.#pi, reload, this.session.workspace, (e) => this.#emit(e)).catch(() => {});
  }

  get model(): ResolvedModel {
    return this.#model;
  }

  /** True once close() was called: nothing more is written to the session. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * The session as pi extensions read it (ctx.sessionManager, isIdle, getContextUsage,
   * getSystemPrompt): the host's sessionLayer.state (pi-session-view.ts).
   */
  piState(): ForeignSessionState {
    const systemPrompt = this.#o.systemPrompt ?? defaultSystemPrompt(this.session.workspace);
    const pendingMessages = this.#queued.length + this.#injected.length > 0;
    const idle = this.isIdle();
    const view = this.#view.state({ session: this.session, model: this.#model, idle, pendingMessages, systemPrompt });
    const tools = { builtin: (this.#o.tools ?? BUILTIN_TOOLS).map((t) => t.name), active: this.activeTools };
    return { ...view, ...this.piModels.state(), tools };
  }

  /** True when no run or compaction is in progress. */
  isIdle(): boolean {
    return this.#running === null;
  }

  /**
   * Resolves once no prompt or compaction runs (at once when idle); rejects when `signal` aborts.
   * The idle boundary of session/wait_for_idle (W 2.21b). A caller inside the run (a tool's
   * handler) must not await it: the run ends only after that caller does.
   */
  whenIdle(signal?: AbortSignal): Promise<void> {
    return untilIdle(() => (this.isIdle() ? null : (this.#work ?? Promise.resolve())), signal);
  }

  /**
   * Closes this agent's session (session/settled, the lock released) and returns an agent over
   * `session` with the same model, host and options (session/switch, W 2.21b). Only when idle;
   * pi's session_before_switch may cancel (AgentError cancelled_by_extension; session-tree.ts).
   */
  switchTo(session: SessionFile): Promise<Agent> {
    return tree.switchTo(this.#tree(), session);
  }

  /**
   * pi's /new, /fork and /tree (session-tree.ts), only when idle: the agent over the new session
   * or who cancelled; navigateTree moves this session's leaf.
   */
  readonly newSession = (o: tree.NewSessionOptions = {}) => tree.newSession(this.#tree(), o);
  readonly fork = (entryId: string, position: "before" | "at" = "before") => tree.fork(this.#tree(), entryId, position);
  readonly navigateTree = (targetId: string, o: tree.NavigateOptions = {}) =>
    tree.navigateTree(this.#tree(), targetId, o);
  /** Resolves once pi's session_start of this agent was delivered (a replacement's caller goes on after it). */
  readonly whenStarted = (): Promise<void> => this.#piStarted;

  #tree(): tree.TreeDeps<Agent> {
    return {
      ...{ session: this.session, pi: this.#pi, model: this.#model, maxRetries: this.#o.maxRetries },
      idle: () => this.isIdle() && !this.#closed,
      replace: async (session, reason) => {
        await this.close("completed", { reason, targetSessionFile: session.path });
        const start = { reason, previousSessionFile: this.session.path };
        const thinkingLevel = this.piModels.level;
        return new Agent({ ...this.#o, session, host: this.#host, model: this.#model, start, thinkingLevel });
      },
      busy: async (what, work) => {
        const controller = this.#begin(what);
        this.#warmer.disarm();
        try {
          return await this.#track(work(controller.signal));
        } finally {
          this.#running = null;
          this.#nextQueued();
        }
      },
    };
  }

  subscribe(listener: AgentEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Runs one prompt to its end. Rejects only when the agent is busy or closed; a provider
   * failure, a cancellation, a denial or the turn limit are outcomes (RunResult.outcome).
   */
  async prompt(
    text: string,
    options: { signal?: AbortSignal; source?: "interactive" | "extension" } = {},
  ): Promise<RunResult> {
    const controller = this.#begin("prompt");
    const unlink = link(options.signal, controller);
    this.#warmer.disarm();
    let last: { request: Context; answer: AssistantMessage } | null = null;
    try {
      await this.#piStarted;
      const result = await this.#track(
        runPrompt(
          text,
          {
            session: this.session,
            model: this.#model,
            host: this.#host,
            builtins: this.#o.tools ?? BUILTIN_TOOLS,
            replaceBuiltins: this.#o.replaceBuiltins === true,
            approval: this.#approval,
            systemPrompt: this.#o.systemPrompt ?? defaultSystemPrompt(this.session.workspace),
            maxTurns: this.#o.maxTurns ?? 50,
            maxRetries: this.#o.maxRetries,
            emit: (e) => this.#emit(e),
            lifecycle: (method, p) => this.#lifecycle(method, p as Record<string, unknown>),
            compactIfNeeded: (signal) => this.#autoCompact(signal),
            turnHooks: this.#host ? hostTurnHooks(this.#host, (e) => this.#emit(e)) : null,
            activeTools: () => this.#activeTools,
            commitInjected: () => this.#commitInjected(),
            onAnswer: (request, answer) => {
              last = { request, answer };
            },
            pi: this.#pi,
            source: options.source ?? "interactive",
            reasoning: (m) => reasoningFor(m, this.piModels.level),
          },
          controller.signal,
        ),
      );
      const done = last as { request: Context; answer: AssistantMessage } | null;
      if (result.outcome === "completed" && done && !this.#closed) this.#warmer.arm(done.request, done.answer);
      return result;
    } finally {
      unlink();
      // Still busy while held messages are committed, so a message sent meanwhile queues behind them.
      await this.#commitInjected().catch(() => undefined);
      this.#running = null;
      this.#nextQueued();
    }
  }

  /**
   * A user message from an extension (session/send_user_message): run now when idle, else queued
   * (FIFO, at most MAX_QUEUED_USER_MESSAGES) and run as soon as the running prompt or compaction
   * ends. Returns once admitted; the run reports through the events like any prompt. Throws
   * AgentError "closed" or "queue_full".
   */
  enqueueUserMessage(text: string): void {
    if (this.#closed) throw new AgentError("closed", "the agent is closed; no message can be queued");
    if (this.#queued.length >= MAX_QUEUED_USER_MESSAGES)
      throw new AgentError(
        "queue_full",
        `${this.#queued.length} user messages already wait behind the running prompt (the limit is ` +
          `${MAX_QUEUED_USER_MESSAGES})`,
      );
    this.#queued.push(text);
    if (this.isIdle()) this.#nextQueued();
  }

  /**
   * A message from an extension (session/send_message): a custom_message entry with its role, in
   * the model's context. Committed now when idle; during a prompt it is held and committed before
   * the next model request (so it never falls between a tool call and its result), or when the
   * prompt ends. Resolves once committed or held.
   */
  async injectMessage(m: InjectedMessage): Promise<void> {
    if (this.#closed) throw new AgentError("closed", "the agent is closed; nothing more is written");
    if (this.isIdle()) await this.session.append(injectedEntry(m));
    else this.#injected.push(m);
  }

  /**
   * The model's active tools from the next request on (tools/set_active): the complete set of
   * built-in and extension tool names, or null for every tool. Throws AgentError "unknown_tool"
   * naming a name that is neither.
   */
  setActiveTools(names: readonly string[] | null): void {
    if (names === null) {
      this.#activeTools = null;
      return;
    }
    const known = [
      ...(this.#o.tools ?? BUILTIN_TOOLS).map((t) => t.name),
      ...(this.#host?.catalog().tools() ?? []).map((t) => t.name),
    ];
    this.#activeTools = checkedActiveTools(names, known);
  }

  /** The active tool names set by setActiveTools, or null when every tool is offered. */
  get activeTools(): readonly string[] | null {
    return this.#activeTools ? [...this.#activeTools] : null;
  }

  /** pi's `!command` / `!!command` (user-bash.ts): run, or taken over by a user_bash hook, and recorded. */
  async userBash(command: string, options: UserBashOptions = {}): Promise<UserBashResult> {
    if (this.#closed) throw new AgentError("closed", "the agent is closed; no command can be recorded");
    await this.#piStarted;
    const deps = { session: this.session, pi: this.#pi, whenIdle: () => this.whenIdle(), closed: () => this.#closed };
    return runUserBash(command, deps, options);
  }

  /** Cancels the running prompt or compaction; a no-op when idle. */
  abort(reason = "cancelled"): void {
    this.#running?.abort(new Error(reason));
  }

  /** Summarizes the older part of the session now (/compact). Throws with the reason when it cannot. */
  async compact(instructions?: string, options: { signal?: AbortSignal } = {}): Promise<CompactionOutcome> {
    const controller = this.#begin("compact");
    this.#warmer.disarm();
    const unlink = link(options.signal, controller);
    try {
      return await this.#track(this.#compact("manual", controller.signal, instructions));
    } finally {
      unlink();
      // Still busy while held messages are committed, so a message sent meanwhile queues behind them.
      await this.#commitInjected().catch(() => undefined);
      this.#running = null;
      this.#nextQueued();
    }
  }

  /** The model of the next prompt, recorded; an extension's (pi.setModel) may come while one runs. */
  async setModel(model: ResolvedModel, o: { fromExtension?: boolean } = {}): Promise<void> {
    if (!o.fromExtension && !this.isIdle()) throw new AgentError("busy", "the model cannot change while a prompt runs");
    await this.session.append({ type: "model_change", provider: model.model.provider, model_id: model.model.id });
    this.#warmer.disarm();
    const previousModel = this.#model.model;
    this.#model = model;
    await this.piModels.selected(model, previousModel, o.fromExtension === true);
  }

  async setName(name: string): Promise<void> {
    await this.session.append({ type: "session_info", name });
  }

  /** What /session shows. */
  info(): { id: string; file: string; name: string | null; entries: number; context_tokens: number; model: string } {
    return {
      id: this.session.id,
      file: this.session.path,
      name: this.session.name(),
      entries: this.session.entries().length,
      context_tokens: pathTokens(this.session.pathToLeaf()),
      model: `${this.#model.model.provider}/${this.#model.model.id}`,
    };
  }

  /**
   * Cancels what runs and waits for it to settle (its cancelled results are committed and its
   * turn/settled sent), then reports session/settled and releases the session's lock.
   */
  async close(
    outcome: SessionOutcome = "completed",
    replacedBy?: { reason: "resume" | "new" | "fork"; targetSessionFile: string },
  ): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#warmer.disarm();
    this.abort("closing");
    await this.#work?.catch(() => undefined);
    // pi's session_shutdown, awaited as pi awaits it: its extensions save their state here.
    if (this.#pi.takes("session_shutdown"))
      await this.#pi.observe("session_shutdown", replacedBy ?? { reason: "quit" });
    this.#lifecycle("session/settled", {
      session_id: this.session.id,
      outcome,
      duration_ms: Date.now() - this.#openedAt,
      reason: null,
    });
    await this.session.close();
  }

  async #commitInjected(): Promise<void> {
    while (this.#injected.length > 0 && !this.#closed)
      await this.session.append(injectedEntry(this.#injected.shift()!));
  }

  /** Starts the next queued user message when idle; its outcome is reported by its events. */
  #nextQueued(): void {
    if (!this.isIdle() || this.#closed) return;
    const text = this.#queued.shift();
    if (text !== undefined) void this.prompt(text, { source: "extension" }).catch(() => undefined);
  }

  #track<T>(work: Promise<T>): Promise<T> {
    this.#work = work;
    return work;
  }

  #begin(what: string): AbortController {
    if (this.#closed) throw new AgentError("closed", `the agent is closed; cannot ${what}`);
    if (this.#running)
      throw new AgentError("busy", `a prompt is already running in session ${this.session.id}; wait or abort it`);
    this.#running = new AbortController();
    return this.#running;
  }

  async #autoCompact(signal: AbortSignal): Promise<boolean> {
    if (!needsCompaction(this.session, this.#model, this.#compaction)) return false;
    try {
      await this.#compact("threshold", signal);
      return true;
    } catch {
      // Said in compaction_end; the request goes on and the provider decides.
      return false;
    }
  }

  async #compact(reason: "manual" | "threshold", signal: AbortSignal, instructions?: string) {
    const tokens_before = pathTokens(this.session.pathToLeaf());
    this.#emit({ type: "compaction_start", reason, tokens_before });
    try {
      const done = await compactSession({
        session: this.session,
        model: this.#model,
        host: this.#host,
        settings: this.#compaction,
        signal,
        ...(instructions !== undefined ? { instructions } : {}),
        ...(this.#o.maxRetries !== undefined ? { maxRetries: this.#o.maxRetries } : {}),
        onNotice: (n) => this.#emit(noticeOf(n)),
        pi: this.#pi,
      });
      this.#emit({
        type: "compaction_end",
        entry_id: done.entry.id,
        summary: done.summary,
        error: null,
        usage: done.usage,
      });
      return done;
    } catch (err) {
      const error = err instanceof Error ? err.message : String(err);
      // After an after-hook failure the entry is committed: say which (SCOMP-14).
      const kept = err instanceof CompactionHookFailedError ? err.entry : null;
      this.#emit({
        type: "compaction_end",
        entry_id: kept?.id ?? null,
        summary: kept?.type === "compaction" ? kept.summary : "",
        error,
      });
      throw err;
    }
  }

  #emit(event: AgentEvent): void {
    for (const l of this.#listeners) {
      try {
        l(event);
      } catch {
        // A listener's failure is its own; the run goes on.
      }
    }
  }

  /** Best effort and never blocking (LIFE-10): a malformed event is the agent's bug, not the run's end. */
  #lifecycle(method: Parameters<ExtensionHost["emitLifecycle"]>[0], params: Record<string, unknown>): void {
    try {
      this.#host?.emitLifecycle(method, params);
    } catch (err) {
      this.#emit({ type: "notice", level: "warning", source: "agent", text: `lifecycle ${method}: ${String(err)}` });
    }
  }
}
