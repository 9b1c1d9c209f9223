/**
 * What the main thread and a QuickJS worker exchange: the worker's start data, the messages in
 * both directions, and the layout of the shared status words the main-thread watchdog reads.
 * Both sides import this module; it holds types and constants only.
 */
import type { WasmModule } from "./wasm.js";

/** The sandbox settings a worker starts with (QuickJsOptions after defaults and checks). */
export interface SandboxSettings {
  entry: string;
  packageDir: string;
  prelude: string;
  env: Record<string, string>;
  maxFrameBytes: number;
  memoryLimitBytes: number;
  maxStackBytes: number;
  interruptAfterMs: number;
  /** Budget of the load: the prelude, the entry (its top-level await included) and the factory hand-off. */
  loadBudgetMs: number;
  /** Outbound frame bytes per instance per second (a fixed 1 s window). */
  maxOutboundBytesPerSecond: number;
  /** Outbound frames per instance per second (the same window). */
  maxOutboundFramesPerSecond: number;
  /** The entry module's text when it is a bundle (load/bundle.ts): evaluated in place of reading `entry`. */
  source?: string;
  /** The bundle's source map: positions in the worker's messages are shown in the extension's files. */
  sourceMap?: string;
}

export interface WorkerStart {
  settings: SandboxSettings;
  /** The QuickJS wasm, compiled once per process by the main thread. */
  wasmModule: WasmModule;
  /** STATUS_WORDS Int32 words, see the STATUS_* indexes. */
  status: SharedArrayBuffer;
}

/** A frame's `budgetMs` replaces interruptAfterMs for the VM entry that delivers it and drains its jobs. */
export type ToWorker = { kind: "frame"; text: string; budgetMs?: number } | { kind: "stop" };

/**
 * What one postMessage carries: one message, or several in order. Each side batches what it
 * produces in one synchronous run (flushed from a microtask, so no event-loop turn is added): a
 * postMessage costs tens of microseconds of CPU, and with 64 calls in flight a run produces many.
 */
export type Batch<T> = T | { kind: "batch"; messages: T[] };

/** The codes a worker announces before it ends itself (the others are decided by the main thread). */
export type WorkerExitCode = "exited" | "fatal" | "runaway" | "memory";

export type FromWorker =
  | { kind: "frame"; text: string }
  | { kind: "stderr"; line: string }
  /** A refusal the user should hear of (frames past the outbound rate); the instance keeps serving. */
  | { kind: "diagnostic"; message: string }
  /** The worker is about to end itself (a failed load included), and why. */
  | { kind: "exit"; code: WorkerExitCode; reason: string };

/** Incremented by the worker each time it enters the VM, so the watchdog tells entries apart. */
export const STATUS_ENTRY_SEQ = 0;
/** 1 while the worker is inside a VM entry (prelude, entry module, a frame, a timer, jobs). */
export const STATUS_IN_VM = 1;
/** The instance's wasm memory size in 64 KiB pages. */
export const STATUS_WASM_PAGES = 2;
/** 1 once the worker has freed its context and runtime (a normal stop). */
export const STATUS_FREED = 3;
/** The budget in ms of the current VM entry (written before STATUS_IN_VM is set). */
export const STATUS_BUDGET_MS = 4;
/** Batches the main thread has handled (incremented and notified after each one). */
export const STATUS_BATCHES_HANDLED = 5;
export const STATUS_WORDS = 6;

/**
 * Flow control of the worker's messages to the main thread (issue 13a). A batch is flushed
 * when it holds this many messages or UTF-16 units of text, so one synchronous run never
 * becomes one message the main thread must swallow whole; and past MAX_BATCHES_IN_FLIGHT
 * batches the main thread has not handled yet the worker waits (Atomics.wait on
 * STATUS_BATCHES_HANDLED), inside the VM call that sent the frame. So an extension's flood
 * goes at the pace the host handles it, like a child writing into a full pipe, and at most
 * MAX_BATCHES_IN_FLIGHT x MAX_BATCH_UNITS of it is ever queued in the host.
 */
export const MAX_BATCH_MESSAGES = 128;
export const MAX_BATCH_UNITS = 128 * 1024;
export const MAX_BATCHES_IN_FLIGHT = 2;

/** The largest budget a status word holds (about 24.8 days); longer budgets are clamped to it. */
export const MAX_BUDGET_MS = 2 ** 31 - 1;

export const WASM_PAGE_BYTES = 65536;
