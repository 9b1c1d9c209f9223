/**
 * pi.exec for the Node runner: pi's execCommand (pi-coding-agent core/exec.ts) with its
 * ExecResult {stdout, stderr, code, killed}, plus the containment pi lacks. Each command runs
 * without a shell, as the leader of its own process group, so stopping it stops everything it
 * started: an abort of options.signal or options.timeout sends SIGTERM to the group and SIGKILL
 * EXEC_KILL_GRACE_MS later (pi: SIGTERM to the child alone, SIGKILL after 5 s); the runner's
 * shutdown SIGKILLs every live group at once (killAll).
 *
 * pi's result rules are kept: the exit code, or 0 when the child ended by a signal (pi's
 * `code ?? 0`); a command that cannot start resolves code 1 (never rejects), with the reason in
 * stderr (pi leaves stderr empty). Each stream keeps at most EXEC_MAX_OUTPUT_CHARS characters:
 * the runner is the extension's only process and must not be filled by one chatty command.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { signalProcessGroup } from "@octet/protocol";
import type { PiExecResult } from "../quickjs/pi-prelude.js";

/** From SIGTERM to SIGKILL of an aborted command's group. */
export const EXEC_KILL_GRACE_MS = 2000;
/** Characters of stdout (and of stderr) an exec result keeps; the rest is dropped with a note. */
export const EXEC_MAX_OUTPUT_CHARS = 16 * 1024 * 1024;
/** After the exit, how long the pipes may still deliver output (a detached grandchild may hold them). */
const EXIT_STDIO_GRACE_MS = 100;

interface ExecOptions {
  signal?: AbortSignal;
  timeout?: number;
  cwd?: string;
}

function options(value: unknown): ExecOptions {
  if (value === undefined || value === null) return {};
  if (typeof value !== "object") throw new TypeError(`pi.exec: options must be an object, got ${typeof value}`);
  const o = value as Record<string, unknown>;
  const out: ExecOptions = {};
  const signal = o["signal"] as AbortSignal | null | undefined;
  if (signal !== undefined && signal !== null) {
    // Duck-typed as pi's is: any signal with aborted and addEventListener (a polyfill's too).
    if (typeof signal !== "object" || typeof signal.addEventListener !== "function")
      throw new TypeError("pi.exec: options.signal must be an AbortSignal");
    out.signal = signal;
  }
  if (o["timeout"] !== undefined) {
    if (typeof o["timeout"] !== "number" || Number.isNaN(o["timeout"]))
      throw new TypeError(`pi.exec: options.timeout must be a number of milliseconds, got ${String(o["timeout"])}`);
    out.timeout = o["timeout"];
  }
  if (o["cwd"] !== undefined) {
    if (typeof o["cwd"] !== "string") throw new TypeError("pi.exec: options.cwd must be a string");
    out.cwd = o["cwd"];
  }
  return out;
}

/** Collects one stream up to the bound. */
class Output {
  text = "";
  #dropped = 0;
  add(chunk: Buffer): void {
    const s = chunk.toString();
    const room = EXEC_MAX_OUTPUT_CHARS - this.text.length;
    if (room >= s.length) this.text += s;
    else {
      this.text += s.slice(0, Math.max(0, room));
      this.#dropped += s.length - Math.max(0, room);
    }
  }
  result(): string {
    if (this.#dropped === 0) return this.text;
    const note = `${this.#dropped} more characters dropped: pi.exec keeps at most ${EXEC_MAX_OUTPUT_CHARS}`;
    return `${this.text}\n[octet: ${note}]`;
  }
}

/** The commands one runner started; killAll() is its shutdown. */
export class ExecPool {
  readonly #live = new Set<number>();
  #closed = false;

  /** The process group ids of the commands still running (each the leader's pid). */
  groups(): number[] {
    return [...this.#live];
  }

  /** pi.exec(command, args, options) with `cwd` as the default working directory (see the module contract). */
  run(command: unknown, args: unknown, rawOptions: unknown, cwd: string | undefined): Promise<PiExecResult> {
    if (typeof command !== "string" || command === "")
      return Promise.reject(new TypeError(`pi.exec: the command must be a non-empty string, got ${typeof command}`));
    const argv = args === undefined || args === null ? [] : args;
    if (!Array.isArray(argv) || !argv.every((a) => typeof a === "string"))
      return Promise.reject(new TypeError("pi.exec: args must be an array of strings"));
    let o: ExecOptions;
    try {
      o = options(rawOptions);
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.#closed) return Promise.reject(new Error("pi.exec: the extension is shutting down"));
    return new Promise((resolve) => this.#start(command, argv as string[], o, cwd, resolve));
  }

  /** SIGKILLs every live command's group; later calls of run() reject. */
  killAll(): void {
    this.#closed = true;
    for (const pgid of this.#live) killGroup(pgid, "SIGKILL");
    this.#live.clear();
  }

  #start(
    command: string,
    args: string[],
    o: ExecOptions,
    cwd: string | undefined,
    resolve: (r: PiExecResult) => void,
  ): void {
    const stdout = new Output();
    const stderr = new Output();
    let killed = false;
    let settled = false;
    const timers: NodeJS.Timeout[] = [];
    let child: ChildProcess;
    const finish = (code: number): void => {
      if (settled) return;
      settled = true;
      o.signal?.removeEventListener?.("abort", stop);
      // Not the SIGKILL of an aborted group (its own timer): a member that ignored SIGTERM would
      // outlive the leader otherwise.
      for (const t of timers) clearTimeout(t);
      if (child.pid !== undefined) this.#live.delete(child.pid);
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({ stdout: stdout.result(), stderr: stderr.result(), code, killed });
    };
    const stop = (): void => {
      if (killed || child.pid === undefined) return;
      killed = true;
      const pgid = child.pid;
      killGroup(pgid, "SIGTERM");
      setTimeout(() => killGroup(pgid, "SIGKILL"), EXEC_KILL_GRACE_MS).unref();
    };
    try {
      child = spawn(command, args, {
        cwd: o.cwd ?? cwd ?? process.cwd(),
        shell: false,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (err) {
      resolve({ stdout: "", stderr: `pi.exec: could not start ${command}: ${message(err)}`, code: 1, killed: false });
      return;
    }
    if (child.pid !== undefined) this.#live.add(child.pid);
    child.stdout?.on("data", (c: Buffer) => stdout.add(c));
    child.stderr?.on("data", (c: Buffer) => stderr.add(c));
    child.once("error", (err: NodeJS.ErrnoException) => {
      const why = err.code === "ENOENT" ? "not found (on PATH or at that path)" : message(err);
      if (stderr.text === "") stderr.add(Buffer.from(`pi.exec: could not start ${command}: ${why}`));
      finish(1);
    });
    child.once("exit", (code) => {
      const ended = Promise.all([streamEnd(child.stdout), streamEnd(child.stderr)]);
      const grace = new Promise((r) => timers.push(setTimeout(r, EXIT_STDIO_GRACE_MS)));
      void Promise.race([ended, grace]).then(() => finish(code ?? 0));
    });
    if (o.signal?.aborted) stop();
    else o.signal?.addEventListener("abort", stop, { once: true });
    if (o.timeout !== undefined && o.timeout > 0) timers.push(setTimeout(stop, o.timeout));
  }
}

function streamEnd(stream: NodeJS.ReadableStream | null): Promise<void> {
  if (stream === null) return Promise.resolve();
  return new Promise((r) => {
    stream.once("end", r);
    stream.once("close", r);
  });
}

function killGroup(pgid: number, signal: "SIGTERM" | "SIGKILL"): void {
  try {
    signalProcessGroup(process, pgid, signal);
  } catch {
    // EPERM: not ours any more (the group is gone and its id reused); nothing to stop.
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
