/**
 * Where a child's stderr goes: always drained (a chatty child never blocks, FRAME-04), kept as a
 * bounded tail for status, and surfaced as line-sized diagnostic events capped at 4 KiB each and
 * rate-limited, with one summary of what was suppressed (FRAME-05).
 */
import { bounds } from "@octet/protocol";

/** Diagnostic lines emitted per second before suppression starts. */
export const STDERR_LINES_PER_SECOND = 50;

export class StderrSink {
  readonly #emit: (line: string) => void;
  readonly #now: () => number;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  #partial = "";
  /** True while dropping the rest of an over-long line already reported. */
  #skipping = false;
  #windowStart = 0;
  #windowCount = 0;
  #suppressed = 0;
  readonly #decoder = new TextDecoder("utf-8");

  constructor(emit: (line: string) => void, now: () => number = Date.now) {
    this.#emit = emit;
    this.#now = now;
  }

  write(chunk: Buffer): void {
    this.#keep(chunk);
    const text = this.#partial + this.#decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    this.#partial = lines.pop() ?? "";
    for (const line of lines) {
      // The end of an over-long line whose head was already reported: not a line of its own.
      if (this.#skipping) this.#skipping = false;
      else this.#line(line);
    }
    if (this.#skipping) this.#partial = ""; // no LF yet: still inside the over-long line
    // An unterminated line past the cap is reported now (truncated), after the lines before it,
    // and the rest of it is dropped up to its LF, so memory stays bounded and chunking is invisible.
    if (this.#partial.length > bounds.MAX_DIAGNOSTIC_BYTES) {
      this.#line(this.#partial);
      this.#partial = "";
      this.#skipping = true;
    }
  }

  /** Flushes a final unterminated line and the suppression summary. */
  end(): void {
    const rest = this.#partial + this.#decoder.decode();
    this.#partial = "";
    if (rest !== "" && !this.#skipping) this.#line(rest);
    this.#skipping = false;
    this.#summarize();
  }

  /** The last bytes written (at most 64 KiB), decoded leniently. */
  tail(maxBytes: number = bounds.MAX_STDERR_TAIL_BYTES): string {
    const all = Buffer.concat(this.#tail);
    return all.subarray(Math.max(0, all.length - maxBytes)).toString("utf8");
  }

  #keep(chunk: Buffer): void {
    this.#tail.push(Buffer.from(chunk));
    this.#tailBytes += chunk.length;
    while (this.#tailBytes > bounds.MAX_STDERR_TAIL_BYTES && this.#tail.length > 1) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
    if (this.#tailBytes > bounds.MAX_STDERR_TAIL_BYTES) {
      const only = this.#tail[0]!;
      this.#tail = [only.subarray(only.length - bounds.MAX_STDERR_TAIL_BYTES)];
      this.#tailBytes = bounds.MAX_STDERR_TAIL_BYTES;
    }
  }

  #line(raw: string): void {
    const now = this.#now();
    if (now - this.#windowStart >= 1000) {
      this.#summarize();
      this.#windowStart = now;
      this.#windowCount = 0;
    }
    if (this.#windowCount >= STDERR_LINES_PER_SECOND) {
      this.#suppressed++;
      return;
    }
    this.#windowCount++;
    this.#emit(truncateBytes(raw, bounds.MAX_DIAGNOSTIC_BYTES));
  }

  #summarize(): void {
    if (this.#suppressed === 0) return;
    this.#emit(`(${this.#suppressed} more stderr lines suppressed; over ${STDERR_LINES_PER_SECOND} lines per second)`);
    this.#suppressed = 0;
  }
}

/** Cuts a string to at most `max` UTF-8 bytes on a character boundary, marking the cut. */
export function truncateBytes(s: string, max: number): string {
  if (Buffer.byteLength(s) <= max) return s;
  const marker = "…";
  let cut = Buffer.from(s).subarray(0, max - Buffer.byteLength(marker)).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  return cut + marker;
}
