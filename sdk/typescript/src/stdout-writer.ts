/**
 * Sole ownership of the extension's stdout (FRAME-03, FRAME-07). The SDK keeps the real write
 * function for itself and routes every other write to stdout (console.log, stray
 * process.stdout.write from a dependency) to stderr, so nothing but whole protocol frames ever
 * reaches the wire. Frames go through a FrameQueue: one at a time, whole, honouring
 * backpressure; a frame once started is always finished (FRAME-08).
 */
import { FrameQueue, type PeerTransport, type SendTicket } from "@octet/protocol";

type WriteFn = (chunk: string, callback?: (err?: Error | null) => void) => boolean;

/**
 * A tick's frames leave in writes of at most this many, as the host's writer does (its
 * MAX_CORKED_FRAMES): one writev per tick held a burst of answers until the tick ended while the
 * host waited on another CPU; flushing every 32 lets it start on the first ones.
 */
const MAX_CORKED_FRAMES = 32;

export class StdoutWriter implements PeerTransport {
  readonly #queue: FrameQueue;
  /** Frames handed to the stream whose write callback has not run yet. */
  #inflight = 0;
  #idleWaiters: (() => void)[] = [];
  #broken: Error | null = null;
  #corked = false;
  /** Frames written since the stream was last corked. */
  #corkedFrames = 0;
  readonly #batches: boolean;

  constructor(stream: NodeJS.WriteStream = process.stdout) {
    const original = stream.write.bind(stream) as WriteFn;
    this.#batches = typeof (stream as unknown as { _writev?: unknown })._writev === "function";
    const toStderr = ((chunk: unknown, encoding?: unknown, cb?: unknown): boolean => {
      const callback = typeof encoding === "function" ? encoding : cb;
      return process.stderr.write(chunk as string, callback as (err?: Error | null) => void);
    }) as typeof stream.write;
    stream.write = toStderr;
    this.#queue = new FrameQueue({
      write: (frame) => {
        this.#inflight++;
        // Frames written in one tick leave in writevs of up to MAX_CORKED_FRAMES: cork now, uncork on
        // the next tick (or after that many). Only where the stream has a writev (pipes and sockets
        // do), else corking would only delay.
        if (!this.#corked && this.#batches) {
          this.#corked = true;
          this.#corkedFrames = 0;
          stream.cork();
          process.nextTick(() => {
            this.#corked = false;
            stream.uncork();
          });
        }
        const ok = original(frame, (err) => {
          this.#inflight--;
          if (err) this.#broken = err;
          this.#settleIdle();
        });
        if (this.#corked && ++this.#corkedFrames >= MAX_CORKED_FRAMES) {
          this.#corkedFrames = 0;
          stream.uncork();
          stream.cork();
        }
        return ok;
      },
      onceDrain: (resume) => stream.once("drain", resume),
    });
    // A broken stdout (the host closed its end: EPIPE) never drains again. Stop waiting for it and
    // drop the frames not yet started (nobody can read them), so flushed() settles and the process
    // can exit on shutdown or EOF instead of waiting forever (FRAME-12).
    stream.on("error", (err: Error) => {
      this.#broken = err;
      this.#queue.close();
      this.#settleIdle();
    });
  }

  send(frame: string): SendTicket {
    if (this.#broken) return { withdraw: () => false };
    return this.#queue.send(frame);
  }

  /** Resolves once every queued frame has been handed to the OS, or at once if the stream broke. */
  async flushed(): Promise<void> {
    await this.#queue.drained();
    if (this.#broken || this.#inflight === 0) return;
    await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  #settleIdle(): void {
    if (!this.#broken && this.#inflight > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
