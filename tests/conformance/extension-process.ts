/**
 * One implementation's conformance extension as a real child process, read the way a strict host
 * reads it: stdout split on LF only, and every line must be one UTF-8 JSON object of at most
 * 1 MiB without CR (FRAME-02, FRAME-03), a valid JSON-RPC 2.0 envelope (FRAME-01); a response
 * must answer a request the transcript sent, once; $/progress and a parent_request_id must name a
 * request still unanswered (PROG-02, REV-07). Anything else is a violation, which fails the
 * transcript at its next wait: these checks hold for every transcript, not just the FRAME ones.
 *
 * The child runs in its own process group with a small explicit environment; kill() reaps the
 * whole group. Waits are event-driven with deadlines; nothing here sleeps.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { tmpdir } from "node:os";
import { killProcessGroup } from "@octet/protocol";
import { envelopeProblem, StrictLines } from "@octet/host";
import { show } from "./pattern.js";

export type Frame = Record<string, unknown>;
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}
/** A frame as received, with its arrival number (1-based) for reports. */
export interface Received {
  n: number;
  frame: Frame;
}

const STDERR_TAIL = 8 * 1024;

export class ExtensionProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Frames not yet consumed by an expect step, in arrival order. */
  readonly queue: Received[] = [];
  readonly violations: string[] = [];
  #received = 0;
  #stderr = "";
  /** Characters of stderr received in all, and how many of them came before the current user's turn. */
  #stderrTotal = 0;
  #stderrMark = 0;
  /** The strict line reader octet check uses too (@octet/host): FRAME-02, FRAME-03. */
  readonly #lines = new StrictLines(
    (frame) => this.#object(frame),
    (text) => this.#violation(text),
  );
  #exit: Exit | null = null;
  readonly #closed: Promise<Exit>;
  readonly #listeners = new Set<() => void>();
  /** Ids of requests the transcript sent, and those already answered. */
  readonly #sent = new Set<number | string>();
  readonly #answered = new Set<number | string>();
  /** Ids of requests the extension sent, and those the transcript answered. */
  readonly #asked = new Set<unknown>();
  readonly #replied = new Set<unknown>();

  constructor(command: readonly string[], env: Record<string, string>) {
    const [file, ...args] = command;
    if (file === undefined) throw new Error("an implementation needs a command");
    this.child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"], env, cwd: tmpdir(), detached: true });
    this.child.stdout.on("data", (chunk: Buffer) => this.#lines.push(chunk));
    this.child.stderr.setEncoding("utf8").on("data", (s: string) => {
      this.#stderr = (this.#stderr + s).slice(-STDERR_TAIL);
      this.#stderrTotal += s.length;
    });
    // Writing to a child that exited is an outcome the transcript reports, not a runner crash.
    this.child.stdin.on("error", () => {});
    this.#closed = new Promise((resolve) => {
      // "close" comes after stdout and stderr are drained: frames and violations are final then.
      this.child.on("close", (code: number | null, signal: NodeJS.Signals | null) => {
        this.#lines.end();
        this.#exit = { code, signal };
        resolve(this.#exit);
        this.#changed();
      });
      this.child.on("error", (err) => {
        this.#violation(`could not start ${show(command)}: ${err.message}`);
        this.#exit = { code: null, signal: null };
        resolve(this.#exit);
        this.#changed();
      });
    });
  }

  get exit(): Exit | null {
    return this.#exit;
  }

  /** The end of what stderr carried since markStderr() (since the start without one). */
  get stderrTail(): string {
    const since = this.#stderrTotal - this.#stderrMark;
    return since >= this.#stderr.length ? this.#stderr : this.#stderr.slice(this.#stderr.length - since);
  }

  /** Starts a new user's share of stderr: stderrTail shows nothing written before this call. */
  markStderr(): void {
    this.#stderrMark = this.#stderrTotal;
  }

  /** Whether the child has exited, or is exiting (its exit is known before its streams close). */
  get ended(): boolean {
    return this.#exit !== null || this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Writes one frame (a JSON value) as one line; records a request's id for response checks. */
  sendFrame(frame: unknown): void {
    this.sendRaw(JSON.stringify(frame) + "\n");
  }

  /** Writes text as is. Every id of a non-response frame in it may be answered (once). */
  sendRaw(text: string): void {
    for (const line of text.split("\n")) {
      let f: unknown;
      try {
        f = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof f !== "object" || f === null || Array.isArray(f)) continue;
      if ("result" in f || "error" in f) {
        this.#replied.add((f as Frame)["id"]);
        continue;
      }
      const id = (f as Frame)["id"];
      if (typeof id === "number" || typeof id === "string") this.#sent.add(id);
    }
    this.child.stdin.write(text);
  }

  closeStdin(): void {
    this.child.stdin.end();
  }

  /**
   * Resolves with check()'s first non-undefined value, re-evaluated whenever a frame, a violation
   * or the exit arrives. Rejects at the deadline, on a violation, or when the child has exited
   * and check() still has nothing (unless `afterExit` allows waiting on the exit itself).
   */
  waitFor<T>(check: () => T | undefined, timeoutMs: number, what: string, afterExit = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const evaluate = (): void => {
        if (this.violations.length > 0)
          return finish(() => reject(new Error(`protocol violation on stdout: ${this.violations[0]}`)));
        let value: T | undefined;
        try {
          value = check();
        } catch (err) {
          return finish(() => reject(err));
        }
        if (value !== undefined) return finish(() => resolve(value));
        if (this.#exit && !afterExit)
          return finish(() => reject(new Error(`the extension exited (${describeExit(this.#exit)}) before ${what}`)));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`no ${what} within ${timeoutMs} ms`))), timeoutMs);
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.#listeners.delete(evaluate);
        settle();
      };
      this.#listeners.add(evaluate);
      evaluate();
    });
  }

  /**
   * Resolves true once every request either side sent has its answer (so every frame those
   * requests caused has arrived), false if that does not happen within `timeoutMs`, or the
   * extension exited or broke the protocol. Only a quiescent extension may serve another
   * transcript (pool.ts).
   */
  async quiescent(timeoutMs: number): Promise<boolean> {
    const settled = (): true | undefined =>
      [...this.#sent].every((id) => this.#answered.has(id)) && [...this.#asked].every((id) => this.#replied.has(id))
        ? true
        : undefined;
    try {
      return await this.waitFor(settled, timeoutMs, "quiescence");
    } catch {
      return false;
    }
  }

  /** Kills the whole process group (if anything of it is left) and waits for the child to close. */
  async kill(timeoutMs = 5_000): Promise<void> {
    const pid = this.child.pid;
    killProcessGroup(process, pid);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`the extension (pid ${String(pid)}) did not close within ${timeoutMs} ms of SIGKILL`)),
        timeoutMs,
      );
    });
    try {
      await Promise.race([this.#closed, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #violation(text: string): void {
    this.violations.push(text);
    this.#changed();
  }

  /** A line StrictLines accepted as a JSON object: the envelope and correlation rules here. */
  #object(frame: Frame): void {
    const problem = this.#envelopeProblem(frame);
    if (problem) return this.#violation(`${problem}: ${show(frame, 300)}`);
    if (typeof frame["method"] === "string" && "id" in frame) this.#asked.add(frame["id"]);
    this.queue.push({ n: ++this.#received, frame });
    this.#changed();
  }

  /** FRAME-01: the JSON-RPC 2.0 envelope, and one response per request the transcript sent. */
  #envelopeProblem(f: Frame): string | null {
    return envelopeProblem(f, this.#sent, this.#answered, (r) => this.#correlationProblem(r));
  }

  /**
   * PROG-02, REV-07: progress and parented requests name a host request that is still active
   * (sent and not yet answered); the wire order is the order the extension wrote them in.
   */
  #correlationProblem(f: Frame): string | null {
    const params = f["params"];
    if (typeof params !== "object" || params === null || Array.isArray(params)) return null;
    const p = params as Frame;
    const active = (id: unknown): boolean =>
      (typeof id === "number" || typeof id === "string") && this.#sent.has(id) && !this.#answered.has(id);
    if (f["method"] === "$/progress" && !active(p["request_id"]))
      return `$/progress for request ${show(p["request_id"])}, which is not an active host request`;
    // An explicit resource_owner may outlive its parent: a settled parent plus the issued owner is
    // an independently answered request (WAVE1-11, SCTL-06; SCOMP-06 sends session/compact so).
    const parent = p["parent_request_id"];
    if ("resource_owner" in p && (typeof parent === "number" || typeof parent === "string") && this.#sent.has(parent))
      return null;
    if ("parent_request_id" in p && !active(parent))
      return `parent_request_id ${show(parent)} names no active host request`;
    return null;
  }
}

export function describeExit(exit: Exit | null): string {
  if (!exit) return "still running";
  return exit.signal ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
}
