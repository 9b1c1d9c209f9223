/**
 * The transport of a process extension (RPI-18, RPI-34..37): the child starts with exactly the
 * environment it is given (env_clear: nothing is inherited), in its own process group, with
 * stdio pipes; stdout is read as strict LF JSONL bounded by maxFrameBytes (a blank line, a CRLF
 * terminator, an oversize line or invalid JSON is a violation, never skipped); stderr is passed
 * on line by line. terminate() sends SIGKILL to the whole group, then to the child itself.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { JsonlDecoder, killProcessGroup, type ForeignSpawnSpec } from "@octet/protocol";
import { DEFAULT_MAX_FRAME_BYTES } from "../protocol/frames.js";
import type { RpiExit, RpiTransport, RpiTransportEvent } from "../transport.js";

/** What to start; `env` is the child's whole environment. The host's spawner takes the same. */
export type ProcessSpec = ForeignSpawnSpec;

/** Starts a child in its own group; the host passes its contained spawner, tests may omit it. */
export type Spawner = (spec: ProcessSpec) => Promise<ChildProcessWithoutNullStreams>;

export interface ProcessTransportOptions extends ProcessSpec {
  maxFrameBytes?: number;
  spawn?: Spawner;
}

/** How long terminate() waits for the exit after SIGKILL before it gives up waiting. */
const KILL_REAP_MS = 2000;
/** How long after the exit the pipes may still be read for the last frames and stderr lines. */
const DRAIN_MS = 250;
/** Bytes of an unfinished stderr line kept before it is passed on as a line anyway. */
const STDERR_LINE_BYTES = 4096;

export async function launchProcess(options: ProcessTransportOptions): Promise<RpiTransport> {
  const child = await (options.spawn ?? defaultSpawn)(options);
  return new ProcessTransport(child, options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES);
}

const defaultSpawn: Spawner = (spec) =>
  new Promise((resolve, reject) => {
    const child = spawn(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: spec.env,
      detached: true,
      shell: false,
      stdio: ["pipe", "pipe", "pipe"],
    });
    for (const s of [child.stdin, child.stdout, child.stderr]) s.on("error", () => {});
    child.once("spawn", () => resolve(child));
    child.once("error", (err: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `could not start ${spec.command}: ` +
            `${err.code === "ENOENT" ? "not found" : err.code === "EACCES" ? "permission denied" : err.message}`,
        ),
      ),
    );
  });

class ProcessTransport implements RpiTransport {
  readonly exited: Promise<RpiExit>;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #listeners: ((event: RpiTransportEvent) => void)[] = [];
  #terminateReason: string | null = null;
  #gone = false;

  constructor(child: ChildProcessWithoutNullStreams, maxFrameBytes: number) {
    this.#child = child;
    // A failed kill() is reported as an 'error' event; unheard, it would throw in the host.
    child.on("error", () => {});
    const drained = new Promise<void>((resolve) => child.stdout.once("close", resolve));
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.#gone = true;
        // The child is gone; whatever it left in its group goes with it (RPI-34), whether it
        // exited by itself, crashed or was killed.
        killProcessGroup(process, child.pid);
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        const exit: RpiExit = {
          code: this.#terminateReason !== null ? "terminated" : "exited",
          reason: this.#terminateReason !== null ? `terminated (${this.#terminateReason})` : `the process ${how}`,
          exitCode: code,
          signal,
        };
        // Its last frames and stderr lines may still be in the pipe: read them first (bounded:
        // a grandchild may hold the pipe open).
        void Promise.race([drained, new Promise((r) => setTimeout(r, DRAIN_MS).unref())]).then(() => resolve(exit));
      });
    });
    const decoder = new JsonlDecoder({ maxFrameBytes });
    child.stdout.on("data", (chunk: Buffer) => {
      for (const frame of decoder.push(chunk)) {
        if (frame.ok) this.#emit({ kind: "frame", text: frame.text, value: frame.value });
        else
          this.#emit({ kind: "violation", message: `${frame.error.message}; the line began: "${frame.error.quoted}"` });
      }
    });
    child.stdout.on("end", () => {
      for (const frame of decoder.end()) if (!frame.ok) this.#emit({ kind: "violation", message: frame.error.message });
    });
    let partial = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (text: string) => {
      const lines = (partial + text).split("\n");
      partial = lines.pop() ?? "";
      if (partial.length > STDERR_LINE_BYTES) lines.push(partial), (partial = "");
      for (const line of lines) this.#emit({ kind: "stderr", line });
    });
    child.stderr.on("end", () => partial && this.#emit({ kind: "stderr", line: partial }));
  }

  get pid(): number | null {
    return this.#child.pid ?? null;
  }

  send(text: string): void {
    if (this.#gone || this.#child.stdin.destroyed) return;
    this.#child.stdin.write(text + "\n");
  }

  onEvent(listener: (event: RpiTransportEvent) => void): void {
    this.#listeners.push(listener);
  }

  async terminate(reason: string): Promise<void> {
    this.#terminateReason ??= reason;
    // The group first, so descendants die with the child (also after the child itself has
    // exited); the child itself if the group kill fails.
    if (!killProcessGroup(process, this.#child.pid) && !this.#gone) this.#child.kill("SIGKILL");
    if (!this.#gone) {
      this.#child.stdin.destroy();
      await Promise.race([this.exited, new Promise((r) => setTimeout(r, KILL_REAP_MS).unref())]);
    }
    // A grandchild may hold the pipes open: never wait for them to close.
    this.#child.stdout.destroy();
    this.#child.stderr.destroy();
  }

  stats(): null {
    return null;
  }

  #emit(event: RpiTransportEvent): void {
    for (const l of this.#listeners) l(event);
  }
}
