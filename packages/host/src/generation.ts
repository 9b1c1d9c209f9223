/**
 * One process generation of one extension: spawn, initialize, the requests routed to it, the
 * messages it sends, and the stop ladder. Everything issued to a generation dies with it.
 *
 * States: starting -> initializing -> ready -> (draining) -> stopped, or degraded/crashed on
 * failure (LIFE-01). Requests are admitted only when ready (INIT-01). A framing or envelope
 * violation from the child is never skipped: it is diagnosed (with at most 256 quoted bytes) and
 * the generation is terminated. The stop ladder is: shutdown request, 2 s for the ack, 2 s for
 * the exit, SIGKILL to the group, pipes destroyed; every wait is bounded (SHUT-01..06).
 * Supervision (restarts) is not this module's concern.
 */
import { rm } from "node:fs/promises";
import {
  EnvelopeReader, ErrorCode, OctetError, RpcPeer, WireError, bounds, isNegotiated,
  validateInitializeResult,
  type AcceptedInitialize, type ApiVersion, type HostState, type PeerDiagnostic, type ResourceOwner, type ExecutionContext, type SendTicket, type ToolDefinition,
} from "@octet/protocol";
import type { ExtensionManifest } from "./manifest/manifest.js";
import type { ManifestSource } from "@octet/protocol";
import type { DiagnosticLevel, GenerationState, HostEvent } from "./events.js";
import { groupMembers, signalGroup } from "./process/process-group.js";
import { spawnChild } from "./process/spawn-child.js";
import { buildInitializeRequest } from "./initialize-request.js";
import { HostRequests, type HostRequestOptions } from "./host-requests.js";
import { CompileBudget, compileToolSchemas, NO_SCHEMAS, type ToolSchemas } from "./schema-check/tool-schemas.js";
import type { LifecycleMethod } from "./lifecycle.js";
import { ChildWriter } from "./transport/child-writer.js";
import { StderrSink, truncateBytes } from "./transport/stderr-sink.js";
import { STDERR_CAUSE_BYTES, errorExcerpt } from "./transport/stderr-excerpt.js";
import { watchNamespacedStdout } from "./transport/stdout-watch.js";
import { deadline } from "./util/deadline.js";
import { createScratch, launchSpec } from "./process/launch.js";
import { containment, extensionPid, type ContainmentTier } from "./process/containment.js";
import { describeFrameError } from "./transport/frame-errors.js";
import { RateWindow } from "./util/rate-window.js";
import { ChildInbox } from "./child-inbox.js";
import { registerGroup, unregisterGroup } from "./process/registry.js";
import type { BoundModule } from "./modules/module.js";
import { GenerationModules } from "./modules/module-set.js";
import { mediaResolver } from "./modules/artifacts/module.js";
import type { MediaResolver } from "./modules/artifacts/artifacts-service.js";
import type { ForeignExtension, ForeignLaunchContext, LaunchedChild } from "./foreign-runtime.js";

/** Diagnostics one generation may cause per second; the rest are counted in one summary. */
const DIAGNOSTICS_PER_SECOND = 20;

export interface GenerationSpec {
  manifest: ExtensionManifest;
  manifestPath: string;
  extensionDir: string;
  source: ManifestSource;
  workspace: string;
  number: number;
  instanceId: string;
  host: HostState;
  parentEnv: Readonly<Record<string, string | undefined>>;
  emit: (event: HostEvent) => void;
  initializeTimeoutMs?: number;
  /** How long a frame may stay unfinished on stdout (default FRAME_ASSEMBLY_TIMEOUT_MS). */
  frameAssemblyTimeoutMs?: number;
  /**
   * Called in the stop sequence after the drain and before the shutdown request: the moment to
   * send the remaining lifecycle terminal events (LIFE-12). `reason` says why it stops.
   */
  onDrained?: ((reason: "shutdown" | "reload") => void) | undefined;
  /** Called once when the generation ends for any reason other than a requested stop. */
  onUnexpectedEnd?: (error: OctetError) => void;
  /** The host modules, bound to the embedder's services; each opens this generation's instance (modules/). */
  modules: readonly BoundModule[];
  /** A foreign runtime's extension (foreign-runtime.ts): launched by it instead of spawned here. */
  foreign?: { extension: ForeignExtension; trusted: boolean; catalog?: ForeignLaunchContext["catalog"] };
}


export class Generation {
  readonly spec: GenerationSpec;
  readonly name: string;
  readonly api: ApiVersion;
  #state: GenerationState = "starting";
  #child: LaunchedChild | null = null;
  /** The catalog names initialize must answer: the manifest's, or what a foreign instance registered. */
  #declared: { tools: readonly string[]; commands: readonly string[] } | null = null;
  /** What a foreign instance hooked that this host never delivers (ForeignLaunched.unsupportedHooks). */
  #unsupportedHooks: readonly string[] = [];
  #pgid = 0;
  #tier: ContainmentTier = "process-group";
  #peer: RpcPeer | null = null;
  #writer: ChildWriter | null = null;
  #stderr: StderrSink;
  #accepted: AcceptedInitialize | null = null;
  #lastError: string | null = null;
  #scratch: string | null = null;
  #exited: Promise<void> = Promise.resolve();
  #hasExited = false;
  #stopping: Promise<void> | null = null;
  #terminating: Promise<void> | null = null;
  /** False once the generation is being replaced or stopped: no new requests are admitted. */
  #admitting = true;
  #stopReason: "shutdown" | "reload" = "shutdown";
  #ended = false;
  #inbox: ChildInbox;
  /** The host's requests once ready: admission, cancellation, progress (see host-requests.ts). */
  #requests: HostRequests | null = null;
  /** The current epoch's compiled parameters and output schemas. */
  #schemas: ToolSchemas = NO_SCHEMAS;
  /** How much new schema text this generation may still compile (issue 13b). */
  readonly #compileBudget = new CompileBudget();
  /** The dynamic catalog after the first accepted mutation; null while the initialize catalog stands. */
  #published: { revision: number; tools: ToolDefinition[] } | null = null;
  /** Aborted when a stop begins (start included): a foreign launch in progress gives up. */
  readonly #stopRequested = new AbortController();
  /** Aborted when the generation ends: everything waiting on it lets go. */
  readonly #ended$ = new AbortController();
  /** Diagnostics per second; an extension must not be able to flood the embedder through us. */
  readonly #diagnostics = new RateWindow(DIAGNOSTICS_PER_SECOND);
  /** This generation's instances of the bound host modules. */
  readonly #modules: GenerationModules;

  constructor(spec: GenerationSpec) {
    this.spec = spec;
    this.name = spec.manifest.name;
    this.api = spec.manifest.api_version;
    this.#stderr = new StderrSink((line) => spec.emit({ type: "stderr", extension: this.name, generation: spec.number, line }));
    this.#modules = new GenerationModules(spec.modules, {
      name: this.name,
      api: this.api,
      number: spec.number,
      manifest: spec.manifest,
      scratchDir: () => this.#scratch,
      catalog: { tools: () => this.tools, publish: (next) => this.publishTools(next), features: () => this.features },
      owner: () => this.owner(),
      ended: this.#ended$.signal,
      activeRequest: (id) => this.#requests?.active(id),
      diagnose: (level, message) => this.#diagnose(level, message),
      emit: (event) => spec.emit(event),
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
      generationSignal: this.#ended$.signal,
      emit: (event) => spec.emit(event),
      diagnose: (level, message) => this.#diagnose(level, message),
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
    return this.#requests?.inFlight ?? this.#peer?.pendingCount ?? 0;
  }
  /** Whether this generation gets `method` lifecycle notifications (LIFE-04). */
  subscribes(method: LifecycleMethod): boolean {
    const a = this.#accepted;
    return (this.#state === "ready" || this.#state === "draining") && a !== null && a.features.includes("lifecycle_events") && a.lifecycleEvents.includes(method);
  }

  /** A best-effort notification to the extension (lifecycle events); dropped once the peer closed. */
  notify(method: string, params: Record<string, unknown>): SendTicket | undefined {
    const peer = this.#peer;
    return peer && !peer.closed ? peer.notify(method, params) : undefined;
  }

  /** A lifecycle event was dropped undelivered (LIFE-10): said once, bounded like every diagnostic. */
  lifecycleDropped(method: string, afterMs: number): void {
    this.#diagnose("warning", `${method} was not delivered within ${afterMs} ms (the extension is not reading its stdin fast enough); dropped`);
  }

  /**
   * The tools this generation publishes now: the initialize catalog (epoch 0), or with
   * dynamic_tools the latest accepted mutation (CAT-09).
   */
  get tools(): readonly ToolDefinition[] {
    return this.#published?.tools ?? this.#accepted?.result.tools ?? [];
  }

  /** Hooks of a foreign instance that this host never delivers, in its own protocol's names. */
  get unsupportedHooks(): readonly string[] {
    return this.#unsupportedHooks;
  }

  /** The catalog epoch with dynamic_tools negotiated (0 = initialize), else null (CALL-03). */
  get catalogRevision(): number | null {
    return this.features.includes("dynamic_tools") ? (this.#published?.revision ?? 0) : null;
  }

  /**
   * Publishes a complete new tool list as the next epoch, atomically (CAT-07, CAT-08): its
   * schemas are compiled first, so a publication over the compile budget throws and nothing
   * changes. Returns the new revision.
   */
  publishTools(next: readonly ToolDefinition[]): number {
    const schemas = compileToolSchemas(next, this.#compileBudget);
    const revision = (this.#published?.revision ?? 0) + 1;
    this.#schemas = schemas;
    this.#published = { revision, tools: [...next] };
    return revision;
  }

  /** The compiled schemas of the epoch published now (a catalog snapshot keeps the one it saw). */
  get schemas(): ToolSchemas {
    return this.#schemas;
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
    return { session_id: this.spec.host.session_id ?? this.spec.instanceId, extension_instance_id: this.spec.instanceId, process_generation: this.spec.number };
  }

  /** The execution context sent with a request; resource_owner only where API 0.2+ puts it. */
  context(withOwner: boolean): ExecutionContext {
    const ctx: ExecutionContext = { workspace: this.spec.workspace, execution_scope: null, host: this.spec.host };
    if (withOwner && isNegotiated(this.api)) ctx.resource_owner = this.owner();
    return ctx;
  }

  /** Spawns the process and runs initialize; rejects (after killing the group) on any failure. */
  async start(): Promise<void> {
    try {
      await this.#spawn();
      await this.#initialize();
    } catch (err) {
      const error = err instanceof OctetError ? err : new OctetError("initialize_failed", String(err instanceof Error ? err.message : err));
      this.#recordError(error.message);
      await this.#terminate("crashed", error.message);
      throw error;
    }
  }

  /**
   * Sends a request to a ready generation. Rejects with OctetError (not_ready, request_timeout,
   * transport_closed, request_cancelled) or WireError (the extension answered with an error).
   */
  async request(method: string, params: unknown, options: HostRequestOptions): Promise<unknown> {
    const requests = this.#requests;
    if (this.#state !== "ready" || !requests || !this.#admitting || this.#stopping) {
      throw new OctetError("not_ready", `extension "${this.name}" is ${this.#admitting && !this.#stopping ? this.#state : "stopping"}, not ready`);
    }
    return requests.send(method, params, options);
  }

  /**
   * The stop ladder (SHUT-01..05): shutdown request, bounded wait for the ack, bounded wait for
   * the exit, then SIGKILL to the whole group and destroyed pipes. `budgetMs` caps the whole
   * sequence (the aggregate deadline of SHUT-06/07 cuts a stage short); without one each stage
   * gets its full timeout.
   */
  stop(budgetMs: number = Number.POSITIVE_INFINITY): Promise<void> {
    this.#stopRequested.abort();
    if (!this.#stopping) this.#stopping = this.#stopLadder(budgetMs);
    return this.#stopping;
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

  async #stopLadder(budgetMs: number): Promise<void> {
    const until = Date.now() + budgetMs;
    const left = (): number => Math.max(0, until - Date.now());
    const peer = this.#peer;
    if (peer && !peer.closed && !this.#hasExited && (this.#state === "ready" || this.#state === "initializing" || this.#state === "draining")) {
      // API 0.2+ drains first: no new work, a bounded wait for what runs, then the rest is
      // cancelled (SHUT-08). API 0.1 keeps the legacy resident behaviour: no draining phase
      // (SHUT-09); admission stops anyway because request() refuses once #stopping is set.
      this.#requests?.stopAdmitting(`extension "${this.name}" is shutting down`);
      if (isNegotiated(this.api) && this.#state === "ready") {
        this.#setState("draining");
        await this.#requests?.idle(Math.min(bounds.SHUTDOWN_STAGE_TIMEOUT_MS, left() / 2));
        this.#requests?.cancelAll("shutdown");
      }
      try {
        this.spec.onDrained?.(this.#stopReason);
      } catch {
        // Best effort: terminal observations never hold up the stop.
      }
      const ack = peer.request("shutdown", {}, { timeoutMs: Math.min(bounds.SHUTDOWN_STAGE_TIMEOUT_MS, left()) }).result;
      await ack.then(
        () => undefined,
        (err: unknown) => this.#diagnose("warning", `no shutdown acknowledgement: ${err instanceof Error ? err.message : String(err)}`),
      );
      const exitWait = Math.min(bounds.SHUTDOWN_STAGE_TIMEOUT_MS, left());
      await deadline(this.#exited, exitWait);
      if (!this.#hasExited) this.#diagnose("warning", `did not exit within ${exitWait} ms of the shutdown request; killing its process group`);
    }
    await this.#terminate("stopped", "stopped by the host");
  }

  /** Kills the group, destroys the pipes, waits (bounded) for the exit, removes the scratch dir. */
  #terminate(finalState: GenerationState, reason: string): Promise<void> {
    this.#stopRequested.abort();
    this.#terminating ??= this.#teardown(finalState, reason);
    return this.#terminating;
  }

  async #teardown(finalState: GenerationState, reason: string): Promise<void> {
    const closed = new OctetError("transport_closed", `extension "${this.name}" ${finalState === "stopped" ? "was stopped" : "ended"}: ${reason}`);
    this.#peer?.close(closed);
    this.#requests?.close(closed);
    this.#killGroup();
    const child = this.#child;
    if (child) {
      child.stdin.destroy();
      const until = Date.now() + bounds.KILL_REAP_TIMEOUT_MS;
      await deadline(this.#exited, bounds.KILL_REAP_TIMEOUT_MS);
      // The direct child (a launcher, under a namespace) can be reaped before the rest of its
      // group has finished dying: a stop is over when the group is empty, read from /proc, within
      // the same bound. Killed processes do not come back, so polling is enough.
      while (this.#pgid > 1 && groupMembers(this.#pgid).length > 0 && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // A grandchild may hold stdout/stderr open; never wait on 'close' without a bound (P14).
      child.stdout.destroy();
      child.stderr.destroy();
      this.#stderr.end();
    }
    // A foreign launch that failed after spawning reaped its process itself (#child was never set).
    if (this.#pgid > 1 && (this.#hasExited || this.#child === null)) unregisterGroup(this.#pgid);
    if (this.#diagnostics.dropped > 0) {
      this.spec.emit({ type: "diagnostic", extension: this.name, generation: this.spec.number, level: "warning", message: `(${this.#diagnostics.dropped} more diagnostics suppressed; over ${DIAGNOSTICS_PER_SECOND} per second)` });
    }
    this.#ended$.abort();
    this.#modules.dispose();
    if (this.#scratch) {
      const dir = this.#scratch;
      this.#scratch = null;
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
    this.#ended = true;
    if (this.#state !== "crashed" || finalState === "crashed") this.#setState(finalState, reason);
  }

  #killGroup(): void {
    if (this.#pgid <= 1) return;
    try {
      signalGroup(this.#pgid, "SIGKILL");
    } catch (err) {
      this.#diagnose("error", `could not kill process group ${this.#pgid}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Live processes still in this generation's group (for status and tests). */
  liveGroupMembers(): number[] {
    return this.#pgid > 1 ? groupMembers(this.#pgid) : [];
  }

  async #spawn(): Promise<void> {
    this.#scratch = await createScratch(this.spec.manifest.name, this.spec.number);
    const contained = containment(this.spec.parentEnv);
    this.#tier = contained.tier;
    const child = await this.#launch(contained);
    if (this.#stopping || this.#terminating) {
      // Stopped while the process was being spawned: the teardown that ran found no child, so
      // this one is killed here, before anything else can keep it.
      if ((child.pid ?? 0) > 1) signalGroup(child.pid!, "SIGKILL");
      for (const stream of [child.stdin, child.stdout, child.stderr]) stream.destroy();
      const scratch = this.#scratch;
      this.#scratch = null;
      if (scratch) await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
      throw new OctetError("shutdown", `extension "${this.name}" was stopped while it was being started`);
    }
    this.#child = child;
    this.#pgid = child.pid ?? 0;
    if (this.#pgid > 1) registerGroup(this.#pgid);
    this.#exited = new Promise<void>((resolve) => {
      child.once("exit", (code, signal) => {
        this.#hasExited = true;
        resolve();
        this.#onExit(code, signal);
      });
    });
    // A closed stdin (EPIPE: the extension exited or closed it) ends the transport like a closed
    // stdout: the exit, with its status and stderr, is the cause to report, not a violation. A
    // stalled reader is a violation.
    const writer = new ChildWriter(child.stdin, (error) => (error.code === "transport_closed" ? this.#transportEnded("stdin", error.message) : this.#violation(error.message)));
    this.#writer = writer;
    this.#peer = new RpcPeer({
      transport: writer,
      onRequest: (request) => this.#inbox.request(request),
      onNotification: (n) => {
        if (n.method === "$/progress" && this.#requests) this.#requests.progress(n.params);
        else if (n.method === "$/cancelRequest" && isNegotiated(this.api)) this.#inbox.cancel((n.params as { id?: unknown } | undefined)?.id);
        else this.#inbox.notification(n);
      },
      onDiagnostic: (d) => this.#onPeerDiagnostic(d),
    });
    const reader = new EnvelopeReader();
    // Half a frame followed by silence would hold the reader forever: a frame begun must end
    // within the assembly deadline, measured from the chunk that left it unfinished first.
    const assemblyMs = this.spec.frameAssemblyTimeoutMs ?? bounds.FRAME_ASSEMBLY_TIMEOUT_MS;
    let partial: ReturnType<typeof setTimeout> | null = null;
    const watchPartial = (): void => {
      if (reader.buffered === 0 || this.#ended) {
        if (partial) clearTimeout(partial);
        partial = null;
      } else if (!partial) {
        partial = setTimeout(() => this.#violation(`a frame was left unfinished for ${assemblyMs} ms (${reader.buffered} bytes without a newline)`), assemblyMs);
        partial.unref();
      }
    };
    this.#ended$.signal.addEventListener("abort", () => partial && clearTimeout(partial), { once: true });
    child.stdout.on("data", (chunk: Buffer) => {
      this.#readChunk(reader, chunk);
      watchPartial();
    });
    child.stdout.on("end", () => {
      for (const event of reader.end()) {
        if (event.kind === "frame_error" && !this.#ended) this.#diagnose("error", `${event.error.message}; the line began: "${event.error.quoted}"`);
      }
      this.#stdoutEnded();
    });
    child.stderr.on("data", (chunk: Buffer) => this.#stderr.write(chunk));
    if (this.#tier === "pid-namespace" && this.#pgid > 1) watchNamespacedStdout(this.#pgid, () => this.#stdoutEnded(), this.#ended$.signal);
    this.#setState("initializing");
  }

  /** A process spawned here, or a foreign runtime's instance behind a stand-in child. */
  async #launch(contained: ReturnType<typeof containment>): Promise<LaunchedChild> {
    const foreign = this.spec.foreign;
    if (!foreign) return spawnChild(contained.wrap(launchSpec(this.spec, this.#scratch!)));
    try {
      const launched = await foreign.extension.launch({
        workspace: this.spec.workspace,
        generation: this.spec.number,
        source: this.spec.source,
        trusted: foreign.trusted,
        // Registered the moment it exists, not when launch() returns: a stop or a host exit
        // during a foreign instance's start (up to its initialize timeout) still kills the group.
        spawn: async (spec) => {
          const child = await spawnChild(contained.wrap({ ...spec, args: [...spec.args] }));
          if ((child.pid ?? 0) > 1) {
            this.#pgid = child.pid!;
            registerGroup(this.#pgid);
          }
          return child;
        },
        diagnose: (level, message) => this.#diagnose(level, message),
        signal: this.#stopRequested.signal,
        catalog: () => foreign.catalog?.() ?? { tools: [], commands: [] },
      });
      this.#declared = launched.contributes;
      this.#unsupportedHooks = launched.unsupportedHooks ?? [];
      // The hooks it answers are known only now: this generation's manifest says so, for the
      // initialize request and hook routing (the discovered manifest is left as it was).
      const hooks = launched.contributes.hooks;
      if (hooks) this.spec.manifest = { ...this.spec.manifest, contributes: { ...this.spec.manifest.contributes, hooks } };
      return launched.child;
    } catch (err) {
      throw new OctetError("spawn_failed", err instanceof Error ? err.message : String(err));
    }
  }

  /** One stdout chunk: every envelope to the peer; anything refused is a violation (never skipped). */
  #readChunk(reader: EnvelopeReader, chunk: Buffer): void {
    for (const event of reader.push(chunk)) {
      if (this.#ended) return;
      if (event.kind === "envelope") {
        // The request is settled the moment its response is read (PROG-04, REV-08).
        if (event.envelope.kind === "response" && typeof event.envelope.message.id === "number") this.#requests?.responded(event.envelope.message.id);
        this.#peer?.receive(event.envelope);
      } else if (event.kind === "invalid_envelope") this.#violation(`sent an invalid JSON-RPC message: ${event.reason}`);
      else {
        if (event.error.code === "invalid_json") this.#peer?.replyError(null, ErrorCode.ParseError, `parse error: ${event.error.message}`);
        this.#violation(`${describeFrameError(event.error.code)}: ${event.error.message}; the line began: "${event.error.quoted}"`);
      }
    }
  }

  async #initialize(): Promise<void> {
    const peer = this.#peer!;
    const { manifest } = this.spec;
    const { params, offered } = buildInitializeRequest(manifest, {
      manifestPath: this.spec.manifestPath,
      source: this.spec.source,
      workspace: this.spec.workspace,
      host: this.spec.host,
      optional: this.#modules.features,
    });
    const timeoutMs = this.spec.initializeTimeoutMs ?? bounds.INITIALIZE_TIMEOUT_MS;
    let raw: unknown;
    try {
      raw = await peer.request("initialize", params, { timeoutMs }).result;
    } catch (err) {
      if (err instanceof WireError) throw new OctetError("initialize_failed", `initialize was refused by the extension: ${err.message} (code ${err.code})`);
      if (err instanceof OctetError && err.code === "request_timeout") throw new OctetError("initialize_timeout", `no initialize response within ${timeoutMs} ms`);
      throw err;
    }
    const declared = this.#declared ?? manifest.contributes;
    const expect = { api: manifest.api_version, contributes: { tools: declared.tools, commands: declared.commands }, ...(offered ? { offered } : {}) };
    const checked = validateInitializeResult(raw, expect);
    if (!checked.ok) throw new OctetError("initialize_failed", `initialize response rejected: ${checked.problems.join("; ")}`);
    try {
      this.#schemas = compileToolSchemas(checked.value.result.tools, this.#compileBudget, true);
    } catch (err) {
      throw new OctetError("initialize_failed", `initialize response rejected: ${err instanceof Error ? err.message : String(err)}`);
    }
    this.#accepted = checked.value;
    this.#modules.negotiated(checked.value.features);
    const features = new Set(checked.value.features);
    this.#requests = new HostRequests({
      peer,
      cancellation: features.has("request_cancellation"),
      maxConcurrent: isNegotiated(this.api) ? checked.value.maxConcurrentRequests : null,
      progress: {
        enabled: features.has("request_progress"),
        decoration: features.has("progress_decoration"),
        partialResult: this.api === "0.4" && features.has("request_progress") && features.has("content_parts"),
        api: this.api,
      },
      onGraceExpired: (id, method) => this.#unsettledCancel(id, method),
      artifacts: features.has("artifacts"),
      checkMedia: (parts) => {
        const r = mediaResolver(this.#modules)?.resolve(parts, this.owner());
        return r === undefined ? "no artifacts service is bound" : r.ok ? null : r.problem;
      },
      diagnose: (level, message) => this.#diagnose(level, message),
    });
    this.#setState("ready");
  }

  #onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.#stopping || this.#terminating) return;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    // The cause is the head of the uncaught error, not the bottom of its stack trace (13.4).
    const cause = errorExcerpt(this.#stderr.tail(STDERR_CAUSE_BYTES));
    // An in-process instance (a foreign runtime's, e.g. QuickJS) has no process to speak of.
    const what = this.#pgid > 1 ? `process ${how}` : "instance ended";
    const message = `${what}${cause ? `; stderr: ${truncateBytes(cause, 700)}` : ""}`;
    this.#recordError(message);
    void this.#terminate("crashed", message).then(() => {
      this.spec.onUnexpectedEnd?.(new OctetError("transport_closed", `extension "${this.name}" ${message}`));
    });
  }

  /**
   * A cancelled request was not settled within the grace period (CANCEL-07): the generation is
   * degraded and terminated; restarting it is the supervisor's decision.
   */
  #unsettledCancel(id: number, method: string): void {
    if (this.#terminating || this.#stopping) return;
    const message = `did not settle cancelled ${method} request ${id} within ${bounds.CANCEL_GRACE_MS} ms`;
    this.#recordError(message);
    this.#diagnose("error", `${message}; terminating the extension`);
    this.#setState("degraded", message);
    this.#stopping = this.#terminate("crashed", message).then(() => {
      this.spec.onUnexpectedEnd?.(new OctetError("request_cancelled", `extension "${this.name}" ${message}`));
    });
  }

  /**
   * stdout EOF ends the transport: no request can be answered any more, so none is admitted and
   * the stop ladder starts at once, without its shutdown stage (an acknowledgement could never
   * arrive): the bounded wait for the exit, so a process that is exiting anyway is reported by
   * its exit status, then the group is killed (issue 13: noticed before, only by call timeouts).
   */
  #stdoutEnded(): void {
    this.#transportEnded("stdout", null);
  }

  /** Either end of the pipe pair closed: wait (bounded) for the exit to tell why, then end it. */
  #transportEnded(which: "stdout" | "stdin", detail: string | null): void {
    if (this.#ended || this.#stopping || this.#terminating) return;
    const message = `transport ended: the extension closed its ${which}${detail ? ` (${detail})` : ""} but kept running`;
    this.#requests?.stopAdmitting(`extension "${this.name}" closed its ${which}`);
    void deadline(this.#exited, bounds.SHUTDOWN_STAGE_TIMEOUT_MS).then(() => {
      if (this.#hasExited || this.#terminating || this.#stopping) return;
      this.#recordError(message);
      this.#diagnose("error", `${message}; terminating it`);
      this.#setState("degraded", message);
      this.#stopping = this.#terminate("crashed", message).then(() => {
        this.spec.onUnexpectedEnd?.(new OctetError("transport_closed", `extension "${this.name}": ${message}`));
      });
    });
  }

  /** A protocol violation: diagnosed once, then the generation is terminated (never skipped). */
  #violation(message: string): void {
    if (this.#terminating || this.#stopping) return;
    const full = `protocol violation: ${message}`;
    this.#recordError(full);
    this.#diagnose("error", `${full}. Extensions must write only JSON-RPC frames to stdout and log to stderr; terminating it`);
    this.#setState("degraded", full);
    this.#stopping = this.#terminate("crashed", full).then(() => {
      this.spec.onUnexpectedEnd?.(new OctetError("protocol_violation", `extension "${this.name}": ${full}`));
    });
  }

  #onPeerDiagnostic(d: PeerDiagnostic): void {
    switch (d.kind) {
      case "late_response":
        if (typeof d.id === "number") this.#requests?.lateResponse(d.id);
        // -32800 after a cancel is the cooperative answer the host asked for: worth a note, not a warning.
        if (d.errorCode === ErrorCode.RequestCancelled) this.#diagnose("info", `cancelled request ${String(d.id)} settled with -32800`);
        else this.#diagnose("warning", `ignored a late response to request ${String(d.id)} (${d.reason})`);
        return;
      case "unknown_response":
        this.#diagnose("warning", `ignored a response to unknown request id ${JSON.stringify(d.id)}`);
        return;
      case "error_response_without_id":
        this.#diagnose("warning", `extension reported an error without an id: ${truncateBytes(d.message, 512)}`);
        return;
      default:
        this.#diagnose("warning", `${d.kind}: ${truncateBytes(d.message, 512)}`);
    }
  }

  #recordError(message: string): void {
    this.#lastError = truncateBytes(message, bounds.MAX_LAST_ERROR_BYTES);
  }

  #diagnose(level: DiagnosticLevel, message: string): void {
    const { admitted, droppedBefore } = this.#diagnostics.admit();
    const base = { type: "diagnostic", extension: this.name, generation: this.spec.number } as const;
    if (droppedBefore > 0) this.spec.emit({ ...base, level: "warning", message: `(${droppedBefore} more diagnostics suppressed; over ${DIAGNOSTICS_PER_SECOND} per second)` });
    if (admitted) this.spec.emit({ ...base, level, message: truncateBytes(message, bounds.MAX_DIAGNOSTIC_BYTES) });
  }

  #setState(state: GenerationState, reason?: string): void {
    if (this.#state === state) return;
    this.#state = state;
    this.spec.emit({ type: "state", extension: this.name, generation: this.spec.number, state, ...(reason !== undefined ? { reason } : {}) });
  }
}
