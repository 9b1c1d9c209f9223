/**
 * The single bounded writer of one child's stdin (FRAME-06): a FrameQueue over the pipe, plus
 * the host's bound on what may wait. If more than 8 MiB wait because the child stopped reading,
 * the writer fails (writer_stalled) instead of buffering without bound; a pipe error (EPIPE)
 * fails it with transport_closed. It never throws.
 */
import type { Writable } from "node:stream";
import { FrameQueue, OctetError, bounds, type PeerTransport, type SendTicket } from "@octet/protocol";

/**
 * A tick's frames leave in writes of at most this many. One writev per tick saved syscalls but
 * held a burst (a read of 64 responses starts 64 calls) until the tick ended, so the extension on
 * another CPU sat idle and then got all of it at once. Flushing every 32 frames (here and in the
 * TS SDK's writer) lets it start on the first ones: small calls at 64 in flight 90-93k -> 111-114k
 * per second on two CPUs, 77k -> 74-77k on one shared CPU, where every write is a wake-up; 16
 * measured 118k and 69-74k, no cork at all 113k and 64-67k (docs/decisions.md).
 */
export const MAX_CORKED_FRAMES = 32;

export class ChildWriter implements PeerTransport {
  readonly #stream: Writable;
  readonly #onFailure: (error: OctetError) => void;
  readonly #queue: FrameQueue;
  #failed = false;
  #corked = false;
  /** Frames written since the stream was last corked. */
  #corkedFrames = 0;
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
          const ok = stream.write(frame);
          if (this.#corked && ++this.#corkedFrames >= MAX_CORKED_FRAMES) {
            this.#corkedFrames = 0;
            stream.uncork();
            stream.cork();
          }
          return ok;
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
