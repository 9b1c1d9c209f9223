/**
 * Sole ownership of the extension's stdout (FRAME-03, FRAME-07). The SDK keeps the real write
 * function for itself and routes every other write to stdout (console.log, stray
 * process.stdout.write from a dependency) to stderr, so nothing but whole protocol frames ever
 * reaches the wire. Frames are queued and written one at a time, honouring backpressure; a frame
 * once started is always finished (FRAME-08).
 */
import type { PeerTransport, SendTicket } from "@octet/protocol";

type WriteFn = (chunk: string, callback?: (err?: Error | null) => void) => boolean;

export class StdoutWriter implements PeerTransport {
  readonly #write: WriteFn;
  readonly #queue: { frame: string; started: boolean }[] = [];
  readonly #stream: NodeJS.WriteStream;
  #inflight = 0;
  #waitingDrain = false;
  #idleWaiters: (() => void)[] = [];
  #broken: Error | null = null;

  constructor(stream: NodeJS.WriteStream = process.stdout) {
    const original = stream.write.bind(stream) as WriteFn;
    this.#write = original;
    this.#stream = stream;
    const toStderr = ((chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
      const callback = typeof encoding === "function" ? encoding : cb;
      return process.stderr.write(chunk as string, callback as (err?: Error | null) => void);
    }) as typeof stream.write;
    stream.write = toStderr;
    // A broken stdout (the host closed its end: EPIPE) never drains again. Stop waiting for it and
    // drop the frames not yet started (nobody can read them), so flushed() settles and the process
    // can exit on shutdown or EOF instead of waiting forever (FRAME-12).
    stream.on("error", (err: Error) => {
      this.#broken = err;
      this.#waitingDrain = false;
      this.#queue.length = 0;
      this.#settleIdle();
    });
  }

  send(frame: string): SendTicket {
    const entry = { frame, started: false };
    if (this.#broken) return { withdraw: () => false };
    this.#queue.push(entry);
    this.#pump();
    return {
      withdraw: () => {
        if (entry.started) return false;
        const i = this.#queue.indexOf(entry);
        if (i === -1) return false;
        this.#queue.splice(i, 1);
        return true;
      },
    };
  }

  /** Resolves once every queued frame has been handed to the OS, or at once if the stream broke. */
  flushed(): Promise<void> {
    if (this.#broken || (this.#inflight === 0 && !this.#waitingDrain && this.#queue.length === 0)) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #pump(): void {
    while (!this.#waitingDrain && this.#queue.length > 0 && !this.#broken) {
      const next = this.#queue.shift()!;
      next.started = true;
      this.#inflight++;
      const more = this.#write(next.frame, (err) => {
        this.#inflight--;
        if (err) this.#broken = err;
        this.#settleIdle();
      });
      if (!more) {
        this.#waitingDrain = true;
        this.#stream.once("drain", () => {
          this.#waitingDrain = false;
          this.#pump();
        });
      }
    }
    this.#settleIdle();
  }

  #settleIdle(): void {
    // Once broken nothing more will be written, so nothing is left to wait for.
    if (!this.#broken && (this.#inflight > 0 || this.#waitingDrain || this.#queue.length > 0)) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
