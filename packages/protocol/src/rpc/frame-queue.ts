/**
 * The single writer queue of one direction of the wire (FRAME-06/07/08), shared by the host's
 * writer to a child's stdin and the SDK's writer to stdout. Frames are handed to the sink whole,
 * one at a time, in order; when the sink asks to wait (backpressure) the queue waits for its
 * drain. A frame not yet handed over can be withdrawn (so a cancelled request that was never
 * written sends nothing, CANCEL-02); one already handed over is never abandoned.
 * It owns no stream: the sink does the I/O and its failures belong to the caller.
 */
import type { PeerTransport, SendTicket } from "./peer.js";

export interface FrameSink {
  /** Hands one whole frame to the stream; false means "wait for onceDrain before the next". */
  write(frame: string): boolean;
  onceDrain(resume: () => void): void;
}

interface Entry {
  /** Emptied once handed to the sink: the ticket lives as long as its request, the text need not. */
  frame: string;
  size: number;
  started: boolean;
}

export class FrameQueue implements PeerTransport {
  readonly #sink: FrameSink;
  readonly #measure: (frame: string) => number;
  readonly #queue: Entry[] = [];
  #queuedSize = 0;
  #waitingDrain = false;
  #closed = false;
  #idleWaiters: (() => void)[] = [];

  /** `measure` sizes a frame for queuedSize (default: its length in UTF-16 units). */
  constructor(sink: FrameSink, options: { measure?: (frame: string) => number } = {}) {
    this.#sink = sink;
    this.#measure = options.measure ?? ((frame) => frame.length);
  }

  /** Total measured size of the frames not yet handed to the sink. */
  get queuedSize(): number {
    return this.#queuedSize;
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(frame: string): SendTicket {
    if (this.#closed) return { withdraw: () => false };
    const entry: Entry = { frame, size: this.#measure(frame), started: false };
    this.#queue.push(entry);
    this.#queuedSize += entry.size;
    this.#pump();
    return {
      withdraw: () => {
        if (entry.started) return false;
        const i = this.#queue.indexOf(entry);
        if (i === -1) return false;
        this.#queue.splice(i, 1);
        this.#queuedSize -= entry.size;
        this.#settleIdle();
        return true;
      },
    };
  }

  /** Drops every frame not yet started; later frames are dropped too. */
  close(): void {
    this.#closed = true;
    this.#queue.length = 0;
    this.#queuedSize = 0;
    this.#waitingDrain = false;
    this.#settleIdle();
  }

  /** Resolves once no frame waits: all were handed to the sink, or the queue was closed. */
  drained(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #pump(): void {
    while (!this.#waitingDrain && !this.#closed && this.#queue.length > 0) {
      const entry = this.#queue.shift()!;
      this.#queuedSize -= entry.size;
      entry.started = true;
      const frame = entry.frame;
      entry.frame = "";
      if (!this.#sink.write(frame) && !this.#closed) {
        this.#waitingDrain = true;
        this.#sink.onceDrain(() => {
          if (this.#closed) return;
          this.#waitingDrain = false;
          this.#pump();
        });
      }
    }
    this.#settleIdle();
  }

  #isIdle(): boolean {
    return this.#closed || (!this.#waitingDrain && this.#queue.length === 0);
  }

  #settleIdle(): void {
    if (!this.#isIdle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}
