/**
 * The host side of one rpi extension instance, the same for a process and a QuickJS worker
 * (RPI-01, QJS-02): handshake, the registration-only load phase, initialize, invocations with
 * updates and cancellation, the extension's UI and action requests, and shutdown.
 *
 * Contract: start() resolves when the instance is ready, or rejects after the instance was
 * terminated, with a message naming the phase, the limit and what the extension said. A frame
 * the catalog does not allow, an oversize or malformed line, or a hello that does not match the
 * manifest is a protocol violation: reported and the instance terminated (RPI-23, RPI-37). An
 * invocation or hook that times out answers its caller with an error and keeps the instance
 * (RPI-33). Frames naming another generation are ignored with a diagnostic (RPI-30).
 */
import { bounds, duplicateTopLevelKeys, utf8ByteLength } from "@octet/protocol";
import {
  DEFAULT_MAX_FRAME_BYTES,
  MAX_EXTENSION_REQUESTS,
  PROTOCOL_VERSION,
  parseExtensionFrame,
} from "../protocol/frames.js";
import type {
  ExtensionFrame,
  ExtensionMode,
  ExtensionRequest,
  HelloManifest,
  HostFrame,
  HostRequest,
  InstanceId,
  Invocation,
  InvocationContext,
  ProtocolResult,
  ToolDescriptor,
} from "../protocol/frames.js";
import { resolveEventName } from "../protocol/events.js";
import type { RpiExit, RpiTransport, RpiTransportEvent } from "../transport.js";
import { requestRefusal, type RpiGrants } from "./grants.js";
import { resolveTimeouts, type RpiTimeouts } from "./rpi-timeouts.js";
import { CoalescedWarnings, times } from "./coalesced-warnings.js";
import { ContextEncoder, requestFrameText } from "./invocation-context.js";

export { DEFAULT_RPI_TIMEOUTS, MAX_RPI_TIMEOUT_MS, resolveTimeouts, type RpiTimeouts } from "./rpi-timeouts.js";
export { LARGE_CONTEXT_BYTES } from "./invocation-context.js";

/** How long a cancelled invocation may take to answer before the host answers "cancelled" itself. */
const CANCEL_ANSWER_MS = 1000;

export type DiagnosticLevel = "info" | "warning" | "error";

/**
 * What the embedder does with an extension's UI requests and session actions. `parent` is the
 * `tag` of the invocation the extension asks on behalf of (InvokeOptions.tag), when it said which.
 */
export interface RpiHostServices {
  ui?(
    request: { type: string } & Record<string, unknown>,
    options: { signal: AbortSignal; timeoutMs?: number; parent?: unknown },
  ): Promise<unknown>;
  action?(
    action: { kind: string } & Record<string, unknown>,
    options: { signal: AbortSignal; parent?: unknown },
  ): Promise<unknown>;
}

export interface RpiConnectionOptions {
  transport: RpiTransport;
  instance: InstanceId;
  cwd: string;
  mode: ExtensionMode;
  projectTrusted: boolean;
  /** What the pi-extension.json grants; the hello may claim a subset only (RPI-23). */
  grants: RpiGrants;
  timeouts?: Partial<RpiTimeouts>;
  maxFrameBytes?: number;
  services?: RpiHostServices;
  diagnose(level: DiagnosticLevel, message: string): void;
  onStderr?(line: string): void;
}

export interface InvokeOptions {
  /** The caller's name for this invocation, handed back as `parent` to the services. */
  tag?: unknown;
  timeoutMs?: number;
  signal?: AbortSignal;
  onUpdate?(value: unknown): void;
  /**
   * What the host knows of the session for this invocation (QJS-08, QJS-09); cwd, mode and trust
   * are the hello's. Lists too large for the frame are left out with a diagnostic. Encoded once
   * per object: pass the same object while nothing in it changed (the octet bridge keeps one per
   * catalog epoch), a new one when something did.
   */
  context?: Partial<InvocationContext>;
}

export type RpiState = "handshake" | "load" | "ready" | "stopping" | "closed";

/** How one request is sent and settled; `context`: the invocation context encoded, spliced in as it is. */
interface RequestOptions {
  timeoutMs?: number;
  budgetMs?: number;
  what?: string;
  tag?: unknown;
  context?: string;
  signal?: AbortSignal | undefined;
  onUpdate?: ((v: unknown) => void) | undefined;
}

interface Pending {
  resolve(result: ProtocolResult): void;
  onUpdate?: ((value: unknown) => void) | undefined;
  tag?: unknown;
}

export class RpiConnection {
  readonly timeouts: RpiTimeouts;
  readonly closed: Promise<RpiExit>;
  #state: RpiState = "handshake";
  #hello: HelloManifest | null = null;
  #lastError: string | null = null;
  readonly #o: RpiConnectionOptions;
  readonly #max: number;
  readonly #pending = new Map<string, Pending>();
  readonly #answered = new Set<string>();
  readonly #extensionRequests = new Map<string, AbortController>();
  readonly #tools = new Map<string, ToolDescriptor>();
  readonly #commands = new Map<string, { name: string; description?: string }>();
  readonly #hooks = new Set<string>();
  #nextId = 1;
  #helloWaiter: ((hello: HelloManifest) => void) | null = null;
  /** The initialize request's id: its successful answer ends the load phase at once. */
  #initId: string | null = null;
  #fail: ((message: string) => void) | null = null;
  #violation: string | null = null;
  readonly #contexts: ContextEncoder;
  /** Warnings an extension's flood of requests would repeat. */
  readonly #warnings = new CoalescedWarnings((message) => this.#safeDiagnose("warning", message));

  constructor(options: RpiConnectionOptions) {
    this.#o = options;
    this.timeouts = resolveTimeouts(options.timeouts);
    this.#max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    const { cwd, mode, projectTrusted } = options;
    const warn = (message: string): void => this.#safeDiagnose("warning", message);
    this.#contexts = new ContextEncoder({ cwd, mode, projectTrusted, maxFrameBytes: this.#max, warn });
    options.transport.onEvent((event) => this.#onEvent(event));
    this.closed = options.transport.exited.then((exit) => {
      this.#state = "closed";
      const final: RpiExit =
        this.#violation !== null ? { ...exit, code: "fatal", reason: `protocol violation: ${this.#violation}` } : exit;
      this.#lastError ??= final.reason;
      this.#fail?.(final.reason);
      // Each resolve is the request's own settle: it removes the entry and clears its timer (a
      // timer left behind would hold the embedding process open for up to the invocation timeout).
      for (const p of [...this.#pending.values()]) {
        p.resolve({
          status: "error",
          error: { code: "closed", message: `the extension ended before answering: ${final.reason}` },
        });
      }
      for (const c of this.#extensionRequests.values()) c.abort();
      this.#warnings.close();
      return final;
    });
  }

  get state(): RpiState {
    return this.#state;
  }
  get hello(): HelloManifest | null {
    return this.#hello;
  }
  get lastError(): string | null {
    return this.#lastError;
  }
  get pid(): number | null {
    return this.#o.transport.pid;
  }
  tools(): ToolDescriptor[] {
    return [...this.#tools.values()];
  }
  commands(): { name: string; description?: string }[] {
    return [...this.#commands.values()];
  }
  hooks(): string[] {
    return [...this.#hooks];
  }
  /** How many invocation contexts were encoded: one per distinct context object (see InvokeOptions.context). */
  get contextEncodings(): number {
    return this.#contexts.encodings;
  }

  /**
   * Handshake, load and initialize, each bounded by its timeout, all within the initialize
   * timeout. Rejects with an Error after terminating the instance.
   */
  async start(): Promise<void> {
    const t = this.timeouts;
    const failed = new Promise<never>((_, reject) => {
      this.#fail = (message) => reject(new Error(message));
    });
    failed.catch(() => undefined);
    const phase = <T>(work: Promise<T>, ms: number, what: string): Promise<T> => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(what)), ms);
      });
      return Promise.race([work, expired, failed]).finally(() => clearTimeout(timer));
    };
    const overall = setTimeout(
      () => this.#fail?.(`the extension did not become ready within ${t.initializeMs} ms (initialize timeout)`),
      t.initializeMs,
    );
    try {
      const hello = new Promise<HelloManifest>((resolve) => {
        this.#helloWaiter = resolve;
      });
      this.#send({
        type: "hello",
        protocolVersion: PROTOCOL_VERSION,
        instance: this.#o.instance,
        cwd: this.#o.cwd,
        mode: this.#o.mode,
        projectTrusted: this.#o.projectTrusted,
      });
      await phase(hello, t.handshakeMs, `no hello from the extension within ${t.handshakeMs} ms (handshake timeout)`);
      const result = await phase(
        this.#request({ kind: "initialize" }, { budgetMs: t.loadMs }),
        t.loadMs,
        `the registration-only load phase did not finish within ${t.loadMs} ms (load timeout)`,
      );
      if (result.status !== "success")
        throw new Error(
          `initialize failed: ${result.status === "error" ? result.error.message : "the extension answered cancelled"}`,
        );
      if (this.#violation !== null) throw new Error(`protocol violation: ${this.#violation}`);
      if (this.#state !== "ready") throw new Error(`the extension is ${this.#state}: stopped while it was starting`);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#lastError ??= message;
      await this.#o.transport.terminate(message);
      throw new Error(this.#lastError);
    } finally {
      clearTimeout(overall);
      this.#fail = null;
    }
  }

  /**
   * One invocation (RPI-25, RPI-29). Resolves with the extension's result, or an error result on
   * timeout (the instance is kept, RPI-33); a cancelled signal sends `cancel` and resolves
   * "cancelled" once the extension answers or after a short grace.
   */
  invoke(invocation: Invocation, options: InvokeOptions = {}): Promise<ProtocolResult> {
    if (this.#state !== "ready")
      return Promise.resolve({
        status: "error",
        error: { code: "not_ready", message: `the extension is ${this.#state}, not ready` },
      });
    const timeoutMs =
      options.timeoutMs ?? (invocation.kind === "hook" ? this.timeouts.hookMs : this.timeouts.invocationMs);
    const what = invocation.kind === "hook" ? "hook" : "invocation";
    const context = options.context ? this.#contexts.encode(options.context) : undefined;
    const { signal, onUpdate, tag } = options;
    const o = { timeoutMs, budgetMs: timeoutMs, signal, onUpdate, tag, what };
    return this.#request({ kind: "invoke", invocation }, context === undefined ? o : { ...o, context });
  }

  /** Shutdown frame, the shutdown timeout for the exit, then the group is killed (RPI-26, RPI-34). */
  async shutdown(reason: string): Promise<void> {
    if (this.#state === "closed") return;
    this.#state = "stopping";
    try {
      this.#send({ type: "shutdown", reason });
    } catch {
      // The channel is already gone: terminate below.
    }
    // An in-process instance (QuickJS) is torn down right after the frame: the stop message
    // queues behind it, so the prelude sees the shutdown first, then the thread is joined and
    // the runtime freed (QJS-20). Nothing of it can outlive the host to wait for.
    if (this.#o.transport.pid === null) return this.#o.transport.terminate("shut down");
    const ms = this.timeouts.shutdownMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const graceful = await Promise.race([
      this.closed.then(() => true),
      new Promise<false>((r) => (timer = setTimeout(() => r(false), ms))),
    ]);
    clearTimeout(timer);
    if (!graceful) this.#safeDiagnose("warning", `did not exit within ${ms} ms of the shutdown frame; killing it`);
    await this.#o.transport.terminate(graceful ? "shut down" : `no exit within ${ms} ms of the shutdown frame`);
  }

  /** Ends the instance now (reported as a protocol violation when `violation` is set). */
  terminate(reason: string): Promise<void> {
    return this.#o.transport.terminate(reason);
  }

  #request(request: HostRequest, o: RequestOptions): Promise<ProtocolResult> {
    // Given up before anything was sent: nothing to tell the extension.
    if (o.signal?.aborted) return Promise.resolve({ status: "cancelled" });
    const id = `req-${this.#o.instance.generation}-${this.#nextId++}`;
    if (request.kind === "initialize") this.#initId = id;
    return new Promise<ProtocolResult>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = (): void => settleLater({ status: "cancelled" }, "cancel");
      const settle = (result: ProtocolResult): void => {
        if (!this.#pending.delete(id)) return;
        clearTimeout(timer);
        o.signal?.removeEventListener("abort", onAbort);
        resolve(result);
      };
      // Cancel or timeout: tell the extension, give it a moment to answer, then answer for it.
      const settleLater = (fallback: ProtocolResult, why: string): void => {
        clearTimeout(timer);
        if (!this.#pending.has(id)) return;
        try {
          this.#send({ type: "cancel", id });
        } catch {
          // Closed: the pending entry is settled by `closed`.
        }
        this.#answered.add(id);
        // Bounded: only recent give-ups need a quiet late answer.
        if (this.#answered.size > 1024) this.#answered.delete(this.#answered.values().next().value as string);
        if (why === "timeout") return settle(fallback);
        timer = setTimeout(() => settle(fallback), CANCEL_ANSWER_MS);
      };
      this.#pending.set(id, { resolve: settle, onUpdate: o.onUpdate, tag: o.tag });
      o.signal?.addEventListener("abort", onAbort, { once: true });
      if (o.timeoutMs !== undefined) {
        const ms = o.timeoutMs;
        timer = setTimeout(
          () =>
            settleLater(
              {
                status: "error",
                error: {
                  code: "timeout",
                  message:
                    `no response within ${ms} ms (${o.what ?? "request"} timeout); the extension was sent a ` +
                    `cancel`,
                },
              },
              "timeout",
            ),
          ms,
        );
      }
      try {
        this.#sendText(requestFrameText(id, this.#o.instance.generation, request, o.context), "request", o.budgetMs);
      } catch (err) {
        settle({
          status: "error",
          error: { code: "frame_too_large", message: err instanceof Error ? err.message : String(err) },
        });
      }
    });
  }

  /** Every host frame is bounded like the extension's (RPI-35): refused before a byte is sent. */
  #send(frame: HostFrame, budgetMs?: number): void {
    this.#sendText(JSON.stringify(frame), frame.type, budgetMs);
  }

  #sendText(text: string, type: HostFrame["type"], budgetMs?: number): void {
    const bytes = utf8ByteLength(text);
    if (bytes > this.#max) {
      throw new Error(`the ${type} frame would be ${bytes} bytes, over the ${this.#max}-byte frame limit; not sent`);
    }
    this.#o.transport.send(text, budgetMs);
  }

  /**
   * Everything the extension sends. Never throws into the transport: an embedder callback that
   * throws is diagnosed, not allowed to take the host's event loop down.
   */
  #onEvent(event: RpiTransportEvent): void {
    try {
      this.#receive(event);
    } catch (err) {
      this.#safeDiagnose(
        "error",
        `handling a ${event.kind} from the extension failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  #safeDiagnose(level: DiagnosticLevel, message: string): void {
    try {
      this.#o.diagnose(level, message);
    } catch {
      // A diagnostic sink that throws has nowhere left to report to.
    }
  }

  #receive(event: RpiTransportEvent): void {
    // stderr first: the last lines before a crash or a violation are the ones worth keeping.
    if (event.kind === "stderr") return this.#o.onStderr?.(event.line);
    if (this.#violation !== null || this.#state === "closed") return;
    if (event.kind === "violation") return this.#protocolViolation(event.message);
    if (event.kind === "diagnostic") return this.#safeDiagnose("warning", event.message);
    let value = event.value;
    if (value === undefined) {
      const bytes = utf8ByteLength(event.text);
      if (bytes > this.#max)
        return this.#protocolViolation(`a frame of ${bytes} bytes is over the ${this.#max}-byte limit`);
      try {
        value = JSON.parse(event.text);
      } catch {
        return this.#protocolViolation(`a frame is not valid JSON: ${event.text.slice(0, 256)}`);
      }
    }
    // JSON.parse keeps the last of duplicate members: one reader could see another frame (RPI-37).
    const dup = duplicateTopLevelKeys(event.text);
    if (dup.length > 0)
      return this.#protocolViolation(
        `a ${String((value as { type?: unknown } | null)?.type)} frame has duplicate members ${JSON.stringify(dup)}`,
      );
    const generation = (value as { generation?: unknown } | null)?.generation;
    if (generation !== undefined && generation !== this.#o.instance.generation) {
      this.#safeDiagnose(
        "warning",
        `ignored a ${String((value as { type?: unknown }).type)} frame for generation ${JSON.stringify(generation)}; ` +
          `this instance is generation ${this.#o.instance.generation}`,
      );
      return;
    }
    const parsed = parseExtensionFrame(value);
    if (!parsed.ok) return this.#protocolViolation(parsed.problem);
    this.#onFrame(parsed.frame);
  }

  #onFrame(frame: ExtensionFrame): void {
    if (frame.type === "hello") {
      if (this.#hello !== null || this.#helloWaiter === null) return this.#protocolViolation("sent a second hello");
      const problem = this.#checkHello(frame.manifest);
      if (problem) return this.#protocolViolation(problem);
      // The load phase begins with the hello itself: a register in the same chunk belongs to it.
      this.#hello = frame.manifest;
      this.#state = "load";
      this.#helloWaiter(frame.manifest);
      this.#helloWaiter = null;
      return;
    }
    // A log line needs no answer and is welcome in any phase (bounded by the host's diagnostic rate).
    if (frame.type === "log") return this.#safeDiagnose(frame.level, `extension says: ${frame.message.slice(0, 1024)}`);
    if (this.#state === "handshake") return this.#protocolViolation(`sent a ${frame.type} frame before its hello`);
    switch (frame.type) {
      case "register":
      case "unregister":
        return this.#register(frame);
      case "response": {
        const p = this.#pending.get(frame.id);
        if (!p) return this.#unknownId("response", frame.id);
        // The load phase ends with initialize's answer, not a microtask later: a UI request in the
        // same chunk is already a ready-phase request.
        if (frame.id === this.#initId && frame.result.status === "success" && this.#state === "load")
          this.#state = "ready";
        return p.resolve(frame.result);
      }
      case "update": {
        const p = this.#pending.get(frame.id);
        if (!p) return this.#unknownId("update", frame.id);
        try {
          p.onUpdate?.(frame.value);
        } catch (err) {
          this.#safeDiagnose(
            "warning",
            `an update could not be passed on: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
        return;
      }
      case "request":
        return this.#extensionRequest(frame.id, frame.request);
      case "cancel":
        this.#extensionRequests.get(frame.id)?.abort();
        return;
    }
  }

  /** RPI-23: the hello must name this manifest's id and claim only what it grants. */
  #checkHello(m: HelloManifest): string | null {
    if (m.id !== this.#o.instance.extensionId)
      return `hello names extension "${m.id}", but pi-extension.json says "${this.#o.instance.extensionId}"`;
    const extra = m.capabilities.filter((c) => !this.#o.grants.capabilities.includes(c));
    if (extra.length > 0)
      return `hello claims capabilities ${JSON.stringify(extra)} that pi-extension.json does not grant (granted: ${JSON.stringify(this.#o.grants.capabilities)})`;
    const extraUi = m.uiCapabilities.filter((c) => !this.#o.grants.uiCapabilities.includes(c));
    if (extraUi.length > 0)
      return `hello claims uiCapabilities ${JSON.stringify(extraUi)} that pi-extension.json does not grant (granted: ${JSON.stringify(this.#o.grants.uiCapabilities)})`;
    return null;
  }

  #register(frame: Extract<ExtensionFrame, { type: "register" | "unregister" }>): void {
    if (this.#state !== "load") {
      this.#safeDiagnose(
        "warning",
        `ignored a ${frame.type} frame after initialize: the catalog is fixed once the load phase ends (register in ` +
          `the factory; a reload picks up a changed catalog)`,
      );
      return;
    }
    const r = frame.registration;
    const needs = r.kind === "tool" ? "tools" : r.kind === "command" ? "commands" : "event_hooks";
    if (!this.#hello!.capabilities.includes(needs))
      return this.#protocolViolation(`registered a ${r.kind} without the ${needs} capability`);
    if (frame.type === "unregister") {
      const name = (r as { name: string }).name;
      if (r.kind === "tool") this.#tools.delete(name);
      else if (r.kind === "command") this.#commands.delete(name);
      else this.#hooks.delete(resolveEventName(name)?.event ?? name);
      return;
    }
    const reg = frame.registration;
    if (reg.kind === "tool" && !this.#tools.has(reg.tool.name) && this.#tools.size >= bounds.MAX_TOOLS)
      return this.#protocolViolation(
        `registered more than ${bounds.MAX_TOOLS} tools ("${reg.tool.name}" is the ${bounds.MAX_TOOLS + 1}th)`,
      );
    if (reg.kind === "command" && !this.#commands.has(reg.command.name) && this.#commands.size >= bounds.MAX_COMMANDS)
      return this.#protocolViolation(
        `registered more than ${bounds.MAX_COMMANDS} commands ("${reg.command.name}" is the ` +
          `${bounds.MAX_COMMANDS + 1}th)`,
      );
    if (reg.kind === "tool") this.#tools.set(reg.tool.name, reg.tool);
    else if (reg.kind === "command") this.#commands.set(reg.command.name, reg.command);
    else {
      const resolved = resolveEventName(reg.hook.event);
      if (!resolved) return this.#safeDiagnose("warning", `ignored a hook for the unknown event "${reg.hook.event}"`);
      if (resolved.alias)
        this.#safeDiagnose(
          "info",
          `hook event "${reg.hook.event}" is an older name; it is delivered as "${resolved.event}"`,
        );
      this.#hooks.add(resolved.event);
    }
  }

  /** A UI request or session action from the extension (RPI-38, RPI-39, QJS-12). */
  #extensionRequest(id: string, request: ExtensionRequest): void {
    const answer = (result: ProtocolResult): void => {
      this.#extensionRequests.delete(id);
      if (this.#state === "closed") return;
      try {
        this.#send({ type: "response", id, result });
      } catch (err) {
        this.#send({
          type: "response",
          id,
          result: {
            status: "error",
            error: { code: "frame_too_large", message: err instanceof Error ? err.message : String(err) },
          },
        });
      }
    };
    // What the extension asked is said to the user too: pi's session and UI setters return
    // nothing, so an extension rarely awaits them and a refusal would otherwise leave no trace.
    const what = request.kind === "ui" ? `UI request "${request.ui.request.type}"` : `action "${request.action.kind}"`;
    // A flood of refusals (past MAX_EXTENSION_REQUESTS, say) is one line per window, not one per request.
    const denied = (message: string): void => {
      this.#warnings.warn(
        `refused ${what}: ${message}`,
        `refused the extension's ${what}: ${message}`,
        (n, s) => `refused the extension's ${what} ${times(n)} more in the last ${s} s: ${message}`,
      );
      answer({ status: "error", error: { code: "denied", message } });
    };
    if (this.#extensionRequests.has(id))
      return this.#protocolViolation(`reused request id "${id}" while it is outstanding`);
    if (this.#extensionRequests.size >= MAX_EXTENSION_REQUESTS)
      return denied(`more than ${MAX_EXTENSION_REQUESTS} requests outstanding; refused`);
    if (this.#state === "stopping") return denied("the extension is shutting down");
    const refusal = requestRefusal(request, this.#state === "load" ? "load" : "ready", this.#hello!, this.#o.grants);
    if (refusal) return denied(refusal);
    const handler = request.kind === "ui" ? this.#o.services?.ui : this.#o.services?.action;
    if (!handler)
      return denied(
        `the host cannot process ` +
          `${request.kind === "ui" ? `the UI request "${request.ui.request.type}"` : `the action "${request.action.kind}"`}: no service for it is bound`,
      );
    const controller = new AbortController();
    this.#extensionRequests.set(id, controller);
    const base = {
      signal: controller.signal,
      ...(request.parentId !== undefined && this.#pending.has(request.parentId)
        ? { parent: this.#pending.get(request.parentId)!.tag }
        : {}),
    };
    let run: Promise<unknown>;
    try {
      run = Promise.resolve(
        request.kind === "ui"
          ? handler.call(
              this.#o.services,
              request.ui.request as never,
              request.ui.timeoutMs !== undefined ? { ...base, timeoutMs: request.ui.timeoutMs } : base,
            )
          : (handler as NonNullable<RpiHostServices["action"]>).call(this.#o.services, request.action, base),
      );
    } catch (err) {
      run = Promise.reject(err);
    }
    run.then(
      (value) =>
        answer(controller.signal.aborted ? { status: "cancelled" } : { status: "success", value: value ?? null }),
      (err: unknown) => {
        if (controller.signal.aborted) return answer({ status: "cancelled" });
        const message = err instanceof Error ? err.message : String(err);
        this.#warnings.warn(
          `failed ${what}: ${message}`,
          `the extension's ${what} failed: ${message}`,
          (n, s) => `the extension's ${what} failed ${times(n)} more in the last ${s} s: ${message}`,
        );
        answer({ status: "error", error: { message } });
      },
    );
  }

  #unknownId(what: string, id: string): void {
    if (this.#answered.has(id)) return;
    const m = /^req-(\d+)-\d+$/.exec(id);
    if (m && Number(m[1]) !== this.#o.instance.generation) {
      this.#safeDiagnose(
        "warning",
        `ignored a ${what} for "${id}" of generation ${m[1]}; this instance is generation ` +
          `${this.#o.instance.generation}`,
      );
    } else {
      this.#safeDiagnose("warning", `ignored a ${what} for unknown request id "${id}"`);
    }
  }

  #protocolViolation(message: string): void {
    if (this.#violation !== null) return;
    this.#violation = message;
    this.#lastError = `protocol violation: ${message}`;
    this.#safeDiagnose("error", `protocol violation: ${message}; terminating the extension`);
    this.#fail?.(this.#lastError);
    void this.#o.transport.terminate(`protocol violation: ${message}`);
  }
}
