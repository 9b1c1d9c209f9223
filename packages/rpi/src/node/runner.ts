/**
 * The Node runner: an rpi process (docs/rpi-protocol.md) that runs a pi extension written for
 * pi, with Node's globals and the full pi API. The rpi runtime starts it as
 * `process.execPath runner.js` for a `"runtime": "node"` manifest (launch-node.ts), in the
 * package directory, with the PI_EXTENSION_* environment (the entry among it), PATH and HOME.
 *
 * What it does, in order:
 * 1. keeps the real process.stdout.write as the wire and diverts console and process.stdout to
 *    `log` frames (console.ts): stdout carries frames and nothing else;
 * 2. defines `__octet_host` (node-host.ts) and evaluates the same PI_PRELUDE text QuickJS runs,
 *    with the Node extension points (native globals, pi.exec);
 * 3. reads host frames from stdin (strict JSONL, the frame limit) and passes each to the
 *    prelude's bridge;
 * 4. on the host's hello, changes into the session's cwd (the extension sees process.cwd() as it
 *    would in pi, where it runs in pi's process) and imports the entry (load-entry.ts); the
 *    host's initialize waits for the import (frames after it queue behind it), and an import
 *    that failed answers it with an error naming the entry and the cause: a clean load failure;
 * 5. on shutdown, stdin's end or SIGTERM: SIGKILLs every pi.exec group and exits. The host kills
 *    the runner's own group 2 s after shutdown; pi.exec groups are separate groups, so they are
 *    stopped here (and, under the host's pid-namespace containment, also by the kernel).
 * Uncaught exceptions and unhandled rejections of the extension are logged at "error" and the
 * runner keeps serving, as QuickJS does with a timer callback that throws.
 */
import { runInThisContext } from "node:vm";
import { JsonlDecoder } from "@octet/protocol";
import { PI_PRELUDE, type PiPreludeBridge } from "../quickjs/pi-prelude.js";
import { divertOutput, logText, type LogSink } from "./console.js";
import { ExecPool } from "./exec.js";
import { loadEntry } from "./load-entry.js";
import { createNodeHost, readNodeEnv } from "./node-host.js";

/** How long the exit waits for the last frames to leave stdout. */
const EXIT_FLUSH_MS = 500;

const wire = process.stdout.write.bind(process.stdout);

function describe(err: unknown): string {
  if (err instanceof Error) return err.stack ?? `${err.name}: ${err.message}`;
  return String(err);
}

function firstLine(err: unknown): string {
  if (err instanceof Error) return `${err.name === "Error" ? "" : `${err.name}: `}${err.message}`;
  return String(err);
}

type Frame = { text: string; value: Record<string, unknown> };

const isInitialize = (f: Frame): boolean =>
  f.value["type"] === "request" && (f.value["request"] as { kind?: unknown } | null)?.kind === "initialize";

function main(): void {
  const env = readNodeEnv(process.env);
  if (typeof env === "string") {
    process.stderr.write(`octet node runner: ${env}\n`);
    process.exit(2);
  }
  const execs = new ExecPool();
  let bridge: PiPreludeBridge | null = null;
  const host = createNodeHost({
    env,
    write: (line) => void wire(line),
    fire: (id) => bridge?.fireTimer(id),
    exec: (command, args, options, cwd) => execs.run(command, args, options, cwd),
  });
  const log: LogSink = (level, message) => {
    try {
      host.global.send(JSON.stringify({ type: "log", level, message: logText(message) }));
    } catch {
      // A log line cannot break the wire; one that cannot be sent is dropped.
    }
  };
  divertOutput(log);
  process.on("uncaughtException", (err) => log("error", `uncaught exception: ${describe(err)}`));
  process.on("unhandledRejection", (reason) => log("error", `unhandled promise rejection: ${describe(reason)}`));
  process.on("exit", () => execs.killAll());

  let exiting = false;
  const exit = (code: number): void => {
    if (exiting) return;
    exiting = true;
    execs.killAll();
    host.clearTimers();
    setTimeout(() => process.exit(code), EXIT_FLUSH_MS).unref();
    wire("", () => process.exit(code));
  };
  process.on("SIGTERM", () => exit(143));

  Object.defineProperty(globalThis, "__octet_host", { value: host.global, configurable: true, writable: true });
  bridge = runInThisContext(PI_PRELUDE, { filename: "octet:pi-prelude" }) as PiPreludeBridge;
  const prelude = bridge;

  // The entry is imported after the host's hello; initialize (and every frame after it) waits for the import.
  let entry: { state: "loading" } | { state: "loaded" } | { state: "failed"; message: string } = { state: "loading" };
  const waiting: Frame[] = [];
  const dispatch = (f: Frame): void => {
    const type = f.value["type"];
    if (entry.state === "failed" && isInitialize(f)) {
      const result = { status: "error", error: { message: entry.message } };
      host.global.send(JSON.stringify({ type: "response", id: f.value["id"], result }));
      return;
    }
    if (type === "hello" && typeof f.value["cwd"] === "string") {
      try {
        process.chdir(f.value["cwd"]);
      } catch (err) {
        log(
          "warning",
          `the session's cwd ${f.value["cwd"]} cannot be entered (${firstLine(err)}); cwd stays the package`,
        );
      }
    }
    prelude.receive(f.text);
    // The import starts after the hello, in the session's cwd: the entry's top level sees one cwd.
    if (type === "hello") load();
    if (type === "shutdown") exit(0);
  };
  const deliver = (f: Frame): void => {
    if (f.value["type"] === "shutdown") return dispatch(f);
    if (entry.state === "loading" && (waiting.length > 0 || isInitialize(f))) return void waiting.push(f);
    dispatch(f);
  };
  const settle = (next: typeof entry): void => {
    entry = next;
    for (const f of waiting.splice(0)) dispatch(f);
  };
  const packageDir = process.cwd();
  let importing = false;
  const load = (): void => {
    if (importing) return;
    importing = true;
    loadEntry(env.PI_EXTENSION_ENTRY, packageDir).then(
      (factory) => {
        prelude.setFactory(factory);
        settle({ state: "loaded" });
      },
      (err: unknown) => {
        process.stderr.write(`octet node runner: could not load ${env.PI_EXTENSION_ENTRY}: ${describe(err)}\n`);
        const why = logText(firstLine(err));
        settle({ state: "failed", message: `could not load the entry ${env.PI_EXTENSION_ENTRY}: ${why}` });
      },
    );
  };

  const decoder = new JsonlDecoder({ maxFrameBytes: Number(env.PI_EXTENSION_MAX_FRAME_BYTES) });
  process.stdin.on("data", (chunk: Buffer) => {
    for (const frame of decoder.push(chunk)) {
      if (!frame.ok) {
        log("error", `the host sent a malformed frame (${frame.error.message}); it was ignored`);
        continue;
      }
      const value = frame.value;
      if (value !== null && typeof value === "object" && !Array.isArray(value))
        deliver({ text: frame.text, value: value as Record<string, unknown> });
    }
  });
  // The host is gone (or closed the pipe): nobody is left to serve.
  process.stdin.on("end", () => exit(0));
  process.stdin.on("error", () => exit(0));
  // The wire itself failed (EPIPE: the host closed its end): logging it would fail the same way.
  process.stdout.on("error", () => exit(0));
}

main();
