/**
 * The `__octet_host` object of the Node runner (the contract is OctetHostGlobal in
 * ../quickjs/pi-prelude.ts): `send` writes one frame line to the wire, refusing a frame over
 * maxFrameBytes with a RangeError that names its size and the limit (the prelude passes the
 * message on); timers are Node timers; `env` is the PI_EXTENSION_* variables of the process;
 * `nativeGlobals` keeps Node's own timers and AbortController; `exec` is pi.exec (exec.ts).
 * Unlike QuickJS there is no outbound rate: a process extension's frames are paced by its pipe,
 * as every rpi process's are.
 */
import type { OctetHostGlobal, PiExecResult } from "../quickjs/pi-prelude.js";

/** The PI_EXTENSION_* variables the prelude reads; the launch sets each (manifest/environment.ts). */
export const NODE_ENV_KEYS = [
  "PI_EXTENSION_ID",
  "PI_EXTENSION_PACKAGE_ID",
  "PI_EXTENSION_ENTRY",
  "PI_EXTENSION_CAPABILITIES",
  "PI_EXTENSION_UI_CAPABILITIES",
  "PI_EXTENSION_MAX_FRAME_BYTES",
  "PI_EXTENSION_PROTOCOL_VERSION",
] as const;

export type NodeHostEnv = OctetHostGlobal["env"];

/**
 * The environment the prelude needs, read from `source` (the runner's process.env), or a message
 * naming the missing or malformed variable: the runner was started without the launch's env.
 */
export function readNodeEnv(source: Readonly<Record<string, string | undefined>>): NodeHostEnv | string {
  const out: Record<string, string> = {};
  for (const key of NODE_ENV_KEYS) {
    const value = source[key];
    if (value === undefined || value === "")
      return `${key} is not set; the Node runner is started by the rpi runtime for a "runtime": "node" manifest`;
    out[key] = value;
  }
  const raw = out["PI_EXTENSION_MAX_FRAME_BYTES"];
  const max = Number(raw);
  if (!Number.isSafeInteger(max) || max <= 0)
    return `PI_EXTENSION_MAX_FRAME_BYTES must be a positive integer, got ${JSON.stringify(raw)}`;
  return out as unknown as NodeHostEnv;
}

export interface NodeHostOptions {
  env: NodeHostEnv;
  /** Writes one frame text and its newline to the wire. */
  write(line: string): void;
  /** A timer came due: the runner calls bridge.fireTimer(id). */
  fire(id: number): void;
  exec(command: unknown, args: unknown, options: unknown, cwd: string | undefined): Promise<PiExecResult>;
}

export interface NodeHost {
  global: OctetHostGlobal;
  /** Stops every timer the prelude armed (shutdown). */
  clearTimers(): void;
}

export function createNodeHost(o: NodeHostOptions): NodeHost {
  const max = Number(o.env.PI_EXTENSION_MAX_FRAME_BYTES);
  const timers = new Map<number, NodeJS.Timeout>();
  const global: OctetHostGlobal = {
    send(text: string): void {
      if (typeof text !== "string")
        throw new TypeError(`__octet_host.send: a frame must be a string (got ${typeof text})`);
      const bytes = Buffer.byteLength(text, "utf8");
      if (bytes > max)
        throw new RangeError(
          `__octet_host.send: the frame is ${bytes} bytes of UTF-8, over the ${max}-byte limit (maxFrameBytes); it ` +
            `was not sent`,
        );
      o.write(`${text}\n`);
    },
    setTimer(id: number, delayMs: number): void {
      const existing = timers.get(id);
      if (existing !== undefined) clearTimeout(existing);
      const ms = Math.min(Math.max(0, Number(delayMs) || 0), 2 ** 31 - 1);
      timers.set(
        id,
        setTimeout(() => {
          timers.delete(id);
          o.fire(id);
        }, ms),
      );
    },
    clearTimer(id: number): void {
      const t = timers.get(id);
      if (t !== undefined) clearTimeout(t);
      timers.delete(id);
    },
    env: o.env,
    nativeGlobals: true,
    runtimeName: "Node",
    exec: (command, args, options, cwd) => o.exec(command, args, options, cwd),
  };
  return {
    global,
    clearTimers() {
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
