/**
 * An extension's stdio read the way a strict host reads it, for `octet check`: the lines of
 * strict-lines.ts (FRAME-02, FRAME-03), each a JSON-RPC 2.0 envelope (FRAME-01), a response only
 * to a request the kit sent and only once. Anything else is recorded as a violation; the FRAME
 * checks report it. The rules are the conformance runner's (tests/conformance), over the streams
 * of a child the host launched (a process or a foreign runtime's stand-in), not a spawn.
 */
import { envelopeProblem } from "./envelope.js";
import type { ChildExit, GenerationChild } from "../generation/child.js";
import type { ConnectionTrace } from "../generation/connection.js";
import { StrictLines } from "./strict-lines.js";

export type Frame = Record<string, unknown>;

const STDERR_TAIL = 4 * 1024;
/** How long after its exit an extension's stdout may still bring its last frames. */
const EXIT_DRAIN_MS = 500;

export class WireProbe {
  readonly child: GenerationChild;
  /** Frames not yet taken by a wait, in arrival order. */
  readonly queue: Frame[] = [];
  /** What a strict host would refuse: a bad line (FRAME-02/03) or a bad envelope (FRAME-01). */
  readonly violations: { kind: "line" | "envelope"; text: string }[] = [];
  /** How many frames arrived in all. */
  received = 0;
  #stderr = "";
  readonly #lines = new StrictLines(
    (frame) => this.#onObject(frame),
    (text) => this.#violation(text),
  );
  #exit: ChildExit | null = null;
  readonly #listeners = new Set<() => void>();
  readonly #sent = new Set<number | string>();
  readonly #answered = new Set<number | string>();
  #nextId = 1;

  readonly #trace: ConnectionTrace | undefined;

  /** `trace`: where the frames both ways go (octet --trace FILE check ...), as the host's connection does. */
  constructor(child: GenerationChild, trace?: ConnectionTrace) {
    this.child = child;
    this.#trace = trace;
    child.stdout.on("data", (chunk: Buffer) => this.#lines.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL);
    });
    // Writing to an extension that exited is a finding of the check, not a crash of the kit.
    child.stdin.on("error", () => undefined);
    const drained = new Promise<void>((resolve) => {
      child.stdout.once("end", () => {
        this.#lines.end();
        resolve();
      });
      child.stdout.once("close", resolve);
    });
    // The exit can be seen before the last frames are read: it counts once stdout is drained too
    // (or a grace later, when a grandchild holds the pipe), so a final answer is never missed.
    void child.exited.then(async (exit) => {
      await Promise.race([drained, new Promise((r) => setTimeout(r, EXIT_DRAIN_MS).unref())]);
      this.#exit = exit;
      this.#changed();
    });
  }

  get exit(): ChildExit | null {
    return this.#exit;
  }

  get stderrTail(): string {
    return this.#stderr;
  }

  /** Sends a request with the next id and returns the id. */
  request(method: string, params?: unknown): number {
    const id = this.#nextId++;
    this.send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
    return id;
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: "2.0", method, params });
  }

  /** One frame as one line; a request's id (numeric or string) may then be answered, once. */
  send(frame: Frame): void {
    const id = frame["id"];
    if (typeof frame["method"] === "string" && (typeof id === "number" || typeof id === "string")) this.#sent.add(id);
    this.sendRaw(JSON.stringify(frame) + "\n");
  }

  /** Text as is: a crafted frame. A request id in it is not expected to be answered. */
  sendRaw(text: string): void {
    if (this.#exit !== null || this.child.stdin.destroyed) return;
    this.#trace?.frame("out", text);
    this.child.stdin.write(text);
  }

  /** Lets the kit expect an answer to an id it wrote raw (a crafted request). */
  expectAnswerTo(id: number | string): void {
    this.#sent.add(id);
  }

  closeStdin(): void {
    this.child.stdin.end();
  }

  /** The response to `id`, taken off the queue, or an Error naming what happened instead. */
  async response(id: number | string | null, timeoutMs: number): Promise<Frame> {
    return this.waitFor(
      () => {
        const i = this.queue.findIndex((f) => !("method" in f) && f["id"] === id);
        return i < 0 ? undefined : this.queue.splice(i, 1)[0];
      },
      timeoutMs,
      `a response to request ${JSON.stringify(id)}`,
    );
  }

  /**
   * check()'s first non-undefined value, evaluated again whenever a frame or the exit arrives;
   * rejects at the deadline, or when the extension exited first (unless `afterExit`).
   */
  waitFor<T>(check: () => T | undefined, timeoutMs: number, what: string, afterExit = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const evaluate = (): void => {
        const value = check();
        if (value !== undefined) return finish(() => resolve(value));
        if (this.#exit && !afterExit)
          finish(() => reject(new Error(`the extension exited (${describeExit(this.#exit)}) before ${what}`)));
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

  /** The exit, once the extension has exited, within the deadline. */
  exited(timeoutMs: number): Promise<ChildExit> {
    return this.waitFor(() => this.#exit ?? undefined, timeoutMs, "exit", true);
  }

  #changed(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  #violation(text: string, kind: "line" | "envelope" = "line"): void {
    this.#trace?.refused(text);
    this.violations.push({ kind, text });
    this.#changed();
  }

  #onObject(frame: Frame): void {
    this.#trace?.frame("in", frame);
    const problem = this.#envelopeProblem(frame);
    if (problem) return this.#violation(`${problem}: ${JSON.stringify(frame).slice(0, 200)}`, "envelope");
    this.received++;
    this.queue.push(frame);
    this.#changed();
  }

  /** FRAME-01: the JSON-RPC 2.0 envelope, and one response per request sent (envelope.ts). */
  #envelopeProblem(f: Frame): string | null {
    return envelopeProblem(f, this.#sent, this.#answered);
  }
}

export function describeExit(exit: ChildExit | null): string {
  if (!exit) return "still running";
  return exit.signal ? `signal ${exit.signal}` : `code ${String(exit.code)}`;
}
