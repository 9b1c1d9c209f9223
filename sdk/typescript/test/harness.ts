/**
 * A tiny raw-wire host for the SDK's tests: spawns a compiled fixture extension with node, writes
 * frames to its stdin and reads its stdout with a strict splitter (LF only, no CR, no blank line,
 * UTF-8, one JSON object per line), so anything but whole frames on stdout is caught as a
 * violation rather than skipped. It shares no code with @octet/protocol's decoder (only the bound),
 * so the SDK is judged by an independent reader.
 *
 * Every wait has a deadline and fails with the stderr tail, so a hung child is a clear failure,
 * never a hung run. Every spawned child is registered and killAll() (in afterEach) reaps it.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MAX_FRAME_BYTES } from "@octet/protocol";

export type Frame = Record<string, unknown>;
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The default deadline of a wait: generous for a loaded CI machine, short for a hung child. */
export const DEADLINE_MS = 10_000;

/** The minimal execution context every host request carries (process-scoped shape). */
export const CONTEXT = { workspace: "/tmp/octet-sdk-test", execution_scope: null, host: {} } as const;

const live = new Set<WireHost>();

/** Path of a compiled fixture (dist/test/fixtures/<name>.js). */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}.js`, import.meta.url));
}

interface Waiter {
  match: (f: Frame) => boolean;
  resolve: (f: Frame) => void;
}

export class WireHost {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every frame the child wrote, in order. */
  readonly frames: Frame[] = [];
  /** Lines on stdout that were not a frame: any entry fails FRAME-03 / FRAME-07. */
  readonly violations: string[] = [];
  stderr = "";
  readonly exited: Promise<Exit>;
  #exit: Exit | null = null;
  #pending: Buffer[] = [];
  #waiters = new Set<Waiter>();
  /** Called on every stderr chunk and at exit: waits re-check their condition. */
  #watchers = new Set<() => void>();
  #nextId = 1;

  constructor(fixture: string, args: string[] = []) {
    // A small explicit environment: the fixture needs nothing from ours (and must not inherit the
    // test runner's NODE_TEST_CONTEXT or NODE_OPTIONS).
    this.child = spawn(process.execPath, [fixturePath(fixture), ...args], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" },
    });
    live.add(this);
    this.child.stdout.on("data", (chunk: Buffer) => this.#onStdout(chunk));
    this.child.stderr.setEncoding("utf8").on("data", (s: string) => {
      this.stderr += s;
      for (const notify of this.#watchers) notify();
    });
    // Writing to a child that died is a test outcome, not a crash of the runner.
    this.child.stdin.on("error", () => {});
    // "close", not "exit": it comes after stdout and stderr are drained, so frames, violations and
    // stderr are final once `exited` resolves.
    this.exited = new Promise((resolve) => {
      this.child.on("close", (code: number | null, signal: NodeJS.Signals | null) => {
        this.#exit = { code, signal };
        live.delete(this);
        resolve(this.#exit);
        for (const notify of this.#watchers) notify();
      });
    });
  }

  #onStdout(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, start)) {
      this.#pending.push(chunk.subarray(start, nl));
      this.#line(Buffer.concat(this.#pending));
      this.#pending = [];
      start = nl + 1;
    }
    if (start < chunk.length) this.#pending.push(Buffer.from(chunk.subarray(start)));
  }

  #line(bytes: Buffer): void {
    const show = bytes.subarray(0, 120).toString("latin1");
    if (bytes.length === 0) return void this.violations.push("blank line");
    if (bytes.length > MAX_FRAME_BYTES)
      return void this.violations.push(`line of ${bytes.length} bytes, over the ${MAX_FRAME_BYTES}-byte frame bound`);
    if (bytes.includes(0x0d)) return void this.violations.push(`CR in line: ${show}`);
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (err) {
      return void this.violations.push(`not a JSON line (${String(err).slice(0, 80)}): ${show}`);
    }
    if (typeof value !== "object" || value === null || Array.isArray(value) || (value as Frame)["jsonrpc"] !== "2.0") {
      return void this.violations.push(`not a JSON-RPC 2.0 object: ${show}`);
    }
    const frame = value as Frame;
    this.frames.push(frame);
    for (const w of this.#waiters) {
      if (w.match(frame)) {
        this.#waiters.delete(w);
        w.resolve(frame);
      }
    }
  }

  /** Bytes left after the last LF: a non-empty tail after exit is a truncated frame. */
  get unterminated(): number {
    return this.#pending.reduce((n, b) => n + b.length, 0);
  }

  /** Writes raw text to the child's stdin (for malformed-input tests). */
  writeRaw(text: string | Buffer): void {
    this.child.stdin.write(text);
  }

  send(frame: Frame): void {
    this.child.stdin.write(JSON.stringify(frame) + "\n");
  }

  /** Sends a request and returns its id without waiting. */
  sendRequest(method: string, params?: unknown): number {
    const id = this.#nextId++;
    this.send(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
    return id;
  }

  /** Sends a request and resolves with the whole response frame (result or error). */
  request(method: string, params?: unknown, timeoutMs = DEADLINE_MS): Promise<Frame> {
    return this.response(this.sendRequest(method, params), timeoutMs);
  }

  /** Waits for the response (a frame with this id and no method) to a request already sent. */
  response(id: number, timeoutMs = DEADLINE_MS): Promise<Frame> {
    return this.waitForFrame((f) => f["id"] === id && !("method" in f), timeoutMs, `the response to request ${id}`);
  }

  /** Sends a request and resolves with its result; an error response fails the test. */
  async call(method: string, params?: unknown, timeoutMs = DEADLINE_MS): Promise<unknown> {
    const r = await this.request(method, params, timeoutMs);
    if ("error" in r)
      throw new Error(`${method} failed: ${JSON.stringify(r["error"])}\nstderr:\n${this.stderr.slice(-2000)}`);
    return r["result"];
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
  }

  /** Answers a request the extension sent (a reverse request such as confirmation/request). */
  respond(id: unknown, result: unknown): void {
    this.send({ jsonrpc: "2.0", id, result });
  }

  respondError(id: unknown, code: number, message: string): void {
    this.send({ jsonrpc: "2.0", id, error: { code, message } });
  }

  /**
   * Resolves with the first frame, already received or still to come, that matches. Rejects at the
   * deadline or when the child exits first, naming what was awaited and showing the stderr tail.
   */
  waitForFrame(match: (f: Frame) => boolean, timeoutMs = DEADLINE_MS, what = "a matching frame"): Promise<Frame> {
    const seen = this.frames.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { match, resolve: (f) => finish(() => resolve(f)) };
      const onExit = (): void => {
        if (this.#exit)
          finish(() => reject(this.#failure(`the child exited (${JSON.stringify(this.#exit)}) before ${what}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(this.#failure(`no ${what} within ${timeoutMs} ms`))),
        timeoutMs,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        this.#watchers.delete(onExit);
        settle();
      };
      this.#waiters.add(waiter);
      this.#watchers.add(onExit);
    });
  }

  /** Resolves once stderr contains `text` (fixtures mark progress there, off the wire). */
  waitForStderr(text: string, timeoutMs = DEADLINE_MS): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.stderr.includes(text)) finish(resolve);
        else if (this.#exit)
          finish(() => reject(this.#failure(`the child exited before stderr showed ${JSON.stringify(text)}`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(this.#failure(`stderr did not show ${JSON.stringify(text)} within ${timeoutMs} ms`))),
        timeoutMs,
      );
      const finish = (settle: () => void): void => {
        clearTimeout(timer);
        this.#watchers.delete(check);
        settle();
      };
      this.#watchers.add(check);
      check();
    });
  }

  /** Resolves with the exit, or rejects if the child is still running at the deadline. */
  async waitForExit(timeoutMs = DEADLINE_MS): Promise<Exit> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(this.#failure(`the child did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends initialize for `api` and returns the response frame. On 0.2+ the protocol offer is
   * `protocol` as given, or offer(api, optional ?? ["request_progress"], maxConcurrent ?? 64).
   */
  initialize(
    api: string,
    options: { maxConcurrent?: number; protocol?: unknown; optional?: readonly string[] } = {},
  ): Promise<Frame> {
    const params: Record<string, unknown> = {
      api_version: api,
      octet_version: "0.1.0",
      extension: {
        name: "sdk-fixture",
        version: "0.0.1",
        manifest_path: "/tmp/octet-sdk-test/extension.toml",
        source: "explicit",
      },
      workspace: CONTEXT.workspace,
      capabilities: { filesystem: "none", process: false, network: false },
      contributes: {
        tools: [],
        commands: [],
        hooks: [],
        ui: [],
        context: false,
        tool_renderers: [],
        notifications: true,
        confirmations: true,
      },
      host: { session_id: null, session_name: null, model: "test-model", reasoning: null, active_skills: [] },
    };
    if (options.protocol !== undefined) params["protocol"] = options.protocol;
    else if (api !== "0.1")
      params["protocol"] = offer(api, options.optional ?? ["request_progress"], options.maxConcurrent ?? 64);
    return this.request("initialize", params);
  }

  /** Pauses reading the child's stdout, so the pipe fills and the child's writes back up. */
  pauseStdout(): void {
    this.child.stdout.pause();
  }

  /** Closes our end of the child's stdout: its next write fails with EPIPE. */
  destroyStdout(): void {
    this.child.stdout.destroy();
  }

  closeStdin(): void {
    this.child.stdin.end();
  }

  async kill(): Promise<void> {
    if (this.#exit) return;
    this.child.kill("SIGKILL");
    await this.exited;
  }

  #failure(message: string): Error {
    const tail = this.frames.slice(-3).map((f) => JSON.stringify(f).slice(0, 300));
    return new Error(`${message}\nlast frames:\n  ${tail.join("\n  ")}\nstderr tail:\n${this.stderr.slice(-2000)}`);
  }
}

/** The protocol member of an API 0.2/0.4 initialize request offering the `optional` features. */
export function offer(api: string, optional: readonly string[], maxConcurrent = 64): Record<string, unknown> {
  return {
    version: api,
    required_features: ["request_cancellation", "content_parts"],
    optional_features: [...optional],
    limits: { max_concurrent_requests: maxConcurrent },
  };
}

/** Kills every child still running (afterEach), so no test leaves a process behind. */
export async function killAll(): Promise<void> {
  await Promise.all([...live].map((h) => h.kill()));
}

/** The error object of a response frame, or a failure naming what came instead. */
export function errorOf(frame: Frame): { code: number; message: string } {
  const error = frame["error"];
  if (typeof error !== "object" || error === null)
    throw new Error(`expected an error response, got ${JSON.stringify(frame).slice(0, 300)}`);
  return error as { code: number; message: string };
}

/** The result of a response frame, or a failure showing the error that came instead. */
export function resultOf(frame: Frame): unknown {
  if (!("result" in frame)) throw new Error(`expected a result, got ${JSON.stringify(frame).slice(0, 300)}`);
  return frame["result"];
}
