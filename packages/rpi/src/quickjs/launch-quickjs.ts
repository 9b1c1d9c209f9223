/**
 * The main-thread side of a QuickJS extension instance: launchQuickJs starts one worker thread
 * per instance (worker.ts) and returns the RpiTransport the host connection speaks rpi frames
 * over. It also owns what only the main thread can do: compiling the QuickJS wasm once per
 * process (workers instantiate the compiled Module, so a cold start costs no compile) and the
 * wall-clock watchdog that kills a worker whose VM entry does not return.
 *
 * Contract: launchQuickJs resolves once the worker has loaded the prelude and the entry, and
 * rejects with an Error naming the cause when it did not (the worker has then exited). The
 * watchdog reads the worker's shared status words (channel.ts): an entry in the VM longer than
 * interruptAfterMs + watchdogGraceMs -- which the interrupt handler would have ended -- means a
 * builtin that never polls it, or a blocked thread, and the worker is terminated ("watchdog").
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { DEFAULT_MAX_FRAME_BYTES } from "../protocol/frames.js";
import type { RpiExit, RpiTransport, RpiTransportEvent } from "../transport.js";
import { wasm, type WasmModule } from "./wasm.js";
import { STATUS_ENTRY_SEQ, STATUS_FREED, STATUS_IN_VM, STATUS_WASM_PAGES, STATUS_WORDS, WASM_PAGE_BYTES, type FromWorker, type SandboxSettings, type ToWorker, type WorkerStart } from "./channel.js";

export interface QuickJsOptions {
  /** Canonical absolute path of the .js/.mjs entry. */
  entry: string;
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
  /** Bytecode budget of one VM entry (a frame, a timer, the jobs they queue), default 60_000. */
  interruptAfterMs?: number;
  /** Default 1000: past interruptAfterMs + this the worker is terminated. */
  watchdogGraceMs?: number;
}

export const DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
export const MAX_STACK_BYTES = 256 * 1024;
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

function positive(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`QuickJsOptions.${name} must be a positive number (got ${String(value)})`);
  return v;
}

function settingsOf(o: QuickJsOptions): SandboxSettings {
  const maxFrameBytes = positive("maxFrameBytes", o.maxFrameBytes, DEFAULT_MAX_FRAME_BYTES);
  const memoryLimitBytes = positive("memoryLimitBytes", o.memoryLimitBytes, DEFAULT_MEMORY_LIMIT_BYTES);
  const maxStackBytes = positive("maxStackBytes", o.maxStackBytes, MAX_STACK_BYTES);
  const interruptAfterMs = positive("interruptAfterMs", o.interruptAfterMs, 60_000);
  if (!Number.isInteger(maxFrameBytes)) throw new RangeError(`QuickJsOptions.maxFrameBytes must be an integer (got ${maxFrameBytes})`);
  if (!Number.isInteger(maxStackBytes) || maxStackBytes > MAX_STACK_BYTES) throw new RangeError(`QuickJsOptions.maxStackBytes must be an integer of at most ${MAX_STACK_BYTES} bytes (256 KiB) (got ${maxStackBytes})`);
  if (memoryLimitBytes % WASM_PAGE_BYTES !== 0 || memoryLimitBytes < MIN_MEMORY_BYTES || memoryLimitBytes > MAX_MEMORY_BYTES) {
    throw new RangeError(`QuickJsOptions.memoryLimitBytes must be a multiple of 64 KiB between 16 MiB and 1 GiB (got ${memoryLimitBytes})`);
  }
  for (const [k, v] of Object.entries(o.env)) if (typeof v !== "string") throw new TypeError(`QuickJsOptions.env.${k} must be a string`);
  return { entry: o.entry, packageDir: o.packageDir, prelude: o.prelude, env: { ...o.env }, maxFrameBytes, memoryLimitBytes, maxStackBytes, interruptAfterMs };
}

/** Starts one QuickJS extension instance on its own worker thread (QJS-14). */
export async function launchQuickJs(options: QuickJsOptions): Promise<RpiTransport> {
  const settings = settingsOf(options);
  const graceMs = positive("watchdogGraceMs", options.watchdogGraceMs, 1000);
  const wasmModule = await quickJsWasm();
  const status = new SharedArrayBuffer(STATUS_WORDS * Int32Array.BYTES_PER_ELEMENT);
  const start: WorkerStart = { settings, wasmModule, status };
  const worker = new Worker(new URL("./worker.js", import.meta.url), {
    workerData: start,
    name: `octet quickjs ${settings.entry}`,
    stdout: true,
    stderr: true,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_OLD_GENERATION_MB },
  });
  const transport = new QuickJsTransport(worker, new Int32Array(status), settings.interruptAfterMs, graceMs);
  await transport.started;
  return transport;
}

class QuickJsTransport implements RpiTransport {
  readonly pid = null;
  readonly started: Promise<void>;
  readonly exited: Promise<RpiExit>;
  private resolveStarted!: () => void;
  private rejectStarted!: (error: Error) => void;
  private resolveExited!: (exit: RpiExit) => void;
  private readonly listeners: ((event: RpiTransportEvent) => void)[] = [];
  private readonly buffered: RpiTransportEvent[] = [];
  private gone = false;
  private loadFailure: string | null = null;
  private announced: RpiExit | null = null;
  private workerError: Error | null = null;
  private terminateReason: string | null = null;
  private watchdogReason: string | null = null;
  private watchedSeq = -1;
  private watchedSince = 0;
  private readonly watchdog: NodeJS.Timeout;

  constructor(
    private readonly worker: Worker,
    private readonly status: Int32Array,
    private readonly budgetMs: number,
    private readonly graceMs: number,
  ) {
    this.started = new Promise<void>((resolve, reject) => {
      this.resolveStarted = resolve;
      this.rejectStarted = reject;
    });
    this.started.catch(() => {});
    this.exited = new Promise<RpiExit>((resolve) => {
      this.resolveExited = resolve;
    });
    worker.on("message", (m: FromWorker) => this.onMessage(m));
    worker.on("error", (error: Error) => {
      this.workerError = error;
    });
    worker.on("exit", (code: number) => this.onExit(code));
    this.pipeLines(worker.stdout);
    this.pipeLines(worker.stderr);
    this.watchdog = setInterval(() => this.tick(), Math.min(250, Math.max(10, graceMs / 4)));
    this.watchdog.unref();
  }

  send(text: string): void {
    if (this.gone) return;
    const message: ToWorker = { kind: "frame", text };
    this.worker.postMessage(message);
  }

  onEvent(listener: (event: RpiTransportEvent) => void): void {
    this.listeners.push(listener);
    if (this.listeners.length === 1) for (const event of this.buffered.splice(0)) listener(event);
  }

  terminate(reason: string): Promise<void> {
    const done = this.exited.then(() => undefined);
    if (this.gone || this.terminateReason !== null) return done;
    this.terminateReason = reason;
    // A worker between entries frees its runtime and exits; one stuck in the VM is killed.
    const stop: ToWorker = { kind: "stop" };
    this.worker.postMessage(stop);
    const hard = setTimeout(() => void this.worker.terminate(), this.graceMs);
    void done.then(() => clearTimeout(hard));
    return done;
  }

  /** Whether the worker freed its QuickJS context and runtime before it exited (a stop between entries). */
  get runtimeFreed(): boolean {
    return Atomics.load(this.status, STATUS_FREED) === 1;
  }

  stats(): { wasmMemoryBytes: number } | null {
    const pages = Atomics.load(this.status, STATUS_WASM_PAGES);
    return pages === 0 ? null : { wasmMemoryBytes: pages * WASM_PAGE_BYTES };
  }

  private emit(event: RpiTransportEvent): void {
    if (this.listeners.length === 0) this.buffered.push(event);
    else for (const l of this.listeners) l(event);
  }

  private onMessage(m: FromWorker): void {
    switch (m.kind) {
      case "frame":
        this.emit({ kind: "frame", text: m.text });
        break;
      case "stderr":
        this.emit({ kind: "stderr", line: m.line.length > STDERR_LINE_CHARS ? `${m.line.slice(0, STDERR_LINE_CHARS)}...` : m.line });
        break;
      case "ready":
        this.resolveStarted();
        break;
      case "failed":
        this.loadFailure = m.message;
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
    if (this.gone || this.watchdogReason !== null) return;
    if (Atomics.load(this.status, STATUS_IN_VM) !== 1) {
      this.watchedSeq = -1;
      return;
    }
    const seq = Atomics.load(this.status, STATUS_ENTRY_SEQ);
    const now = performance.now();
    if (seq !== this.watchedSeq) {
      this.watchedSeq = seq;
      this.watchedSince = now;
      return;
    }
    if (now - this.watchedSince > this.budgetMs + this.graceMs) {
      this.watchdogReason = `a VM entry did not return within its ${this.budgetMs} ms budget plus ${this.graceMs} ms grace (a builtin that never polls the interrupt handler, or a blocked thread); the worker was terminated`;
      void this.worker.terminate();
    }
  }

  private exitOf(code: number): RpiExit {
    if (this.watchdogReason !== null) return { code: "watchdog", reason: this.watchdogReason };
    if (this.announced !== null) return this.announced;
    if (this.loadFailure !== null) return { code: "fatal", reason: this.loadFailure };
    if (this.workerError !== null) {
      const e = this.workerError as Error & { code?: string };
      if (e.code === "ERR_WORKER_OUT_OF_MEMORY") return { code: "memory", reason: `the QuickJS worker ran out of its ${WORKER_OLD_GENERATION_MB} MiB JavaScript heap: ${e.message}` };
      return { code: "fatal", reason: `the QuickJS worker failed: ${e.stack ?? e.message}` };
    }
    if (this.terminateReason !== null) return { code: "terminated", reason: this.terminateReason };
    return code === 0 ? { code: "exited", reason: "the QuickJS worker ended" } : { code: "fatal", reason: `the QuickJS worker exited with code ${code}` };
  }

  private onExit(code: number): void {
    this.gone = true;
    clearInterval(this.watchdog);
    const exit = this.exitOf(code);
    this.rejectStarted(new Error(this.loadFailure ?? `the QuickJS extension did not start: ${exit.reason}`));
    this.resolveExited(exit);
  }
}
