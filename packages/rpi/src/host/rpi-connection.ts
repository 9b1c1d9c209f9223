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
import { resolveEventName } from "../protocol/events.js";
import { duplicateTopLevelKeys, utf8ByteLength } from "@octet/protocol";
import { DEFAULT_MAX_FRAME_BYTES, PROTOCOL_VERSION, parseExtensionFrame } from "../protocol/frames.js";
import type {
  ExtensionFrame,
  HelloManifest,
  HostFrame,
  HostRequest,
  Invocation,
  ProtocolResult,
  ToolDescriptor,
} from "../protocol/frames.js";
import type { RpiExit, RpiTransportEvent } from "../transport.js";
import { RpiCatalog, type RegistrationFrame } from "./catalog.js";
import type {
  CancelSignal,
  DiagnosticLevel,
  InvokeOptions,
  RpiConnectionOptions,
  RpiHostServices,
  RpiState,
} from "./connection-types.js";
import { ExtensionRequests } from "./extension-requests.js";
import { ContextEncoder, requestFrameText } from "./invocation-context.js";
import { RequestTable, type RequestOptions } from "./request-table.js";
import { resolveTimeouts, type RpiTimeouts } from "./rpi-timeouts.js";

export { DEFAULT_RPI_TIMEOUTS, MAX_RPI_TIMEOUT_MS, resolveTimeouts, type RpiTimeouts } from "./rpi-timeouts.js";
export { LARGE_CONTEXT_BYTES } from "./invocation-context.js";
export type { CancelSignal, DiagnosticLevel, InvokeOptions, RpiConnectionOptions, RpiHostServices, RpiState };

export class RpiConnection {
  readonly timeouts: RpiTimeouts;
  readonly closed: Promise<RpiExit>;
  #state: RpiState = "handshake";
  #hello: HelloManifest | null = null;
  #lastError: string | null = null;
  readonly #o: RpiConnectionOptions;
  readonly #max: number;
  readonly #requests: RequestTable;
  readonly #extensionRequests: ExtensionRequests;
  readonly #catalog = new RpiCatalog((level, message) => this.#safeDiagnose(level, message));
  #helloWaiter: ((hello: HelloManifest) => void) | null = null;
  /** The initialize request's id: its successful answer ends the load phase at once. */
  #initId: string | null = null;
  #fail: ((message: string) => void) | null = null;
  #violation: string | null = null;
  readonly #contexts: ContextEncoder;
  /** The invocation context text of the last request frame sent (options.contextOnChange). */
  #lastContext: string | null = null;

  constructor(options: RpiConnectionOptions) {
    this.#o = options;
    this.timeouts = resolveTimeouts(options.timeouts);
    this.#max = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    const { cwd, mode, projectTrusted } = options;
    const warn = (message: string): void => this.#safeDiagnose("warning", message);
    this.#contexts = new ContextEncoder({ cwd, mode, projectTrusted, maxFrameBytes: this.#max, warn });
    this.#requests = new RequestTable(options.instance.generation, {
      request: (id, request, o) => {
        // Left out only once the same text went out in a sent frame (a refused frame sent nothing).
        const same = options.contextOnChange === true && o.context !== undefined && o.context === this.#lastContext;
        const context = same ? undefined : o.context;
        this.#sendText(requestFrameText(id, options.instance.generation, request, context), "request", o.budgetMs);
        if (o.context !== undefined) this.#lastContext = o.context;
      },
      cancel: (id) => this.#send({ type: "cancel", id }),
    });
    this.#extensionRequests = new ExtensionRequests({
      grants: options.grants,
      services: options.services,
      state: () => this.#state,
      hello: () => this.#hello!,
      parent: (id) => this.#requests.get(id),
      send: (frame) => this.#send(frame),
      warn,
      violation: (message) => this.#protocolViolation(message),
    });
    options.transport.onEvent((event) => this.#onEvent(event));
    this.closed = options.transport.exited.then((exit) => {
      this.#state = "closed";
      const final: RpiExit =
        this.#violation !== null ? { ...exit, code: "fatal", reason: `protocol violation: ${this.#violation}` } : exit;
      this.#lastError ??= final.reason;
      this.#fail?.(final.reason);
      this.#requests.closeAll(final.reason);
      this.#extensionRequests.close();
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
    return this.#catalog.tools();
  }
  commands(): { name: string; description?: string }[] {
    return this.#catalog.commands();
  }
  hooks(): string[] {
    return this.#catalog.hooks();
  }
  /** pi's shortcuts as registered (pi keys): the octet bridge maps and registers them. */
  shortcuts(): { key: string; description?: string }[] {
    return this.#catalog.shortcuts();
  }
  /** pi's registerProvider data (name and config), from the load. */
  providers(): { name: string; config: Record<string, unknown> }[] {
    return this.#catalog.providers();
  }
  /** The flags the extension registered (pi's registerFlag). */
  flags(): string[] {
    return this.#catalog.flags();
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
        ...(this.#o.flags !== undefined && Object.keys(this.#o.flags).length > 0
          ? { flags: { ...this.#o.flags } }
          : {}),
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
    const o: RequestOptions = { timeoutMs, budgetMs: timeoutMs, signal, onUpdate, tag, what };
    // Set, not spread into a copy: an object spread per call made young garbage look alive to
    // V8's scavenger (host tool-outcome.ts, outcomeOf).
    if (context !== undefined) o.context = context;
    return this.#request({ kind: "invoke", invocation }, o);
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
    const id = this.#requests.nextId();
    if (request.kind === "initialize") this.#initId = id;
    return this.#requests.open(id, request, o);
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
        const p = this.#requests.get(frame.id);
        if (!p) return this.#unknownId("response", frame.id);
        // The load phase ends with initialize's answer, not a microtask later: a UI request in the
        // same chunk is already a ready-phase request.
        if (frame.id === this.#initId && frame.result.status === "success" && this.#state === "load")
          this.#state = "ready";
        return p.resolve(frame.result);
      }
      case "update": {
        const p = this.#requests.get(frame.id);
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
        return this.#extensionRequests.handle(frame.id, frame.request);
      case "cancel":
        this.#extensionRequests.cancel(frame.id);
        return;
    }
  }

  /** RPI-23: the hello must name this manifest's id and claim only what it grants. */
  #checkHello(m: HelloManifest): string | null {
    if (m.id !== this.#o.instance.extensionId)
      return `hello names extension "${m.id}", but pi-extension.json says "${this.#o.instance.extensionId}"`;
    const extra = m.capabilities.filter((c) => !this.#o.grants.capabilities.includes(c));
    if (extra.length > 0)
      return (
        `hello claims capabilities ${JSON.stringify(extra)} that pi-extension.json does not grant (granted: ` +
        `${JSON.stringify(this.#o.grants.capabilities)})`
      );
    const extraUi = m.uiCapabilities.filter((c) => !this.#o.grants.uiCapabilities.includes(c));
    if (extraUi.length > 0)
      return (
        `hello claims uiCapabilities ${JSON.stringify(extraUi)} that pi-extension.json does not grant (granted: ` +
        `${JSON.stringify(this.#o.grants.uiCapabilities)})`
      );
    return null;
  }

  #register(frame: RegistrationFrame): void {
    const lateTool = this.#state === "ready" && frame.registration.kind === "tool" && this.#o.lateTools !== undefined;
    const r = frame.registration;
    const hook = frame.type === "register" && r.kind === "hook" && "hook" in r ? r.hook.event : null;
    const event = hook !== null ? (resolveEventName(hook)?.event ?? hook) : null;
    if (this.#state === "ready" && frame.type === "register" && event !== null && !this.#o.lateHooks?.accepts(event)) {
      this.#safeDiagnose(
        "warning",
        `ignored pi.on("${event}") after the load: octet subscribes an extension's hooks when it initializes, and ` +
          "only the events the session layer delivers itself can be added later (a reload picks it up)",
      );
      return;
    }
    const lateHook = this.#state === "ready" && event !== null;
    if (this.#state !== "load" && !lateTool && !lateHook) {
      this.#safeDiagnose(
        "warning",
        `ignored a ${frame.type} frame after initialize: the catalog is fixed once the load phase ends (register in ` +
          `the factory; a reload picks up a changed catalog)`,
      );
      return;
    }
    const violation = this.#catalog.apply(frame, this.#hello!.capabilities);
    if (violation !== null) return this.#protocolViolation(violation);
    if (lateTool) this.#o.lateTools?.changed();
  }

  #unknownId(what: string, id: string): void {
    if (this.#requests.wasGivenUp(id)) return;
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
