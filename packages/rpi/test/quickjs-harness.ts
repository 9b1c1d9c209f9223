/**
 * Test support for the QuickJS engine: a stand-in prelude (NOT the pi API) that keeps to the
 * engine contract, temporary extension packages, and a small client that sends "run this code"
 * frames and waits for their answers.
 *
 * Stand-in protocol: a host frame is {id, code}; the entry's default export (by default
 * RUNNER, which runs `code` as a function body with `api`) is called with (frame, api) and its
 * result, awaited, is answered as {id, value} or {id, error, name}. The prelude sends
 * {factory: typeof default} when it receives the factory.
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  PI_PRELUDE,
  RpiConnection,
  launchQuickJs,
  type QuickJsOptions,
  type RpiExit,
  type RpiTimeouts,
  type RpiTransport,
  type RpiTransportEvent,
} from "../src/index.js";

export const STAND_IN_PRELUDE =
  `(() => {
  const host = globalThis.__octet_host;
  delete globalThis.__octet_host;
  let factory;
  const timers = new Map();
  let nextTimer = 1;
  const api = {
    send: (value) => host.send(JSON.stringify(value)),
    sendText: (text) => host.send(text),
    setTimeout: (fn, ms) => { const id = nextTimer++; timers.set(id, fn); host.setTimer(id, ms); return id; },
    clearTimeout: (id) => { timers.delete(id); host.clearTimer(id); },
    setTimer: (id, ms) => host.setTimer(id, ms),
    clearTimer: (id) => host.clearTimer(id),
    env: host.env,
  };
  const fail = (id, e) => api.send({ id, error: String(e), name: e && e.name, isRangeError: e instanceof RangeError });
  return {
    receive(text) {
      const frame = JSON.parse(text);
      let r;
      try { r = factory(frame, api); } catch (e) { fail(frame.id, e); return; }
      Promise.resolve(r).then((value) => api.send({ id: frame.id, value: value === undefined ? null : value }), (e) ` +
  `=> fail(frame.id, e));
    },
    setFactory(value) { factory = value; api.send({ factory: typeof value }); },
    fireTimer(id) { const fn = timers.get(id); timers.delete(id); if (fn) fn(); },
  };
})()`;

/** The default entry: runs each frame's code as a function body with `api` in scope. */
export const RUNNER = `export default function (frame, api) { return new Function("api", frame.code)(api); }\n`;

/** Writes files (relative path -> content) into a fresh directory; returns its canonical path. */
export function makePackage(files: Record<string, string>): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "octet-qjs-")));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

export interface Answer {
  id?: number;
  value?: unknown;
  error?: string;
  name?: string;
  isRangeError?: boolean;
}

export class Instance {
  readonly events: RpiTransportEvent[] = [];
  private nextId = 1;
  private wake: (() => void)[] = [];
  private exit: RpiExit | null = null;

  constructor(readonly transport: RpiTransport) {
    transport.onEvent((e) => {
      this.events.push(e);
      for (const w of this.wake.splice(0)) w();
    });
    void transport.exited.then((x) => {
      this.exit = x;
      for (const w of this.wake.splice(0)) w();
    });
  }

  frames(): Answer[] {
    return this.events.flatMap((e) => {
      if (e.kind !== "frame") return [];
      const v: unknown = JSON.parse(e.text);
      return typeof v === "object" && v !== null ? [v as Answer] : [];
    });
  }

  stderr(): string[] {
    return this.events.flatMap((e) => (e.kind === "stderr" ? [e.line] : []));
  }

  /** Sends code to run and returns the frame that answers it. */
  run(code: string, timeoutMs = 20_000): Promise<Answer> {
    const id = this.nextId++;
    this.transport.send(JSON.stringify({ id, code }));
    return this.waitFor((f) => f.id === id, timeoutMs);
  }

  /** Sends code without waiting for an answer. */
  fire(code: string): void {
    this.transport.send(JSON.stringify({ id: this.nextId++, code }));
  }

  /** The first frame (already received or later) matching `match`; rejects on timeout or exit. */
  waitFor(match: (f: Answer) => boolean, timeoutMs = 20_000): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `no matching frame within ${timeoutMs} ms; events: ${JSON.stringify(this.events).slice(0, 2000)}`,
            ),
          ),
        timeoutMs,
      );
      const check = (): void => {
        const found = this.frames().find(match);
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        } else if (this.exit !== null) {
          clearTimeout(timer);
          reject(
            new Error(
              `the instance exited (${this.exit.code}: ${this.exit.reason}) before a matching frame; events: ` +
                `${JSON.stringify(this.events).slice(0, 2000)}`,
            ),
          );
        } else {
          this.wake.push(check);
        }
      };
      check();
    });
  }
}

export type LaunchOverrides = Partial<Omit<QuickJsOptions, "entry" | "packageDir">> & { entryName?: string };

/**
 * Launches the package (or files made into one) with the stand-in prelude and test budgets, and
 * returns as soon as launchQuickJs does: the load may still be running.
 */
export async function start(
  filesOrDir: Record<string, string> | string = { "index.mjs": RUNNER },
  overrides: LaunchOverrides = {},
): Promise<Instance> {
  const dir = typeof filesOrDir === "string" ? filesOrDir : makePackage(filesOrDir);
  const { entryName = "index.mjs", ...rest } = overrides;
  const transport = await launchQuickJs({
    entry: join(dir, entryName),
    packageDir: dir,
    prelude: STAND_IN_PRELUDE,
    env: { PI_EXTENSION_ID: "test-ext", PI_EXTENSION_MAX_FRAME_BYTES: "1048576" },
    interruptAfterMs: 200,
    loadBudgetMs: 2000,
    watchdogGraceMs: 300,
    ...rest,
  });
  return new Instance(transport);
}

/**
 * start(), then waits for the stand-in prelude's {factory} frame (the load finished); rejects with
 * the exit reason when the instance ended instead.
 */
export async function launch(
  filesOrDir: Record<string, string> | string = { "index.mjs": RUNNER },
  overrides: LaunchOverrides = {},
): Promise<Instance> {
  const inst = await start(filesOrDir, overrides);
  await inst
    .waitFor((f) => "factory" in f)
    .catch(async (error: unknown) => {
      const exit = await Promise.race([inst.transport.exited, Promise.resolve(null)]);
      throw exit === null ? error : new Error(`the instance did not load (${exit.code}): ${exit.reason}`);
    });
  return inst;
}

/** OS threads of this process (Linux); null elsewhere. */
export function threadCount(): number | null {
  try {
    return readdirSync("/proc/self/task").length;
  } catch {
    return null;
  }
}

/** Polls `read` until it returns `expected` or the time is up; returns the last value. */
export async function settle<T>(read: () => T, expected: T, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let v = read();
  while (v !== expected && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    v = read();
  }
  return v;
}

/** The instance's exit, or a rejection when it has not ended within `timeoutMs`. */
export function exited(inst: Instance, timeoutMs = 30_000): Promise<RpiExit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the instance did not end within ${timeoutMs} ms; events: ${JSON.stringify(inst.events).slice(0, 1000)}`,
          ),
        ),
      timeoutMs,
    );
  });
  return Promise.race([inst.transport.exited, late]).finally(() => clearTimeout(timer));
}

/** The PI_EXTENSION_* environment the pi prelude reads, for an extension `id` with `capabilities`. */
export function piEnv(id: string, capabilities: string[] = [], uiCapabilities: string[] = []): Record<string, string> {
  return {
    PI_EXTENSION_PROTOCOL_VERSION: "1",
    PI_EXTENSION_ID: id,
    PI_EXTENSION_PACKAGE_ID: id,
    PI_EXTENSION_ENTRY: "index.mjs",
    PI_EXTENSION_CAPABILITIES: JSON.stringify(capabilities),
    PI_EXTENSION_UI_CAPABILITIES: JSON.stringify(uiCapabilities),
    PI_EXTENSION_MAX_FRAME_BYTES: "1048576",
  };
}

/**
 * The real pi prelude with `source` as the entry of extension "pi-ext" (capability "tools") on the
 * real engine, behind an RpiConnection that is not started yet.
 */
export async function connectPi(
  source: string,
  timeouts: Partial<RpiTimeouts> = {},
  overrides: Partial<QuickJsOptions> = {},
): Promise<{ transport: RpiTransport; connection: RpiConnection; stderr: string[] }> {
  const dir = makePackage({ "index.mjs": source });
  const transport = await launchQuickJs({
    entry: join(dir, "index.mjs"),
    packageDir: dir,
    prelude: PI_PRELUDE,
    env: piEnv("pi-ext", ["tools"]),
    interruptAfterMs: 2000,
    watchdogGraceMs: 300,
    ...overrides,
  });
  const stderr: string[] = [];
  const connection = new RpiConnection({
    transport,
    instance: { extensionId: "pi-ext", generation: 1 },
    cwd: dir,
    mode: "rpc",
    projectTrusted: true,
    grants: { capabilities: ["tools"], uiCapabilities: [] },
    timeouts,
    diagnose: () => {},
    onStderr: (line) => stderr.push(line),
  });
  return { transport, connection, stderr };
}
