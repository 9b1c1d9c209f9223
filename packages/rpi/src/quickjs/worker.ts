/**
 * The entry of a QuickJS worker thread: one extension instance per thread (QJS-14). It builds
 * the Sandbox, loads the prelude and the entry, then relays frames both ways until the main
 * thread asks it to stop or the instance must end.
 *
 * Contract with launch-quickjs.ts (messages in channel.ts): the main thread may send frames and
 * "stop" from the moment the thread runs. Frames that arrive before the load finished are queued
 * and handed to the prelude in order right after setFactory; "stop" is obeyed at once, loaded or
 * not. Every end the worker decides itself, a failed load included, is announced with an "exit"
 * message (code and reason) before the thread exits, so the main thread reports it; a failed load
 * sends a "stderr" message with the VM stack first. A "stop" frees the context and runtime (when
 * they exist), then the thread exits with 0.
 */
import { parentPort, workerData } from "node:worker_threads";
import {
  MAX_BATCHES_IN_FLIGHT,
  MAX_BATCH_MESSAGES,
  MAX_BATCH_UNITS,
  STATUS_BATCHES_HANDLED,
  type Batch,
  type FromWorker,
  type ToWorker,
  type WorkerExitCode,
  type WorkerStart,
} from "./channel.js";
import { MAX_BUDGET_MS, STATUS_BUDGET_MS, STATUS_ENTRY_SEQ, STATUS_IN_VM } from "./channel.js";
import { LoadError, Sandbox, Teardown } from "./sandbox.js";
import { sourceMapper } from "../load/source-map.js";

if (parentPort === null) throw new Error("octet quickjs worker.js must run in a worker thread");
const port = parentPort;
const start = workerData as WorkerStart;
const status = new Int32Array(start.status);
/** A bundle's positions shown in the extension's own files (load/source-map.ts); identity otherwise. */
const mapper =
  start.settings.sourceMap === undefined
    ? null
    : sourceMapper(start.settings.sourceMap, start.settings.packageDir, start.settings.entry);
const shown = (text: string): string => (mapper === null ? text : mapper.mapText(text));
/** The first source position in a mapped stack, for a load failure's one-line reason. */
function firstPosition(detail: string): string {
  const m = mapper === null ? null : /\((\.\/[^\s()]+:\d+:\d+)\)/.exec(shown(detail));
  return m === null ? "" : ` (at ${m[1]})`;
}
/**
 * Messages of this synchronous run, sent as one batch from a microtask, or as soon as the batch
 * reaches its bounds (an exit at once, after them). See the flow control in channel.ts.
 */
let outbox: FromWorker[] = [];
let outboxUnits = 0;
let flushScheduled = false;
let batchesSent = 0;
const hasCredit = (): boolean => batchesSent - Atomics.load(status, STATUS_BATCHES_HANDLED) < MAX_BATCHES_IN_FLIGHT;
/** Waits (blocking this thread) until the main thread has handled enough batches to send another. */
function awaitCredit(): void {
  for (;;) {
    const handled = Atomics.load(status, STATUS_BATCHES_HANDLED);
    if (batchesSent - handled < MAX_BATCHES_IN_FLIGHT) return;
    // In slices: a worker.terminate() takes effect between them at the latest.
    Atomics.wait(status, STATUS_BATCHES_HANDLED, handled, 50);
  }
}
/**
 * Runs `wait` outside the budget of the VM entry it happens in (if any): the budget is engine
 * time, so the entry's deadline moves by the time parked, and the watchdog sees no entry
 * meanwhile and then a new one with the budget that is left.
 */
function parked(wait: () => void): void {
  if (sandbox === null || Atomics.load(status, STATUS_IN_VM) !== 1) return wait();
  const since = performance.now();
  Atomics.store(status, STATUS_IN_VM, 0);
  try {
    wait();
  } finally {
    const left = Math.max(1, Math.ceil(sandbox.excludeParked(performance.now() - since)));
    Atomics.store(status, STATUS_BUDGET_MS, Math.min(left, MAX_BUDGET_MS));
    Atomics.add(status, STATUS_ENTRY_SEQ, 1);
    Atomics.store(status, STATUS_IN_VM, 1);
  }
}
function flush(): void {
  flushScheduled = false;
  if (outbox.length === 0) return;
  const messages = outbox;
  outbox = [];
  outboxUnits = 0;
  // A flush inside a VM entry (a full batch) parks the entry: a host slow to take the frames
  // must not make a well-behaved extension look like one that spins (the budget is CPU in the VM).
  if (!hasCredit()) parked(awaitCredit);
  const batch: Batch<FromWorker> = messages.length === 1 ? messages[0]! : { kind: "batch", messages };
  port.postMessage(batch);
  batchesSent++;
}
const post = (raw: FromWorker): void => {
  const message: FromWorker =
    mapper === null || raw.kind === "frame"
      ? raw
      : raw.kind === "stderr"
        ? { ...raw, line: shown(raw.line) }
        : raw.kind === "exit"
          ? { ...raw, reason: shown(raw.reason) }
          : { ...raw, message: shown(raw.message) };
  outbox.push(message);
  if (message.kind === "exit") return flush();
  outboxUnits +=
    message.kind === "frame"
      ? message.text.length
      : message.kind === "stderr"
        ? message.line.length
        : message.message.length;
  if (outbox.length >= MAX_BATCH_MESSAGES || outboxUnits >= MAX_BATCH_UNITS) return flush();
  if (!flushScheduled) {
    flushScheduled = true;
    queueMicrotask(flush);
  }
};
type Frame = Extract<ToWorker, { kind: "frame" }>;
let sandbox: Sandbox | null = null;
/** Frames received before the load finished; null once they were delivered. */
let early: Frame[] | null = [];
let ending = false;

function describe(error: unknown): string {
  if (error instanceof Error)
    return error.stack !== undefined && !error.stack.startsWith(`${error.name}: ${error.message}`)
      ? `${error.name}: ${error.message}\n${error.stack}`
      : (error.stack ?? `${error.name}: ${error.message}`);
  return String(error);
}

/** Ends the thread, after announcing why (the message is delivered before the exit event). */
function end(code: WorkerExitCode, reason: string): never {
  ending = true;
  sandbox?.clearTimers();
  post({ kind: "exit", code, reason });
  process.exit(code === "exited" ? 0 : 1);
}

/** A failure while serving: the VM state is not trusted again, so the instance ends. */
function fail(error: unknown): never {
  if (error instanceof Teardown) end(error.code, error.message);
  end("fatal", `the QuickJS engine failed: ${describe(error)}`);
}

/** A normal stop: free what exists, then exit. */
function stop(): never {
  ending = true;
  try {
    sandbox?.dispose();
  } catch (error) {
    post({ kind: "stderr", line: `quickjs: freeing the runtime failed: ${describe(error)}` });
  }
  flush();
  process.exit(0);
}

function deliver(frame: Frame, loaded: Sandbox): void {
  try {
    loaded.receive(frame.text, frame.budgetMs);
  } catch (error) {
    fail(error);
  }
}

const output = {
  frame: (text: string) => post({ kind: "frame", text }),
  stderr: (line: string) => post({ kind: "stderr", line }),
  diagnostic: (message: string) => post({ kind: "diagnostic", message }),
  failed: (error: unknown) => fail(error),
};

port.on("message", (batch: Batch<ToWorker>) => {
  if (batch.kind !== "batch") return onMessage(batch);
  for (const message of batch.messages) onMessage(message);
});

function onMessage(message: ToWorker): void {
  if (ending) return;
  if (message.kind === "stop") stop();
  if (message.kind !== "frame") return;
  if (early !== null) early.push(message);
  else if (sandbox !== null) deliver(message, sandbox);
}

async function main(): Promise<void> {
  let created: Sandbox;
  try {
    created = await Sandbox.create(start.settings, start.wasmModule, status, output);
  } catch (error) {
    end("fatal", `the QuickJS engine failed to start: ${describe(error)}`);
  }
  if (ending) return;
  sandbox = created;
  try {
    await created.load();
  } catch (error) {
    if (ending) return;
    if (error instanceof LoadError) {
      post({ kind: "stderr", line: `quickjs: ${error.detail}` });
      end("fatal", `${error.message}${firstPosition(error.detail)}`);
    }
    if (error instanceof Teardown) end(error.code, error.message);
    end("fatal", `the QuickJS engine failed to load the extension: ${describe(error)}`);
  }
  if (ending) return;
  const queued = early ?? [];
  early = null;
  for (const frame of queued) deliver(frame, created);
}

void main();
