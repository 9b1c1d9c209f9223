/**
 * The main-thread side of a QuickJS extension instance: launchQuickJs starts one worker thread
 * per instance (worker.ts) and returns the RpiTransport the host connection speaks rpi frames
 * over. It also owns what only the main thread can do: compiling the QuickJS wasm once per
 * process (workers instantiate the compiled Module, so a cold start costs no compile) and the
 * wall-clock watchdog that kills a worker whose VM entry does not return.
 *
 * Contract: launchQuickJs rejects only for invalid options; otherwise it resolves as soon as the
 * worker thread runs (or has already ended: `exited` then says why), so the caller can terminate
 * the instance from then on. The worker then loads the prelude and the entry; host frames sent
 * meanwhile are queued and delivered in order after the factory hand-off, so the prelude answers
 * the host's hello only once the extension loaded, and the host's handshake timeout bounds a load
 * that hangs. A load that fails (the entry throws, does not parse, its top-level await rejects or
 * does not settle within loadBudgetMs, the prelude fails) emits a `stderr` event with the VM stack,
 * then `exited` resolves with {code: "fatal", reason: "the entry failed to load: <Name: message>"}
 * (or the prelude's failure). Runaway and memory during the load end as they do later.
 *
 * The watchdog reads the worker's shared status words (channel.ts): an entry in the VM longer than
 * its budget (published by the worker: loadBudgetMs, the frame's budgetMs, or interruptAfterMs)
 * plus watchdogGraceMs -- which the interrupt handler would have ended -- means a builtin that
 * never polls it, or a blocked thread, and the worker is terminated ("watchdog").
 *
 * Events produced before the first listener is attached are buffered, at most
 * MAX_BUFFERED_EVENTS events or MAX_BUFFERED_BYTES bytes; past that the instance is terminated as
 * "fatal" (an extension must not fill the host's heap through a transport nobody reads).
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { DEFAULT_MAX_FRAME_BYTES } from "../protocol/frames.js";
import type { RpiExit, RpiTransport, RpiTransportEvent } from "../transport.js";
import { wasm, type WasmModule } from "./wasm.js";
import {
  MAX_BUDGET_MS,
  STATUS_BATCHES_HANDLED,
  STATUS_BUDGET_MS,
  STATUS_ENTRY_SEQ,
  STATUS_FREED,
  STATUS_IN_VM,
  STATUS_WASM_PAGES,
  STATUS_WORDS,
  WASM_PAGE_BYTES,
  type Batch,
  type FromWorker,
  type SandboxSettings,
  type ToWorker,
  type WorkerStart,
} from "./channel.js";

export interface QuickJsOptions {
  /** Canonical absolute path of the .js/.mjs entry (of the bundle's entry file when `source` is given). */
  entry: string;
  /**
   * The entry module's text, a bundle with no relative imports (bundlePiExtension): evaluated
   * under the name `entry` instead of reading the file; its bare imports still meet the module loader.
   */
  source?: string;
  /** The bundle's source map: stack positions in stderr lines and exit reasons name the source files. */
  sourceMap?: string;
  /** Canonical package directory; every module must stay inside it. */
  packageDir: string;
  /** The prelude source: a global script whose completion value is the bridge. */
  prelude: string;
  /** PI_EXTENSION_* values, exposed to the prelude as __octet_host.env. */
  env: Record<string, string>;
  /** Default 1 MiB (1048576). */
  maxFrameBytes?: number;
  /** Default 64 MiB; a multiple of 64 KiB, at least 16 MiB (the QuickJS build's initial heap). */
  memoryLimitBytes?: number;
  /** Default 256 KiB; at most 256 KiB. */
  maxStackBytes?: number;
  /**
   * Bytecode budget of one VM entry (a frame sent without a budget, a timer, the jobs they queue),
   * default 60_000. A frame sent with `send(text, budgetMs)` gets budgetMs when it is shorter.
   */
  interruptAfterMs?: number;
  /**
   * Budget of the load, default 10_000 (the rpi load timeout): each VM entry of the prelude, the
   * entry module and the factory hand-off, and the wall time a top-level await has to settle.
   */
  loadBudgetMs?: number;
  /** Default 1000: past an entry's budget + this the worker is terminated. */
  watchdogGraceMs?: number;
  /**
   * Outbound frame bytes per instance per second, default 64 MiB (67108864), in a fixed 1 s
   * window; past it `__octet_host.send` throws a RangeError inside the VM naming the rate.
   */
  maxOutboundBytesPerSecond?: number;
  /**
   * Outbound frames per instance per second, default 20,000, in the same window; past it
   * `__octet_host.send` throws a RangeError naming the rate. Every frame costs the host a parse
   * and a dispatch whatever its size: a million small updates must not occupy it for seconds.
   */
  maxOutboundFramesPerSecond?: number;
}

export const DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
export const MAX_STACK_BYTES = 256 * 1024;
export const DEFAULT_LOAD_BUDGET_MS = 10_000;
export const DEFAULT_MAX_OUTBOUND_BYTES_PER_SECOND = 64 * 1024 * 1024;
export const DEFAULT_MAX_OUTBOUND_FRAMES_PER_SECOND = 20_000;
/** Events buffered before the first listener: past either bound the instance is terminated. */
export const MAX_BUFFERED_EVENTS = 1024;
export const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
const MIN_MEMORY_BYTES = 16 * 1024 * 1024;
const MAX_MEMORY_BYTES = 1024 * 1024 * 1024;
/** The worker's own JavaScript heap (glue and frame copies; the wasm heap is separate). */
const WORKER_OLD_GENERATION_MB = 256;
const STDERR_LINE_CHARS = 8192;

let compiled: Promise<WasmModule> | null = null;

/** The QuickJS wasm, compiled once per process and shared with every worker. */
function quickJsWasm(): Promise<WasmModule> {
  if (compiled === null) {
    const path = createRequire(import.meta.url).resolve("@jitl/quickjs-wasmfile-release-sync/wasm");
    compiled = readFile(path).then((bytes) => wasm.compile(bytes));
    compiled.catch(() => {
      compiled = null;
    });
  }
  return compiled;
}

let entryUrl: URL | null = null;

/**
 * The worker thread's entry: the one-file bundle of worker.js that the build writes beside it
 * (scripts/bundle.mjs), which loads in one module instead of a dozen; worker.js itself when the
 * bundle is absent (a tsc-only build), so a checkout that skipped the bundler still runs.
 */
function workerEntry(): URL {
  if (entryUrl === null) {
    const bundled = new URL("./worker-bundle.js", import.meta.url);
    entryUrl = existsSync(bundled) ? bundled : new URL("./worker.js", import.meta.url);
  }
  return entryUrl;
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0)
    throw new RangeError(`QuickJsOptions.${name} must be a positive number (got ${String(value)})`);
  return v;
}

function settingsOf(o: QuickJsOptions): SandboxSettings {
  const maxFrameBytes = positive("maxFrameBytes", o.maxFrameBytes, DEFAULT_MAX_FRAME_BYTES);
  const memoryLimitBytes = positive("memoryLimitBytes", o.memoryLimitBytes, DEFAULT_MEMORY_LIMIT_BYTES);
  const maxStackBytes = positive("maxStackBytes", o.maxStackBytes, MAX_STACK_BYTES);
  const interruptAfterMs = positive("interruptAfterMs", o.interruptAfterMs, 60_000);
  const loadBudgetMs = positive("loadBudgetMs", o.loadBudgetMs, DEFAULT_LOAD_BUDGET_MS);
  const maxOutboundBytesPerSecond = positive(
    "maxOutboundBytesPerSecond",
    o.maxOutboundBytesPerSecond,
    DEFAULT_MAX_OUTBOUND_BYTES_PER_SECOND,
  );
  const maxOutboundFramesPerSecond = positive(
    "maxOutboundFramesPerSecond",
    o.maxOutboundFramesPerSecond,
    DEFAULT_MAX_OUTBOUND_FRAMES_PER_SECOND,
  );
  if (!Number.isInteger(maxOutboundFramesPerSecond))
    throw new RangeError(
      `QuickJsOptions.maxOutboundFramesPerSecond must be an integer (got ${maxOutboundFramesPerSecond})`,
    );
  if (!Number.isInteger(maxOutboundBytesPerSecond))
    throw new RangeError(
      `QuickJsOptions.maxOutboundBytesPerSecond must be an integer (got ${maxOutboundBytesPerSecond})`,
    );
  if (!Number.isInteger(maxFrameBytes))
    throw new RangeError(`QuickJsOptions.maxFrameBytes must be an integer (got ${maxFrameBytes})`);
  if (!Number.isInteger(maxStackBytes) || maxStackBytes > MAX_STACK_BYTES)
    throw new RangeError(
      `QuickJsOptions.maxStackBytes must be an integer of at most ${MAX_STACK_BYTES} bytes (256 KiB) (got ` +
        `${maxStackBytes})`,
    );
  if (
    memoryLimitBytes % WASM_PAGE_BYTES !== 0 ||
    memoryLimitBytes < MIN_MEMORY_BYTES ||
    memoryLimitBytes > MAX_MEMORY_BYTES
  ) {
    throw new RangeError(
      `QuickJsOptions.memoryLimitBytes must be a multiple of 64 KiB between 16 MiB and 1 GiB (got ${memoryLimitBytes})`,
    );
  }
  for (const [k, v] of Object.entries(o.env))
    if (typeof v !== "string") throw new TypeError(`QuickJsOptions.env.${k} must be a string`);
  return {
    entry: o.entry,
    packageDir: o.packageDir,
    prelude: o.prelude,
    env: { ...o.env },
    maxFrameBytes,
    memoryLimitBytes,
    maxStackBytes,
    interruptAfterMs,
    loadBudgetMs,
    maxOutboundBytesPerSecond,
    maxOutboundFramesPerSecond,
    ...(o.source !== undefined ? { source: o.source } : {}),
    ...(o.sourceMap !== undefined ? { sourceMap: o.sourceMap } : {}),
  };
}

/** Starts one QuickJS extension instance on its own worker thread (QJS-14); see the module contract. */
export async function launchQuickJs(options: QuickJsOptions): Promise<RpiTransport> {
  const settings = settingsOf(options);
  const graceMs = positive("watchdogGraceMs", options.watchdogGraceMs, 1000);
  const wasmModule = await quickJsWasm();
  const status = new SharedArrayBuffer(STATUS_WORDS * Int32Array.BYTES_PER_ELEMENT);
  const start: WorkerStart = { settings, wasmModule, status };
  const worker = new Worker(workerEntry(), {
    workerData: start,
    name: `octet quickjs ${settings.entry}`,
    stdout: true,
    stderr: true,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
  });
  const transport = new QuickJsTransport(worker, new Int32Array(status), graceMs, settings.interruptAfterMs);
  await new Promise<void>((resolve) => {
    worker.once("online", () => resolve());
    void transport.exited.then(() => resolve());
  });
  return transport;
}

class QuickJsTransport implements RpiTransport {
  readonly pid = null;
  readonly exited: Promise<RpiExit>;
  private resolveExited!: (exit: RpiExit) => void;
  private readonly listeners: ((event: RpiTransportEvent) => void)[] = [];
  private outbox: ToWorker[] = [];
  private flushScheduled = false;
  private buffered: RpiTransportEvent[] = [];
  private bufferedBytes = 0;
  private gone = false;
  private announced: RpiExit | null = null;
  private workerError: Error | null = null;
  private terminateReason: string | null = null;
  /** An end the main thread decided (the watchdog, the event buffer's bound); the first one wins. */
  private decided: RpiExit | null = null;
  private watchedSeq = -1;
  private watchedSince = 0;
  private watchedBudget = 0;
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    private readonly worker: Worker,
    private readonly status: Int32Array,
    private readonly graceMs: number,
    /** interruptAfterMs: also the ceiling of a frame's budget (the embedder's cap wins over a longer timeout). */
    private readonly ceilingMs: number,
  ) {
    this.exited = new Promise<RpiExit>((resolve) => {
      this.resolveExited = resolve;
    });
    worker.on("message", (m: Batch<FromWorker>) => this.onBatch(m));
    worker.on("error", (error: Error) => {
      this.workerError = error;
    });
    worker.on("exit", (code: number) => this.onExit(code));
    this.pipeLines(worker.stdout);
    this.pipeLines(worker.stderr);
    this.watchdog = setInterval(() => this.tick(), Math.min(250, Math.max(10, graceMs / 4)));
    this.watchdog.unref();
  }

  /**
   * `budgetMs` (a positive number of ms, at most interruptAfterMs) is the budget of the VM entry that
   * delivers this frame.
   */
  send(text: string, budgetMs?: number): void {
    if (budgetMs !== undefined && !(Number.isFinite(budgetMs) && budgetMs > 0))
      throw new RangeError(
        `RpiTransport.send: budgetMs must be a positive number of milliseconds (got ${String(budgetMs)})`,
      );
    if (this.gone) return;
    const message: ToWorker =
      budgetMs === undefined
        ? { kind: "frame", text }
        : { kind: "frame", text, budgetMs: Math.min(budgetMs, this.ceilingMs, MAX_BUDGET_MS) };
    this.outbox.push(message);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** The messages of this synchronous run as one postMessage (see Batch in channel.ts). */
  private flush(): void {
    this.flushScheduled = false;
    if (this.outbox.length === 0 || this.gone) return;
    const messages = this.outbox;
    this.outbox = [];
    const batch: Batch<ToWorker> = messages.length === 1 ? messages[0]! : { kind: "batch", messages };
    this.worker.postMessage(batch);
  }

  onEvent(listener: (event: RpiTransportEvent) => void): void {
    this.listeners.push(listener);
    if (this.listeners.length !== 1) return;
    const events = this.buffered;
    this.buffered = [];
    this.bufferedBytes = 0;
    for (const event of events) listener(event);
  }

  terminate(reason: string): Promise<void> {
    const done = this.exited.then(() => undefined);
    if (this.gone || this.terminateReason !== null) return done;
    this.terminateReason = reason;
    // A worker between entries frees its runtime and exits; one stuck in the VM is killed.
    // Behind the frames already sent: the prelude sees a shutdown frame before the stop.
    this.outbox.push({ kind: "stop" });
    this.flush();
    const hard = setTimeout(() => void this.worker.terminate(), this.graceMs);
    void done.then(() => clearTimeout(hard));
    return done;
  }

  /** Whether the worker freed its QuickJS context and runtime before it exited (a stop between entries). */
  get runtimeFreed(): boolean {
    return Atomics.load(this.status, STATUS_FREED) === 1;
  }

  /** Events waiting for the first listener (not part of RpiTransport). */
  get bufferedEvents(): number {
    return this.buffered.length;
  }

  stats(): { wasmMemoryBytes: number } | null {
    const pages = Atomics.load(this.status, STATUS_WASM_PAGES);
    return pages === 0 ? null : { wasmMemoryBytes: pages * WASM_PAGE_BYTES };
  }

  private emit(event: RpiTransportEvent): void {
    if (this.listeners.length > 0) {
      for (const l of this.listeners) l(event);
      return;
    }
    if (this.decided?.code === "fatal") return;
    this.buffered.push(event);
    this.bufferedBytes += Buffer.byteLength(
      event.kind === "frame" ? event.text : event.kind === "stderr" ? event.line : event.message,
      "utf8",
    );
    if (this.buffered.length <= MAX_BUFFERED_EVENTS && this.bufferedBytes <= MAX_BUFFERED_BYTES) return;
    const reason =
      `${this.buffered.length} events of ${this.bufferedBytes} bytes were buffered with no listener ` +
      `attached, past the limit of ${MAX_BUFFERED_EVENTS} events or ${MAX_BUFFERED_BYTES} bytes (8 MiB); the ` +
      `instance was terminated`;
    this.buffered = [];
    this.bufferedBytes = 0;
    this.end({ code: "fatal", reason });
  }

  /** Kills the worker for a reason the main thread decided; the first decision is the one reported. */
  private end(exit: RpiExit): void {
    if (this.gone || this.decided !== null) return;
    this.decided = exit;
    void this.worker.terminate();
  }

  /**
   * One batch, handled to the end (listeners included); the worker may send another only after
   * this thread's event loop has turned (channel.ts). Why not at once: Node delivers every
   * message already queued on a port (up to 1000) in one go, so a worker answered at once keeps
   * the queue full and the host's timers and I/O starve behind the flood.
   */
  private onBatch(batch: Batch<FromWorker>): void {
    try {
      if (batch.kind !== "batch") return this.onMessage(batch);
      for (const m of batch.messages) this.onMessage(m);
    } finally {
      setImmediate(() => {
        Atomics.add(this.status, STATUS_BATCHES_HANDLED, 1);
        Atomics.notify(this.status, STATUS_BATCHES_HANDLED);
      });
    }
  }

  private onMessage(m: FromWorker): void {
    switch (m.kind) {
      case "frame":
        this.emit({ kind: "frame", text: m.text });
        break;
      case "stderr":
        this.emit({
          kind: "stderr",
          line: m.line.length > STDERR_LINE_CHARS ? `${m.line.slice(0, STDERR_LINE_CHARS)}...` : m.line,
        });
        break;
      case "diagnostic":
        this.emit({ kind: "diagnostic", message: m.message });
        break;
      case "exit":
        this.announced = { code: m.code, reason: m.reason };
        break;
    }
  }

  /** Lines the worker's own stdout/stderr carry (emscripten or library output) become stderr events. */
  private pipeLines(stream: NodeJS.ReadableStream): void {
    let pending = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const lines = (pending + chunk).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) this.emit({ kind: "stderr", line: line.slice(0, STDERR_LINE_CHARS) });
    });
    stream.on("end", () => {
      if (pending !== "") this.emit({ kind: "stderr", line: pending.slice(0, STDERR_LINE_CHARS) });
      pending = "";
    });
  }

  private tick(): void {
    if (this.gone || this.decided !== null) return;
    if (Atomics.load(this.status, STATUS_IN_VM) !== 1) {
      this.watchedSeq = -1;
      return;
    }
    const seq = Atomics.load(this.status, STATUS_ENTRY_SEQ);
    const now = performance.now();
    if (seq !== this.watchedSeq) {
      this.watchedSeq = seq;
      this.watchedSince = now;
      this.watchedBudget = Atomics.load(this.status, STATUS_BUDGET_MS);
      return;
    }
    if (now - this.watchedSince > this.watchedBudget + this.graceMs) {
      this.end({
        code: "watchdog",
        reason:
          `a VM entry did not return within its ${this.watchedBudget} ms budget plus ${this.graceMs} ms grace ` +
          `(a builtin that never polls the interrupt handler, or a blocked thread); the worker was terminated`,
      });
    }
  }

  private exitOf(code: number): RpiExit {
    if (this.decided !== null) return this.decided;
    if (this.announced !== null) return this.announced;
    if (this.workerError !== null) {
      const e = this.workerError as Error & { code?: string };
      if (e.code === "ERR_WORKER_OUT_OF_MEMORY")
        return {
          code: "memory",
          reason: `the QuickJS worker ran out of its ${WORKER_OLD_GENERATION_MB} MiB JavaScript heap: ${e.message}`,
        };
      return { code: "fatal", reason: `the QuickJS worker failed: ${e.stack ?? e.message}` };
    }
    if (this.terminateReason !== null) return { code: "terminated", reason: this.terminateReason };
    return code === 0
      ? { code: "exited", reason: "the QuickJS worker ended" }
      : { code: "fatal", reason: `the QuickJS worker exited with code ${code}` };
  }

  private onExit(code: number): void {
    this.gone = true;
    clearInterval(this.watchdog);
    this.resolveExited(this.exitOf(code));
  }
}
