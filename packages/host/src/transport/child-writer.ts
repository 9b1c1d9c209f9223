/**
 * The single bounded writer of one child's stdin (FRAME-06): a FrameQueue over the pipe, plus
 * the host's bound on what may wait. If more than 8 MiB wait because the child stopped reading,
 * the writer fails (writer_stalled) instead of buffering without bound; a pipe error (EPIPE)
 * fails it with transport_closed. It never throws.
 */
import type { Writable } from "node:stream";
import { FrameQueue, OctetError, bounds, type PeerTransport, type SendTicket } from "@octet/protocol";

export class ChildWriter implements PeerTransport {
  readonly #stream: Writable;
  readonly #onFailure: (error: OctetError) => void;
  readonly #queue: FrameQueue;
  #failed = false;
  #corked = false;
  readonly #batches: boolean;

  constructor(stream: Writable, onFailure: (error: OctetError) => void) {
    this.#stream = stream;
    this.#onFailure = onFailure;
    this.#batches = typeof (stream as unknown as { _writev?: unknown })._writev === "function";
    this.#queue = new FrameQueue(
      {
        write: (frame) => {
          if (stream.destroyed || !stream.writable) {
            this.#fail(new OctetError("transport_closed", "the extension's stdin is closed"));
            return true;
          }
          // Frames written in one tick leave in one writev: cork now, uncork on the next tick. Only
          // where the stream has a writev (pipes and sockets do), else corking would only delay.
          if (!this.#corked && this.#batches) {
            this.#corked = true;
            stream.cork();
            process.nextTick(() => {
              this.#corked = false;
              stream.uncork();
            });
          }
          return stream.write(frame);
        },
        onceDrain: (resume) => stream.once("drain", resume),
      },
      { measure: (frame) => Buffer.byteLength(frame) },
    );
    stream.on("error", (err: Error) =>
      this.#fail(new OctetError("transport_closed", `writing to the extension failed: ${err.message}`)),
    );
  }

  /** Bytes waiting: queued frames plus what the stream buffers. */
  get queuedBytes(): number {
    return this.#queue.queuedSize + this.#stream.writableLength;
  }

  send(frame: string): SendTicket {
    if (this.#failed) return { withdraw: () => false };
    if (this.queuedBytes + Buffer.byteLength(frame) > bounds.MAX_WRITER_QUEUE_BYTES) {
      this.#fail(
        new OctetError(
          "writer_stalled",
          `the extension is not reading its stdin: ${this.queuedBytes} bytes are waiting, over the ` +
            `${bounds.MAX_WRITER_QUEUE_BYTES}-byte writer bound`,
        ),
      );
      return { withdraw: () => false };
    }
    return this.#queue.send(frame);
  }

  /** Closes stdin after the queue: only as the last-resort teardown, never as the shutdown signal. */
  end(): void {
    void this.#queue.drained().then(() => {
      if (!this.#failed && !this.#stream.destroyed && this.#stream.writable) this.#stream.end();
    });
  }

  #fail(error: OctetError): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#queue.close();
    this.#onFailure(error);
  }
}
