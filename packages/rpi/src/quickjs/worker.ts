/**
 * The entry of a QuickJS worker thread: one extension instance per thread (QJS-14). It builds
 * the Sandbox, loads the prelude and the entry, then relays frames both ways until the main
 * thread asks it to stop or the instance must end.
 *
 * Contract with launch-quickjs.ts (messages in channel.ts): "ready" once loaded, or "failed"
 * with the load error and then the thread ends; every end the worker decides itself is
 * announced with an "exit" message (code and reason) before the thread exits, so the main
 * thread reports it. A "stop" frees the context and runtime, then the thread exits with 0.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { FromWorker, ToWorker, WorkerExitCode, WorkerStart } from "./channel.js";
import { LoadError, Sandbox, Teardown } from "./sandbox.js";

if (parentPort === null) throw new Error("octet quickjs worker.js must run in a worker thread");
const port = parentPort;
const start = workerData as WorkerStart;
const status = new Int32Array(start.status);
const post = (message: FromWorker): void => port.postMessage(message);
let sandbox: Sandbox | null = null;
let ending = false;

function describe(error: unknown): string {
  if (error instanceof Error) return error.stack !== undefined && !error.stack.startsWith(`${error.name}: ${error.message}`) ? `${error.name}: ${error.message}\n${error.stack}` : (error.stack ?? `${error.name}: ${error.message}`);
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

const output = {
  frame: (text: string) => post({ kind: "frame", text }),
  stderr: (line: string) => post({ kind: "stderr", line }),
  failed: (error: unknown) => fail(error),
};

async function main(): Promise<void> {
  try {
    sandbox = await Sandbox.create(start.settings, start.wasmModule, status, output);
    await sandbox.load();
  } catch (error) {
    const message = error instanceof LoadError || error instanceof Teardown ? error.message : `the QuickJS engine failed to start: ${describe(error)}`;
    post({ kind: "failed", message });
    ending = true;
    process.exit(1);
  }
  const loaded = sandbox;
  port.on("message", (message: ToWorker) => {
    if (ending) return;
    if (message.kind === "stop") {
      ending = true;
      try {
        loaded.dispose();
      } catch (error) {
        post({ kind: "stderr", line: `quickjs: freeing the runtime failed: ${describe(error)}` });
      }
      process.exit(0);
    }
    if (message.kind !== "frame") return;
    try {
      loaded.receive(message.text);
    } catch (error) {
      fail(error);
    }
  });
  post({ kind: "ready" });
}

void main();
