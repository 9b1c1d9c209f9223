/**
 * Where a child's stderr goes: always drained (a chatty child never blocks, FRAME-04), kept as a
 * bounded tail for status, and surfaced as line-sized diagnostic events capped at 4 KiB each and
 * rate-limited, with one summary of what was suppressed (FRAME-05).
 *
 * Draining stays cheap per byte whatever the shape of the output (issue 13: 200 MiB of blank
 * lines used to cost a string and a clock read per line). Lines are found in the bytes; only a
 * line that is emitted is ever decoded, the clock is read once per chunk, and once a second's
 * quota is spent the rest of a chunk is only counted (a byte loop, no allocation) until the
 * next second. An unfinished line holds at most 4 KiB + 4 bytes.
 */
import { bounds, truncateUtf8 } from "@octet/protocol";

/** Diagnostic lines emitted per second before suppression starts. */
export const STDERR_LINES_PER_SECOND = 50;

const LF = 0x0a;
/** Bytes of a line worth keeping: enough for truncateBytes to cut at MAX_DIAGNOSTIC_BYTES. */
const KEEP = bounds.MAX_DIAGNOSTIC_BYTES + 4;

export class StderrSink {
  readonly #emit: (line: string) => void;
  readonly #now: () => number;
  #tail: Buffer[] = [];
  #tailBytes = 0;
  /** The unfinished line (at most KEEP bytes). */
  #partial: Buffer[] = [];
  #partialBytes = 0;
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
    // One reading of the clock per chunk: its lines arrived together.
    this.#roll(this.#now());
    let start = 0;
    while (start < chunk.length) {
      if (this.#windowCount >= STDERR_LINES_PER_SECOND) {
        start = this.#countSuppressed(chunk, start);
        break;
      }
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) break;
      this.#lineEnds(chunk.subarray(start, nl));
      start = nl + 1;
    }
    if (start < chunk.length) this.#hold(chunk.subarray(start));
  }

  /** Flushes a final unterminated line and the suppression summary. */
  end(): void {
    this.#roll(this.#now());
    if (this.#partialBytes > 0 && !this.#skipping) this.#line(this.#takePartial());
    this.#partial = [];
    this.#partialBytes = 0;
    this.#skipping = false;
    this.#summarize();
  }

  /** The last bytes written (at most 64 KiB), decoded leniently. */
  tail(maxBytes: number = bounds.MAX_STDERR_TAIL_BYTES): string {
    const all = Buffer.concat(this.#tail);
    return all.subarray(Math.max(0, all.length - maxBytes)).toString("utf8");
  }

  #keep(chunk: Buffer): void {
    const max = bounds.MAX_STDERR_TAIL_BYTES;
    if (chunk.length >= max) {
      this.#tail = [Buffer.from(chunk.subarray(chunk.length - max))];
      this.#tailBytes = max;
      return;
    }
    this.#tail.push(Buffer.from(chunk));
    this.#tailBytes += chunk.length;
    while (this.#tailBytes > max && this.#tail.length > 1) {
      this.#tailBytes -= this.#tail.shift()!.length;
    }
    if (this.#tailBytes > max) {
      const only = this.#tail[0]!;
      this.#tail = [only.subarray(only.length - max)];
      this.#tailBytes = max;
    }
  }

  /**
   * The quota is spent: the complete lines from `start` on are counted, not read, and the bytes
   * after the last LF become the unfinished line. Returns where that unfinished line begins.
   */
  #countSuppressed(chunk: Buffer, start: number): number {
    const last = chunk.lastIndexOf(LF);
    if (last < start) return start;
    let lines = 0;
    for (let i = start; i <= last; i++) if (chunk[i] === LF) lines++;
    // The first LF ends the line already begun: not a line of its own if it was reported whole.
    if (this.#skipping) lines--;
    this.#suppressed += lines;
    this.#partial = [];
    this.#partialBytes = 0;
    this.#skipping = false;
    return last + 1;
  }

  /** A line's last bytes (before its LF) arrived. */
  #lineEnds(piece: Buffer): void {
    if (this.#skipping) {
      // The end of an over-long line whose head was already reported: not a line of its own.
      this.#skipping = false;
      this.#partial = [];
      this.#partialBytes = 0;
      return;
    }
    if (this.#partialBytes === 0) return this.#line(piece.subarray(0, KEEP));
    this.#append(piece);
    this.#line(this.#takePartial());
  }

  /** Bytes of a line not finished yet. Past the cap it is reported now, and the rest dropped. */
  #hold(bytes: Buffer): void {
    if (this.#skipping) return;
    this.#append(bytes);
    if (this.#partialBytes > bounds.MAX_DIAGNOSTIC_BYTES) {
      this.#line(this.#takePartial());
      this.#skipping = true;
    }
  }

  #append(bytes: Buffer): void {
    const room = KEEP - this.#partialBytes;
    if (room <= 0) return;
    const kept = Buffer.from(bytes.subarray(0, room)); // a copy: the chunk's memory is not ours
    this.#partial.push(kept);
    this.#partialBytes += kept.length;
  }

  #takePartial(): Buffer {
    const line = this.#partial.length === 1 ? this.#partial[0]! : Buffer.concat(this.#partial);
    this.#partial = [];
    this.#partialBytes = 0;
    return line;
  }

  #roll(now: number): void {
    if (now - this.#windowStart >= 1000) {
      this.#summarize();
      this.#windowStart = now;
      this.#windowCount = 0;
    }
  }

  /** One complete line (at most KEEP bytes of it): emitted within the quota, else counted. */
  #line(bytes: Uint8Array): void {
    if (this.#windowCount >= STDERR_LINES_PER_SECOND) {
      this.#suppressed++;
      return;
    }
    this.#windowCount++;
    this.#emit(truncateBytes(this.#decoder.decode(bytes), bounds.MAX_DIAGNOSTIC_BYTES));
  }

  #summarize(): void {
    if (this.#suppressed === 0) return;
    this.#emit(`(${this.#suppressed} more stderr lines suppressed; over ${STDERR_LINES_PER_SECOND} lines per second)`);
    this.#suppressed = 0;
  }
}

/** Cuts a string to at most `max` UTF-8 bytes on a character boundary; the host marks its cuts with "…". */
export function truncateBytes(s: string, max: number): string {
  return truncateUtf8(s, max, "…");
}
