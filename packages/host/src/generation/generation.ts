/**
 * One process generation of one extension: its state, what it publishes, and the order of its
 * life. The pieces are in generation/: the child it gets from a launcher (child.ts, the real one
 * in launch-child.ts), the wire to it (connection.ts), initialize (handshake.ts), the catalog
 * (catalog.ts), the stop ladder (stop-ladder.ts) and how it ends, once (ending.ts). Everything issued to
 * a generation dies with it.
 *
 * States: starting -> initializing -> ready -> (draining) -> stopped, or degraded/crashed on
 * failure (LIFE-01). Requests are admitted only when ready (INIT-01). A framing or envelope
 * violation from the child is never skipped: it is diagnosed and the generation is terminated.
 * Supervision (restarts) is not this module's concern.
 */
import { rm } from "node:fs/promises";
import {
  OctetError,
  bounds,
  isNegotiated,
  type AcceptedInitialize,
  type ApiVersion,
  type ExecutionContext,
  type ResourceOwner,
  type SendTicket,
  type ToolDefinition,
} from "@octet/protocol";
import type { DiagnosticLevel, GenerationState } from "../events.js";
import { createScratch } from "../process/launch.js";
import { extensionPid, type ContainmentTier } from "../process/containment.js";
import { HostRequests, type HostRequestOptions } from "./host-requests.js";
import type { ToolSchemas } from "../schema-check/tool-schemas.js";
import type { LifecycleMethod } from "./lifecycle.js";
import { StderrSink, truncateBytes } from "../transport/stderr-sink.js";
import { ChildInbox, type ActiveParent } from "./child-inbox.js";
import { GenerationModules } from "../modules/module-set.js";
import { mediaResolver } from "../modules/artifacts/module.js";
import type { MediaResolver } from "../modules/artifacts/artifacts-service.js";
import { discardChild, type GenerationChild } from "./child.js";
import { processLauncher } from "./launch-child.js";
import { Connection, type ConnectionOptions } from "./connection.js";
import { handshake, negotiatedRequests } from "./handshake.js";
import { GenerationCatalog } from "./catalog.js";
import { reap, runStopLadder } from "./stop-ladder.js";
import { GenerationDiagnostics } from "./diagnostics.js";
import { GenerationEnding } from "./ending.js";
import type { GenerationSpec } from "./spec.js";
import { GenerationContexts } from "./execution-context.js";
import type { ForeignSessionEvents } from "../foreign-runtime.js";

export type { GenerationSpec } from "./spec.js";

export class Generation {
  readonly spec: GenerationSpec;
  readonly name: string;
  readonly api: ApiVersion;
  #state: GenerationState = "starting";
  #child: GenerationChild | null = null;
  #conn: Connection | null = null;
  /** The catalog names initialize must answer: the manifest's, or what a foreign instance registered. */
  #declared: { tools: readonly string[]; commands: readonly string[] } | null = null;
  /** What a foreign instance hooked that this host never delivers (ForeignLaunched.unsupportedHooks). */
  #unsupportedHooks: readonly string[] = [];
  #sessionEvents: ForeignSessionEvents | null = null;
  #pgid = 0;
  #tier: ContainmentTier = "process-group";
  #stderr: StderrSink;
  #accepted: AcceptedInitialize | null = null;
  #lastError: string | null = null;
  #scratch: string | null = null;
  #exited: Promise<void> = Promise.resolve();
  #hasExited = false;
  /** False once the generation is being replaced or stopped: no new requests are admitted. */
  #admitting = true;
  #stopReason: "shutdown" | "reload" = "shutdown";
  #inbox: ChildInbox;
  /** The host's requests once ready: admission, cancellation, progress (see host-requests.ts). */
  #requests: HostRequests | null = null;
  readonly #catalog = new GenerationCatalog();
  /** The one end of this generation: a stop, or a failure seen while it runs. */
  readonly #end: GenerationEnding;
  /** Aborted when the generation ends: everything waiting on it lets go. */
  readonly #ended$ = new AbortController();
  readonly #diagnostics: GenerationDiagnostics;
  /** This generation's instances of the bound host modules. */
  readonly #modules: GenerationModules;
  /** Its owner triple and execution contexts (execution-context.ts). */
  readonly #contexts: GenerationContexts;
  constructor(spec: GenerationSpec) {
    this.spec = spec;
    this.name = spec.manifest.name;
    this.api = spec.manifest.api_version;
    this.#contexts = new GenerationContexts(spec, this.api);
    this.#diagnostics = new GenerationDiagnostics(this.name, spec.number, (event) => spec.emit(event));
    this.#stderr = new StderrSink((line) =>
      spec.emit({ type: "stderr", extension: this.name, generation: spec.number, line }),
    );
    this.#modules = new GenerationModules(spec.modules, {
      name: this.name,
      api: this.api,
      number: spec.number,
      manifest: spec.manifest,
      scratchDir: () => this.#scratch,
      catalog: { tools: () => this.tools, publish: (next) => this.publishTools(next), features: () => this.features },
      owner: () => this.owner(),
      ended: this.#ended$.signal,
      activeRequest: (id) => this.#requests?.active(id) ?? this.#initializeParent(id),
      cancelledRequest: (id) => this.#requests?.wasCancelled(id) ?? false,
      diagnose: (level, message) => this.#diagnose(level, message),
      emit: (event) => spec.emit(event),
      notify: (method, params) => this.notify(method, params),
    });
    this.#inbox = new ChildInbox({
      modules: this.#modules,
      name: this.name,
      api: this.api,
      generation: spec.number,
      manifest: spec.manifest,
      accepting: () => this.#state === "ready" || this.#state === "draining",
      features: () => this.features,
      activeRequest: (id) => this.#requests?.active(id),
      initializing: () => this.#initializing !== null,
      generationSignal: this.#ended$.signal,
      emit: (event) => spec.emit(event),
      diagnose: (level, message) => this.#diagnose(level, message),
    });
    this.#end = new GenerationEnding({
      name: this.name,
      state: () => this.#state,
      setState: (state, reason) => this.#setState(state, reason),
      ladder: (budgetMs) => this.#stopLadder(budgetMs),
      release: (closed) => this.#release(closed),
      exited: () => this.#exited,
      hasExited: () => this.#hasExited,
      stderrEnded: () => this.#conn?.stderrEnded ?? Promise.resolve(),
      stderrTail: (maxBytes) => this.#stderr.tail(maxBytes),
      pgid: () => this.#pgid,
      stopAdmitting: (reason) => this.#requests?.stopAdmitting(reason),
      recordError: (message) => this.#recordError(message),
      diagnose: (level, message) => this.#diagnose(level, message),
      unexpectedEnd: (error) => this.spec.onUnexpectedEnd?.(error),
    });
  }

  get state(): GenerationState {
    return this.#state;
  }
  get number(): number {
    return this.spec.number;
  }
  /** The extension's own process (behind a namespace launcher, the launcher's child). */
  get pid(): number | null {
    const pid = this.#child?.pid;
    return pid === undefined ? null : extensionPid(pid, this.#tier);
  }
  /** How this generation's processes are contained (see process/containment.ts). */
  get containment(): ContainmentTier {
    return this.#tier;
  }
  get pgid(): number {
    return this.#pgid;
  }
  get accepted(): AcceptedInitialize | null {
    return this.#accepted;
  }
  get features(): string[] {
    return this.#accepted?.features ?? [];
  }
  /** The bound artifacts service's resolver of media parts, or undefined when none is bound. */
  get media(): MediaResolver | undefined {
    return mediaResolver(this.#modules);
  }
  get pendingRequests(): number {
    return this.#requests?.inFlight ?? this.#conn?.peer.pendingCount ?? 0;
  }
  /** Whether this generation gets `method` lifecycle notifications (LIFE-04). */
  subscribes(method: LifecycleMethod): boolean {
    const a = this.#accepted;
    return (
      (this.#state === "ready" || this.#state === "draining") &&
      a !== null &&
      a.features.includes("lifecycle_events") &&
      a.lifecycleEvents.includes(method)
    );
  }

  /** A best-effort notification to the extension (lifecycle events); dropped once the peer closed. */
  notify(method: string, params: Record<string, unknown>): SendTicket | undefined {
    const peer = this.#conn?.peer;
    return peer && !peer.closed ? peer.notify(method, params) : undefined;
  }

  /** A lifecycle event was dropped undelivered (LIFE-10): said once, bounded like every diagnostic. */
  lifecycleDropped(method: string, afterMs: number): void {
    this.#diagnose(
      "warning",
      `${method} was not delivered within ${afterMs} ms (the extension is not reading its stdin fast enough); dropped`,
    );
  }

  /**
   * The tools this generation publishes now: the initialize catalog (epoch 0), or with
   * dynamic_tools the latest accepted mutation (CAT-09).
   */
  get tools(): readonly ToolDefinition[] {
    return this.#catalog.tools;
  }

  /** Hooks of a foreign instance that this host never delivers, in its own protocol's names. */
  /** A foreign instance's session events (ForeignLaunched.sessionEvents), or null. */
  get sessionEvents(): ForeignSessionEvents | null {
    return this.#sessionEvents;
  }

  get unsupportedHooks(): readonly string[] {
    return this.#unsupportedHooks;
  }

  /** The catalog epoch with dynamic_tools negotiated (0 = initialize), else null (CALL-03). */
  get catalogRevision(): number | null {
    return this.features.includes("dynamic_tools") ? this.#catalog.revision : null;
  }

  /**
   * Publishes a complete new tool list as the next epoch, atomically (CAT-07, CAT-08): its
   * schemas are compiled first, so a publication over the compile budget throws and nothing
   * changes. Returns the new revision.
   */
  publishTools(next: readonly ToolDefinition[]): number {
    return this.#catalog.publish(next);
  }

  /** The compiled schemas of the epoch published now (a catalog snapshot keeps the one it saw). */
  get schemas(): ToolSchemas {
    return this.#catalog.schemas;
  }

  get lastError(): string | null {
    return this.#lastError;
  }
  get scratchDir(): string | null {
    return this.#scratch;
  }
  stderrTail(maxBytes?: number): string {
    return this.#stderr.tail(maxBytes);
  }

  /** The host-issued owner triple of this generation (API 0.2+ contexts). */
  owner(): ResourceOwner {
    return this.#contexts.owner();
  }

  /** The execution context sent with a request (execution-context.ts: built once per variant). */
  context(withOwner: boolean): ExecutionContext {
    return this.#contexts.context(withOwner);
  }

  /** context(true) as JSON text, encoded once, for a tool/call to splice in. */
  ownedContextText(): string {
    return this.#contexts.ownedText();
  }

  /** Spawns the process and runs initialize; rejects (after killing the group) on any failure. */
  async start(): Promise<void> {
    try {
      await this.#spawn();
      await this.#initialize();
    } catch (err) {
      const message = String(err instanceof Error ? err.message : err);
      const error = err instanceof OctetError ? err : new OctetError("initialize_failed", message);
      this.#recordError(error.message);
      await this.#end.terminate("crashed", error.message);
      throw error;
    }
  }

  /**
   * Sends a request to a ready generation. Rejects with OctetError (not_ready, request_timeout,
   * transport_closed, request_cancelled) or WireError (the extension answered with an error).
   */
  request(method: string, params: unknown, options: HostRequestOptions): Promise<unknown> {
    const requests = this.#requests;
    const stopping = this.#end.stopping;
    if (this.#state !== "ready" || !requests || !this.#admitting || stopping) {
      const now = this.#admitting && !stopping ? this.#state : "stopping";
      return Promise.reject(new OctetError("not_ready", `extension "${this.name}" is ${now}, not ready`));
    }
    // Not an async function: the call's promise is the request's own, one fewer per call.
    return requests.send(method, params, options);
  }

  /**
   * The stop ladder (generation/stop-ladder.ts). `budgetMs` caps the whole sequence (the
   * aggregate deadline of SHUT-06/07 cuts a stage short); without one each stage gets its full
   * timeout.
   */
  stop(budgetMs: number = Number.POSITIVE_INFINITY): Promise<void> {
    return this.#end.stop(budgetMs);
  }

  /**
   * Stops admitting new work, waits up to `drainMs` for requests in flight to settle, then runs
   * the stop ladder (used by reload, SUP-22/SUP-17).
   */
  async drainAndStop(drainMs: number): Promise<void> {
    this.#stopReason = "reload";
    if (this.#state === "ready") {
      this.#admitting = false;
      this.#requests?.stopAdmitting(`extension "${this.name}" generation ${this.spec.number} is being replaced`);
      if (isNegotiated(this.api)) this.#setState("draining");
      await this.#requests?.idle(drainMs);
      this.#requests?.cancelAll("reload");
    }
    await this.stop();
  }

  /** Live processes still in this generation's group (for status and tests). */
  liveGroupMembers(): number[] {
    return this.#child?.liveMembers() ?? [];
  }

  async #stopLadder(budgetMs: number): Promise<void> {
    await runStopLadder(
      {
        name: this.name,
        api: this.api,
        state: () => this.#state,
        peer: this.#conn?.peer ?? null,
        requests: this.#requests,
        exited: this.#exited,
        hasExited: () => this.#hasExited,
        setState: (state) => this.#setState(state),
        drained: () => this.spec.onDrained?.(this.#stopReason),
        diagnose: (level, message) => this.#diagnose(level, message),
      },
      budgetMs,
    );
  }

  /** What the teardown releases (ending.ts): the peer, the requests, the child, the scratch dir. */
  async #release(closed: OctetError): Promise<void> {
    this.#conn?.peer.close(closed);
    this.#requests?.close(closed);
    const child = this.#child;
    if (child) {
      await reap(child, (level, message) => this.#diagnose(level, message));
      this.#stderr.end();
      child.release();
    }
    this.#diagnostics.summarize();
    this.#ended$.abort();
    this.#modules.dispose();
    if (this.#scratch) {
      const dir = this.#scratch;
      this.#scratch = null;
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  async #spawn(): Promise<void> {
    this.#scratch = await createScratch(this.spec.manifest.name, this.spec.number);
    const launch = this.spec.launch ?? processLauncher(this.spec);
    const launched = await launch({
      scratch: this.#scratch,
      signal: this.#end.stopSignal,
      diagnose: (level, message) => this.#diagnose(level, message),
      onGroup: (pgid) => (this.#pgid = pgid),
    });
    const child = launched.child;
    if (this.#end.ending) {
      // Stopped while the child was being launched: the teardown that ran found no child, so this
      // one is killed here, before anything else can keep it.
      discardChild(child);
      const scratch = this.#scratch;
      this.#scratch = null;
      if (scratch) await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
      throw new OctetError("shutdown", `extension "${this.name}" was stopped while it was being started`);
    }
    this.#tier = launched.tier;
    if (launched.declared) this.#declared = launched.declared;
    if (launched.unsupportedHooks) this.#unsupportedHooks = launched.unsupportedHooks;
    this.#sessionEvents = launched.sessionEvents ?? null;
    // A foreign instance's hooks are known only now: this generation's manifest says so, for the
    // initialize request and hook routing (the discovered manifest is left as it was).
    const hooks = launched.hooks;
    if (hooks) {
      const contributes = { ...this.spec.manifest.contributes, hooks: [...hooks] };
      this.spec.manifest = { ...this.spec.manifest, contributes };
    }
    if (launched.toolRenderers) {
      const contributes = { ...this.spec.manifest.contributes, tool_renderers: [...launched.toolRenderers] };
      this.spec.manifest = { ...this.spec.manifest, contributes };
    }
    this.#child = child;
    this.#pgid = child.pgid ?? 0;
    this.#exited = child.exited.then((exit) => {
      this.#hasExited = true;
      this.#end.exited(exit);
    });
    this.#conn = new Connection({
      stdin: child.stdin,
      stdout: child.stdout,
      stderr: child.stderr,
      messages: child.messages,
      inbox: this.#inbox,
      childCancels: isNegotiated(this.api),
      progress: (params) => {
        if (!this.#requests) return false;
        this.#requests.progress(params);
        return true;
      },
      onStderr: (chunk) => this.#stderr.write(chunk),
      frameAssemblyTimeoutMs: this.spec.frameAssemblyTimeoutMs,
      trace: traceOf(this.spec),
      onViolation: (message) => this.#end.violation(message),
      onTransportEnded: (which, detail) => this.#end.transportEnded(which, detail),
      diagnose: (level, message) => this.#diagnose(level, message),
      ended: this.#ended$.signal,
      watchStdout: (onEnded, until) => child.watchStdout?.(onEnded, until),
    });
    this.#setState("initializing");
  }

  /** The initialize request while it is in flight: the one parent shortcut/register has (WAVE1-24). */
  #initializing: { id: number; settled: AbortController } | null = null;

  #initializeParent(id: number): ActiveParent | undefined {
    const init = this.#initializing;
    if (init === null || init.id !== id) return undefined;
    return { method: "initialize", signal: init.settled.signal, takeApproval: () => false };
  }

  async #initialize(): Promise<void> {
    const peer = this.#conn!.peer;
    const accepted = await handshake(peer, {
      manifest: this.spec.manifest,
      manifestPath: this.spec.manifestPath,
      source: this.spec.source,
      workspace: this.spec.workspace,
      host: this.spec.host,
      optional: this.#modules.features,
      declared: this.#declared,
      timeoutMs: this.spec.initializeTimeoutMs,
      catalog: this.#catalog,
      onSent: (id) => (this.#initializing = { id, settled: new AbortController() }),
    }).finally(() => {
      this.#initializing?.settled.abort();
      this.#initializing = null;
    });
    this.#accepted = accepted;
    this.#modules.negotiated(accepted.features);
    this.#requests = new HostRequests({
      peer,
      ...negotiatedRequests(accepted, this.api, {
        onGraceExpired: (id, method) => this.#end.unsettledCancel(id, method),
        checkMedia: (parts) => {
          const r = mediaResolver(this.#modules)?.resolve(parts, this.owner());
          return r === undefined ? "no artifacts service is bound" : r.ok ? null : r.problem;
        },
        diagnose: (level, message) => this.#diagnose(level, message),
      }),
    });
    this.#setState("ready");
  }

  #recordError(message: string): void {
    this.#lastError = truncateBytes(message, bounds.MAX_LAST_ERROR_BYTES);
  }

  #diagnose(level: DiagnosticLevel, message: string): void {
    this.#diagnostics.diagnose(level, message);
  }

  #setState(state: GenerationState, reason?: string): void {
    if (this.#state === state) return;
    this.#state = state;
    const event = { type: "state", extension: this.name, generation: this.spec.number, state } as const;
    this.spec.emit({ ...event, ...(reason !== undefined ? { reason } : {}) });
  }
}

/** The generation's side of the frame trace, or undefined when there is none (the usual case). */
function traceOf(spec: GenerationSpec): ConnectionOptions["trace"] {
  const trace = spec.trace;
  if (!trace) return undefined;
  const name = spec.manifest.name;
  return {
    frame: (dir, frame) => trace.frame(name, spec.number, dir, frame),
    refused: (error) => trace.refused(name, spec.number, error),
  };
}
