/**
 * An extension child in memory for generation unit tests: three PassThrough streams, an exit the
 * test decides, and a record of every kill. The test plays the extension: it reads the host's
 * frames from stdin (frames(), next()) and answers on stdout (send()). No process, no wire.
 */
import { PassThrough } from "node:stream";
import type { ChildExit, ChildLauncher, GenerationChild } from "../../src/generation/child.js";
import { withDeadline } from "../helpers/wait.js";

export interface Frame {
  id?: number | string | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

export class FakeChild implements GenerationChild {
  readonly pid: number | undefined;
  readonly pgid: number | null;
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly exited: Promise<ChildExit>;
  /** Each kill() and whether the child was still running when it came. */
  readonly kills: { running: boolean }[] = [];
  released = false;
  #exit!: (exit: ChildExit) => void;
  #running = true;
  readonly #frames: Frame[] = [];
  readonly #waiters: (() => void)[] = [];
  #text = "";
  /** When true (the default), kill() ends the child as SIGKILL would. */
  exitOnKill = true;

  /** `pgid`: a number > 1 makes it look like a process ("process exited ..."); null an in-process instance. */
  constructor(pgid: number | null = 4_000_000) {
    this.pgid = pgid;
    this.pid = pgid ?? undefined;
    this.exited = new Promise((resolve) => (this.#exit = resolve));
    this.stdin.on("data", (chunk: Buffer) => {
      this.#text += chunk.toString("utf8");
      let nl: number;
      while ((nl = this.#text.indexOf("\n")) !== -1) {
        this.#frames.push(JSON.parse(this.#text.slice(0, nl)) as Frame);
        this.#text = this.#text.slice(nl + 1);
        for (const w of this.#waiters.splice(0)) w();
      }
    });
  }

  get running(): boolean {
    return this.#running;
  }

  /** Every frame the host wrote so far. */
  frames(): readonly Frame[] {
    return this.#frames;
  }

  /** The first frame written with `method` (waiting for it up to `ms`). */
  async next(method: string, ms = 5_000): Promise<Frame> {
    const find = (): Frame | undefined => this.#frames.find((f) => f.method === method);
    return withDeadline(
      new Promise<Frame>((resolve) => {
        const check = (): void => {
          const f = find();
          if (f) resolve(f);
          else this.#waiters.push(check);
        };
        check();
      }),
      ms,
      `the host to send ${method}`,
    );
  }

  send(message: Record<string, unknown>): void {
    this.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  }

  reply(frame: Frame, result: unknown): void {
    this.send({ id: frame.id, result });
  }

  /** The child exits: by default its pipes end first, as a process's do. */
  exit(code: number | null = 0, signal: NodeJS.Signals | null = null, endPipes = true): void {
    if (!this.#running) return;
    this.#running = false;
    if (endPipes) {
      this.stdout.end();
      this.stderr.end();
    }
    this.#exit({ code, signal });
  }

  kill(): void {
    this.kills.push({ running: this.#running });
    if (this.exitOnKill) this.exit(null, "SIGKILL");
  }

  liveMembers(): number[] {
    return this.#running && this.pgid !== null ? [this.pgid] : [];
  }

  release(): void {
    this.released = true;
  }
}

/** A launcher handing out `child` (process-group tier). */
export function launcherOf(child: FakeChild): ChildLauncher {
  return async () => ({ child, tier: "process-group" });
}
