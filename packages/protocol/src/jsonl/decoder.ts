/**
 * The strict JSONL frame decoder: one JSON value per LF-terminated line, bounded before parsing.
 *
 * Contract:
 * - LF (0x0A) is the only separator. A raw CR anywhere in a line, a blank line, invalid UTF-8 or
 *   invalid JSON yields a FrameError for that line; the decoder then goes on with the next line.
 * - A line longer than maxFrameBytes yields one fatal "frame_too_large" error as soon as the byte
 *   past the bound arrives, without waiting for its LF; the decoder then discards all further input.
 * - Bytes are kept as a list of chunks and only new bytes are scanned, so a line dripped in small
 *   chunks costs linear time. UTF-8 split across chunks is reassembled, since only whole lines are
 *   decoded. U+2028/U+2029 inside strings are ordinary characters.
 * It does not validate envelopes (see jsonrpc.ts) and never truncates or skips a line silently.
 */
import { MAX_FRAME_BYTES, MAX_QUOTED_LINE_BYTES } from "../bounds.js";
import { platformNativeBytes } from "../platform.js";
import { decodeUtf8 } from "./utf8.js";

/**
 * Node's Buffer where there is one: a line joined from a stream's Buffer chunks is handed on as a
 * Buffer view, so its CR search is Buffer's memchr (5 us for 512 KiB) instead of
 * Uint8Array.prototype.indexOf's element loop (150 us), and a long ASCII line is read as latin1
 * (a copy) instead of through the fatal UTF-8 decoder (500 us for 512 KiB). Elsewhere, or for
 * plain Uint8Array input, the portable paths run as before.
 */
const native = platformNativeBytes();
/** From this length a line is checked for ASCII first; below it the decoder is as fast. */
const ASCII_FROM_BYTES = 4096;

export type FrameErrorCode =
  | "frame_too_large"
  | "blank_line"
  | "carriage_return"
  | "invalid_utf8"
  | "invalid_json"
  | "truncated_frame";

export interface FrameError {
  code: FrameErrorCode;
  message: string;
  /** True when the stream can no longer be read (oversize, or end of input inside a frame). */
  fatal: boolean;
  /** The first bytes of the offending line, escaped to printable ASCII. */
  quoted: string;
}

/** `text` is the line as decoded (kept for checks JSON.parse cannot make, such as duplicate keys). */
export type DecodedFrame = { ok: true; value: unknown; bytes: number; text: string } | { ok: false; error: FrameError };

const LF = 0x0a;
/** Lines at least this long are joined into the decoder's reused memory (see #scratch). */
const REUSE_FROM_BYTES = 64 * 1024;
const CR = 0x0d;

export class JsonlDecoder {
  readonly #max: number;
  #parts: Uint8Array[] = [];
  #length = 0;
  #failed = false;

  readonly #borrow: boolean;

  /**
   * `borrowChunks`: the caller never reuses a chunk's memory after push() (a Node stream's 'data'
   * chunks are fresh per read), so the unfinished tail of a chunk is kept as a view instead of a
   * copy; a frame spread over many chunks is then copied once, when its line is joined.
   */
  constructor(options: { maxFrameBytes?: number; borrowChunks?: boolean } = {}) {
    this.#max = options.maxFrameBytes ?? MAX_FRAME_BYTES;
    this.#borrow = options.borrowChunks === true;
  }

  /** True once a fatal error was reported; all later input is ignored. */
  get failed(): boolean {
    return this.#failed;
  }

  /** Bytes held for the current unfinished line (never more than maxFrameBytes). */
  get buffered(): number {
    return this.#length;
  }

  push(chunk: Uint8Array): DecodedFrame[] {
    const out: DecodedFrame[] = [];
    if (this.#failed) return out;
    let start = 0;
    while (start <= chunk.length) {
      const nl = chunk.indexOf(LF, start);
      if (nl === -1) {
        const rest = chunk.length - start;
        if (rest === 0) break;
        if (this.#length + rest > this.#max) {
          out.push(this.#fail(chunk.subarray(start, start + Math.min(rest, MAX_QUOTED_LINE_BYTES))));
          return out;
        }
        // Copy unless borrowing: the caller may reuse its chunk buffer. Not chunk.slice(): on a
        // Node Buffer (a Uint8Array subclass) slice() returns a view of the same memory, not a copy.
        let kept: Uint8Array;
        if (this.#borrow) kept = chunk.subarray(start);
        else {
          kept = new Uint8Array(rest);
          kept.set(chunk.subarray(start));
        }
        this.#parts.push(kept);
        this.#length += rest;
        break;
      }
      const pieceLength = nl - start;
      if (this.#length + pieceLength > this.#max) {
        out.push(this.#fail(chunk.subarray(start, start + Math.min(pieceLength, MAX_QUOTED_LINE_BYTES))));
        return out;
      }
      const piece = chunk.subarray(start, nl);
      const line = this.#length === 0 ? piece : this.#join(piece);
      out.push(decodeLine(line));
      start = nl + 1;
    }
    return out;
  }

  /** Call at end of input: a partial line left over is a truncated frame (fatal). */
  end(): DecodedFrame[] {
    if (this.#failed || this.#length === 0) return [];
    const head = this.#join(new Uint8Array(0)).subarray(0, MAX_QUOTED_LINE_BYTES);
    this.#failed = true;
    return [
      {
        ok: false,
        error: {
          code: "truncated_frame",
          message: "input ended inside a frame (no terminating LF)",
          fatal: true,
          quoted: quoteBytes(head),
        },
      },
    ];
  }

  /**
   * The memory a long line is joined into, kept for the next one: a fresh 512 KiB array per frame
   * cost fresh pages (page faults) on every large result, about a fifth of reading one. Nothing
   * outside the decoder sees a joined line (it is decoded into a string at once), so reusing it is
   * safe; it grows to the longest line seen, at most maxFrameBytes.
   */
  #scratch: Uint8Array | null = null;

  #join(last: Uint8Array): Uint8Array {
    const n = this.#length + last.length;
    let line: Uint8Array;
    if (n < REUSE_FROM_BYTES) line = new Uint8Array(n);
    else {
      if (!this.#scratch || this.#scratch.length < n)
        this.#scratch = new Uint8Array(Math.min(Math.max(n, 2 * (this.#scratch?.length ?? 0)), this.#max));
      line = this.#scratch.subarray(0, n);
    }
    let at = 0;
    for (const p of this.#parts) {
      line.set(p, at);
      at += p.length;
    }
    line.set(last, at);
    this.#parts = [];
    this.#length = 0;
    // The joined line is of the chunks' kind: a Buffer view when they were Buffers.
    return native !== null && native.owns(last) ? native.view(line) : line;
  }

  #fail(tail: Uint8Array): DecodedFrame {
    const head = this.#parts.length > 0 ? this.#join(new Uint8Array(0)).subarray(0, MAX_QUOTED_LINE_BYTES) : tail;
    this.#parts = [];
    this.#length = 0;
    this.#failed = true;
    return {
      ok: false,
      error: {
        code: "frame_too_large",
        message: `frame exceeds the ${this.#max}-byte limit`,
        fatal: true,
        quoted: quoteBytes(head),
      },
    };
  }
}

function lineError(code: FrameErrorCode, message: string, line: Uint8Array): DecodedFrame {
  return {
    ok: false,
    error: { code, message, fatal: false, quoted: quoteBytes(line.subarray(0, MAX_QUOTED_LINE_BYTES)) },
  };
}

/** Decodes one complete line (without its LF). Exported for tests and single-line callers. */
export function decodeLine(line: Uint8Array): DecodedFrame {
  if (line.length === 0) return lineError("blank_line", "blank line (an empty frame is not allowed)", line);
  const cr = line.indexOf(CR);
  if (cr !== -1)
    return lineError(
      "carriage_return",
      `raw carriage return at byte ${cr} (CRLF and CR are not allowed; frames end with LF only)`,
      line,
    );
  let text: string;
  try {
    text = (line.length >= ASCII_FROM_BYTES && native !== null ? native.ascii(line) : null) ?? decodeUtf8(line);
  } catch {
    return lineError("invalid_utf8", "frame is not valid UTF-8", line);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return lineError("invalid_json", `frame is not valid JSON (${detail.slice(0, 120)})`, line);
  }
  return { ok: true, value, bytes: line.length, text };
}

/** Printable-ASCII rendering of bytes for diagnostics: anything else becomes \xNN. */
export function quoteBytes(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) {
    if (b >= 0x20 && b < 0x7f && b !== 0x5c) s += String.fromCharCode(b);
    else if (b === 0x5c) s += "\\\\";
    else s += "\\x" + b.toString(16).padStart(2, "0");
  }
  return s;
}
