/**
 * The single bounded writer of one child's stdin (FRAME-06). Frames are queued whole and written
 * one at a time; a frame whose first byte went out is always finished (FRAME-08), while a frame
 * still queued can be withdrawn (so a cancelled request that was never written sends nothing).
 * Backpressure is honoured with 'drain'; if more than 8 MiB wait because the child stopped
 * reading, the writer fails instead of buffering without bound.
 */
import type { Writable } from "node:stream";
import { OctetError, bounds, type PeerTransport, type SendTicket } from "@octet/protocol";

interface Entry {
  frame: string;
  bytes: number;
  started: boolean;
}

export class ChildWriter implements PeerTransport {
  readonly #stream: Writable;
  readonly #onFailure: (error: OctetError) => void;
  readonly #queue: Entry[] = [];
  #queuedBytes = 0;
  #waitingDrain = false;
  #failed = false;
  #ending = false;

  constructor(stream: Writable, onFailure: (error: OctetError) => void) {
    this.#stream = stream;
    this.#onFailure = onFailure;
    stream.on("error", (err: Error) => this.#fail(new OctetError("transport_closed", `writing to the extension failed: ${err.message}`)));
  }

  get queuedBytes(): number {
    return this.#queuedBytes + this.#stream.writableLength;
  }

  send(frame: string): SendTicket {
    if (this.#failed) return { withdraw: () => false };
    const entry: Entry = { frame, bytes: Buffer.byteLength(frame), started: false };
    if (this.queuedBytes + entry.bytes > bounds.MAX_WRITER_QUEUE_BYTES) {
      this.#fail(new OctetError("writer_stalled", `the extension is not reading its stdin: ${this.queuedBytes} bytes are waiting, over the ${bounds.MAX_WRITER_QUEUE_BYTES}-byte writer bound`));
      return { withdraw: () => false };
    }
    this.#queue.push(entry);
    this.#queuedBytes += entry.bytes;
    this.#pump();
    return {
      withdraw: () => {
        if (entry.started) return false;
        const i = this.#queue.indexOf(entry);
        if (i === -1) return false;
        this.#queue.splice(i, 1);
        this.#queuedBytes -= entry.bytes;
        return true;
      },
    };
  }

  /** Closes stdin after the queue: only as the last-resort teardown, never as the shutdown signal. */
  end(): void {
    this.#ending = true;
    this.#endIfIdle();
  }

  /** Ends the stream once end() was asked for and every queued frame has been handed to it. */
  #endIfIdle(): void {
    if (!this.#ending || this.#failed || this.#waitingDrain || this.#queue.length > 0) return;
    if (!this.#stream.destroyed && this.#stream.writable) this.#stream.end();
  }

  #pump(): void {
    while (!this.#waitingDrain && !this.#failed && this.#queue.length > 0) {
      const entry = this.#queue.shift()!;
      this.#queuedBytes -= entry.bytes;
      entry.started = true;
      if (this.#stream.destroyed || !this.#stream.writable) {
        this.#fail(new OctetError("transport_closed", "the extension's stdin is closed"));
        return;
      }
      if (!this.#stream.write(entry.frame)) {
        this.#waitingDrain = true;
        this.#stream.once("drain", () => {
          this.#waitingDrain = false;
          this.#pump();
        });
      }
    }
    this.#endIfIdle();
  }

  #fail(error: OctetError): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#queue.length = 0;
    this.#queuedBytes = 0;
    this.#onFailure(error);
  }
}
