/**
 * The strict JSONL decoder: framing (FRAME-01/02), the 1 MiB bound checked before any LF
 * (FRAME-09), refused lines that never stop the stream (FRAME-10), and the rejection set of
 * reliability.md F1-F9, with property tests against an independent oracle (TextDecoder fatal +
 * JSON.parse on lines split at LF).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  JsonlDecoder,
  decodeLine,
  quoteBytes,
  type DecodedFrame,
  type FrameError,
  type FrameErrorCode,
} from "../../src/jsonl/decoder.js";
import { encodeFrame } from "../../src/jsonl/encode.js";
import { MAX_FRAME_BYTES, MAX_QUOTED_LINE_BYTES } from "../../src/bounds.js";

const te = new TextEncoder();
/**
 * The oracle's UTF-8 decoder. ignoreBOM: true keeps a leading U+FEFF as a character (as the
 * codec's own decoder does), so a BOM-prefixed line is invalid JSON instead of silently accepted.
 */
const fatalUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function bytes(...parts: (string | number[] | Uint8Array)[]): Uint8Array {
  const arrays = parts.map((p) => (typeof p === "string" ? te.encode(p) : Uint8Array.from(p)));
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}

function feed(decoder: JsonlDecoder, chunks: Uint8Array[]): DecodedFrame[] {
  return chunks.flatMap((c) => decoder.push(c));
}

// biome-ignore lint/suspicious/noShadowRestrictedNames: a module-level helper; it shadows no object's valueOf.
function valueOf(frame: DecodedFrame | undefined): unknown {
  assert.ok(frame, "expected a frame");
  if (!frame.ok) assert.fail(`expected a value, got ${frame.error.code}: ${frame.error.message}`);
  return frame.value;
}

function errorOf(frame: DecodedFrame | undefined, code: FrameErrorCode): FrameError {
  assert.ok(frame, "expected a frame");
  if (frame.ok) assert.fail(`expected ${code}, got the value ${JSON.stringify(frame.value)?.slice(0, 80)}`);
  assert.equal(frame.error.code, code, frame.error.message);
  return frame.error;
}

/** A JSON object text of exactly n UTF-8 bytes, padded with `fill` (n >= 8). */
function jsonTextOfBytes(n: number, fill = "a"): string {
  const fillBytes = te.encode(fill).length;
  const body = n - `{"s":""}`.length;
  const k = Math.floor(body / fillBytes);
  const text = `{"s":"${fill.repeat(k)}${"a".repeat(body - k * fillBytes)}"}`;
  assert.equal(te.encode(text).length, n);
  return text;
}

/** Inverse of quoteBytes, to check the quote is exact and unambiguous. */
function unquote(q: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < q.length; ) {
    if (q[i] === "\\" && q[i + 1] === "\\") {
      out.push(0x5c);
      i += 2;
    } else if (q[i] === "\\" && q[i + 1] === "x") {
      out.push(parseInt(q.slice(i + 2, i + 4), 16));
      i += 4;
    } else {
      out.push(q.charCodeAt(i));
      i += 1;
    }
  }
  return Uint8Array.from(out);
}

function assertPrintableAscii(s: string): void {
  assert.match(s, /^[\x20-\x7e]*$/, "quoted text must be printable ASCII");
}

// ---------------------------------------------------------------------------------------------
// The oracle: split the whole byte stream at LF, judge each line on its own.

type Outcome = { ok: true; value: unknown; bytes: number } | { ok: false; code: FrameErrorCode; fatal: boolean };

function oracleLine(line: Uint8Array): Outcome {
  if (line.length === 0) return { ok: false, code: "blank_line", fatal: false };
  if (line.includes(0x0d)) return { ok: false, code: "carriage_return", fatal: false };
  let text: string;
  try {
    text = fatalUtf8.decode(line);
  } catch {
    return { ok: false, code: "invalid_utf8", fatal: false };
  }
  try {
    return { ok: true, value: JSON.parse(text), bytes: line.length };
  } catch {
    return { ok: false, code: "invalid_json", fatal: false };
  }
}

function oracleStream(all: Uint8Array, max: number): Outcome[] {
  const out: Outcome[] = [];
  let start = 0;
  for (;;) {
    const nl = all.indexOf(0x0a, start);
    if (nl === -1) {
      const rest = all.length - start;
      if (rest > max) out.push({ ok: false, code: "frame_too_large", fatal: true });
      else if (rest > 0) out.push({ ok: false, code: "truncated_frame", fatal: true });
      return out;
    }
    if (nl - start > max) {
      out.push({ ok: false, code: "frame_too_large", fatal: true });
      return out;
    }
    out.push(oracleLine(all.subarray(start, nl)));
    start = nl + 1;
  }
}

function outcomes(frames: DecodedFrame[]): Outcome[] {
  return frames.map((f) =>
    f.ok ? { ok: true, value: f.value, bytes: f.bytes } : { ok: false, code: f.error.code, fatal: f.error.fatal },
  );
}

function concat(chunks: Uint8Array[]): Uint8Array {
  return bytes(...chunks);
}

/** Splits bytes at the given offsets (any order, duplicates allowed: they make empty chunks). */
function cut(all: Uint8Array, points: number[]): Uint8Array[] {
  const sorted = points.map((p) => p % (all.length + 1)).sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const p of sorted) {
    chunks.push(all.slice(prev, p));
    prev = p;
  }
  chunks.push(all.slice(prev));
  return chunks;
}

// ---------------------------------------------------------------------------------------------
// Framing

test("FRAME-01/FRAME-02: one JSON object per LF-terminated line, in order, across and within chunks", () => {
  const d = new JsonlDecoder();
  const frames = feed(d, [
    bytes('{"jsonrpc":"2.0","id":1,"method":"a"}\n{"jsonrpc":"2.0","method":"b"}\n{"jsonrpc"'),
    bytes(':"2.0","id":1,"result":{}}\n'),
  ]);
  assert.deepEqual(
    frames.map((f) => valueOf(f)),
    [
      { jsonrpc: "2.0", id: 1, method: "a" },
      { jsonrpc: "2.0", method: "b" },
      { jsonrpc: "2.0", id: 1, result: {} },
    ],
  );
  assert.equal(d.buffered, 0);
  assert.deepEqual(d.end(), []);
  assert.equal(d.failed, false);
});

test("FRAME-02: a frame is returned only when its LF arrives, with its byte count (LF not counted)", () => {
  const d = new JsonlDecoder();
  assert.deepEqual(d.push(bytes('{"a":"é"}')), []);
  assert.equal(d.buffered, 10);
  const frames = d.push(bytes("\n"));
  assert.equal(frames.length, 1);
  assert.deepEqual(frames[0], { ok: true, value: { a: "é" }, bytes: 10, text: '{"a":"é"}' });
  assert.equal(d.buffered, 0);
});

test("FRAME-02: empty chunks change nothing", () => {
  const d = new JsonlDecoder();
  assert.deepEqual(d.push(new Uint8Array(0)), []);
  assert.deepEqual(d.push(bytes('{"a"')), []);
  assert.deepEqual(d.push(new Uint8Array(0)), []);
  assert.deepEqual(valueOf(d.push(bytes(":1}\n"))[0]), { a: 1 });
  assert.deepEqual(d.push(new Uint8Array(0)), []);
});

test(
  "FRAME-02: the decoder copies what it keeps, so a caller may reuse its chunk buffer (Uint8Array " + "and Buffer)",
  () => {
    for (const make of [(s: string) => te.encode(s), (s: string) => Buffer.from(s)]) {
      const d = new JsonlDecoder();
      const chunk = make('{"a":1}');
      assert.deepEqual(d.push(chunk), []);
      chunk.set(te.encode('{"b":2}'));
      assert.deepEqual(valueOf(d.push(make("\n"))[0]), { a: 1 });
    }
  },
);

// ---------------------------------------------------------------------------------------------
// FRAME-09: the bound

test("FRAME-09: a frame of exactly 1 MiB is accepted and one of 1 MiB + 1 byte is refused", () => {
  const atLimit = jsonTextOfBytes(MAX_FRAME_BYTES);
  const d1 = new JsonlDecoder();
  const ok = d1.push(bytes(atLimit, "\n"));
  assert.equal(ok.length, 1);
  assert.equal(ok[0]?.ok && ok[0].bytes, MAX_FRAME_BYTES);
  assert.equal((valueOf(ok[0]) as { s: string }).s.length, MAX_FRAME_BYTES - 8);

  const d2 = new JsonlDecoder();
  const over = d2.push(bytes(jsonTextOfBytes(MAX_FRAME_BYTES + 1), "\n"));
  assert.equal(over.length, 1);
  const err = errorOf(over[0], "frame_too_large");
  assert.equal(err.fatal, true);
  assert.match(err.message, /1048576/);
  assert.equal(d2.failed, true);
  assert.equal(d2.buffered, 0);
});

test("FRAME-09: the bound counts UTF-8 bytes, not characters (3-byte and 4-byte fills)", () => {
  for (const fill of ["€", "😀"]) {
    const d = new JsonlDecoder();
    const text = jsonTextOfBytes(MAX_FRAME_BYTES, fill);
    assert.deepEqual(valueOf(d.push(bytes(text, "\n"))[0]), JSON.parse(text));
    const d2 = new JsonlDecoder();
    errorOf(d2.push(bytes(jsonTextOfBytes(MAX_FRAME_BYTES + 1, fill), "\n"))[0], "frame_too_large");
  }
});

test("FRAME-09: 1 MiB + 1 bytes with no LF is refused at once; buffered never exceeds the bound", () => {
  const d = new JsonlDecoder();
  const frames = d.push(new Uint8Array(MAX_FRAME_BYTES + 1).fill(0x61));
  assert.equal(frames.length, 1);
  assert.equal(errorOf(frames[0], "frame_too_large").fatal, true);
  assert.equal(d.failed, true);
  assert.equal(d.buffered, 0);
});

test("FRAME-09: dripped without LF, the byte past the bound is refused as it arrives, not at the LF", () => {
  const d = new JsonlDecoder();
  const chunk = new Uint8Array(4096).fill(0x61);
  let maxBuffered = 0;
  for (let sent = 0; sent < MAX_FRAME_BYTES; sent += chunk.length) {
    assert.deepEqual(d.push(chunk), []);
    maxBuffered = Math.max(maxBuffered, d.buffered);
  }
  assert.equal(d.buffered, MAX_FRAME_BYTES);
  assert.equal(maxBuffered, MAX_FRAME_BYTES);
  const frames = d.push(bytes("a"));
  assert.equal(frames.length, 1);
  const err = errorOf(frames[0], "frame_too_large");
  assert.equal(err.fatal, true);
  assert.equal(err.quoted, "a".repeat(MAX_QUOTED_LINE_BYTES));
  assert.equal(d.buffered, 0);
});

test("FRAME-09: with exactly 1 MiB buffered, an LF completes the frame", () => {
  const d = new JsonlDecoder();
  const text = bytes(jsonTextOfBytes(MAX_FRAME_BYTES));
  assert.deepEqual(d.push(text.subarray(0, 100)), []);
  assert.deepEqual(d.push(text.subarray(100)), []);
  assert.equal(d.buffered, MAX_FRAME_BYTES);
  const frames = d.push(bytes("\n"));
  assert.equal(frames.length, 1);
  assert.equal(frames[0]?.ok, true);
});

test(
  "FRAME-09: complete lines before an oversize line in the same chunk are still delivered, then the " + "fatal error",
  () => {
    const d = new JsonlDecoder({ maxFrameBytes: 16 });
    const frames = d.push(bytes('{"a":1}\n{"b":2}\n', "x".repeat(17), '\n{"c":3}\n'));
    assert.equal(frames.length, 3);
    assert.deepEqual(valueOf(frames[0]), { a: 1 });
    assert.deepEqual(valueOf(frames[1]), { b: 2 });
    errorOf(frames[2], "frame_too_large");
  },
);

test("FRAME-10: after a fatal error all later input is ignored, and end() reports nothing more", () => {
  const d = new JsonlDecoder({ maxFrameBytes: 8 });
  errorOf(d.push(bytes("123456789"))[0], "frame_too_large");
  assert.equal(d.failed, true);
  assert.deepEqual(d.push(bytes('{"a":1}\n')), []);
  assert.deepEqual(d.push(bytes("1\n")), []);
  assert.equal(d.buffered, 0);
  assert.deepEqual(d.end(), []);

  const t = new JsonlDecoder();
  assert.deepEqual(t.push(bytes("{")), []);
  errorOf(t.end()[0], "truncated_frame");
  assert.equal(t.failed, true);
  assert.deepEqual(t.push(bytes('{"a":1}\n')), []);
  assert.deepEqual(t.end(), []);
});

test("FRAME-09: the oversize quote comes from the start of the line, bounded to 256 bytes", () => {
  const d = new JsonlDecoder({ maxFrameBytes: 1000 });
  const line = bytes("HEAD", "b".repeat(996));
  assert.deepEqual(d.push(line), []);
  const err = errorOf(d.push(bytes("c"))[0], "frame_too_large");
  assert.equal(err.quoted, "HEAD" + "b".repeat(MAX_QUOTED_LINE_BYTES - 4));
});

test(
  "FRAME-09 (F7): a 1 MiB line dripped in 64-byte chunks is scanned once, byte by byte, and yields " + "one frame",
  () => {
    // Wall-clock time is left to benchmarks/ (machines are noisy). Structurally: every byte is
    // searched for LF exactly once (no rescans of buffered bytes), the line is searched for CR once,
    // and the bytes copied are bounded by a small multiple of the input (no concat per chunk).
    const text = bytes(jsonTextOfBytes(MAX_FRAME_BYTES), "\n");
    const proto = Uint8Array.prototype as unknown as Record<string, unknown>;
    const indexOf = Uint8Array.prototype.indexOf;
    const set = Uint8Array.prototype.set;
    let lfScanned = 0;
    let crScanned = 0;
    let copied = 0;
    Object.defineProperty(proto, "indexOf", {
      configurable: true,
      writable: true,
      value: function (this: Uint8Array, search: number, from?: number): number {
        const r = indexOf.call(this, search, from);
        const s = from ?? 0;
        const n = r === -1 ? this.length - s : r - s + 1;
        if (search === 0x0a) lfScanned += n;
        if (search === 0x0d) crScanned += n;
        return r;
      },
    });
    Object.defineProperty(proto, "set", {
      configurable: true,
      writable: true,
      value: function (this: Uint8Array, source: ArrayLike<number>, offset?: number): void {
        copied += source.length;
        set.call(this, source, offset);
      },
    });
    const d = new JsonlDecoder();
    const frames: DecodedFrame[] = [];
    let pushes = 0;
    let maxBuffered = 0;
    try {
      for (let at = 0; at < text.length; at += 64) {
        frames.push(...d.push(text.subarray(at, at + 64)));
        pushes++;
        maxBuffered = Math.max(maxBuffered, d.buffered);
      }
    } finally {
      delete proto["indexOf"];
      delete proto["set"];
    }
    assert.equal(pushes, Math.ceil((MAX_FRAME_BYTES + 1) / 64));
    assert.equal(frames.length, 1);
    assert.equal(frames[0]?.ok && frames[0].bytes, MAX_FRAME_BYTES);
    assert.deepEqual(valueOf(frames[0]), JSON.parse(new TextDecoder().decode(text)));
    assert.equal(lfScanned, text.length, "each byte searched for LF exactly once");
    assert.equal(crScanned, MAX_FRAME_BYTES, "the line searched for CR once");
    assert.ok(copied <= 2 * text.length, `copied ${copied} bytes for a ${text.length}-byte input`);
    assert.ok(maxBuffered <= MAX_FRAME_BYTES);
    assert.equal(d.buffered, 0);
  },
);

// ---------------------------------------------------------------------------------------------
// FRAME-10 and the rejection set: each refused line names its problem; the stream goes on.

test("FRAME-10: invalid JSON yields an error naming the problem and the decoder continues with the next line", () => {
  const d = new JsonlDecoder();
  const frames = d.push(bytes('hello from a console.log banner\n{"a":1,}\n{"ok":true}\n'));
  assert.equal(frames.length, 3);
  const banner = errorOf(frames[0], "invalid_json");
  assert.equal(banner.fatal, false);
  assert.match(banner.message, /not valid JSON/);
  assert.match(banner.message, /\(.+\)/, "carries the parser's reason");
  assert.equal(banner.quoted, "hello from a console.log banner");
  errorOf(frames[1], "invalid_json");
  assert.deepEqual(valueOf(frames[2]), { ok: true });
  assert.equal(d.failed, false);
});

test("FRAME-10: never truncates: a bad line is not partially parsed and does not eat the next line", () => {
  const d = new JsonlDecoder();
  const frames = feed(d, [bytes('{"a":[1,2'), bytes("\n"), bytes('3]}\n{"a":[1,2,3]}\n')]);
  assert.equal(frames.length, 3);
  errorOf(frames[0], "invalid_json");
  errorOf(frames[1], "invalid_json");
  assert.deepEqual(valueOf(frames[2]), { a: [1, 2, 3] });
});

test("FRAME-10: trailing garbage after a value is refused, not ignored", () => {
  for (const line of ['{"a":1}{"b":2}', '{"a":1} x', "1 2", '{"a":1}\u0000']) {
    errorOf(decodeLine(bytes(line)), "invalid_json");
  }
});

test("FRAME-02 (F2): a blank line is refused, and the stream goes on", () => {
  const d = new JsonlDecoder();
  const frames = d.push(bytes('{"a":1}\n\n{"b":2}\n'));
  assert.equal(frames.length, 3);
  const err = errorOf(frames[1], "blank_line");
  assert.equal(err.fatal, false);
  assert.equal(err.quoted, "");
  assert.deepEqual(valueOf(frames[2]), { b: 2 });
  errorOf(new JsonlDecoder().push(bytes("\n"))[0], "blank_line");
});

test("FRAME-02: a whitespace-only line is refused as invalid JSON", () => {
  errorOf(decodeLine(bytes("  \t ")), "invalid_json");
});

test("FRAME-02 (F3): CRLF is refused, naming the carriage return and its offset", () => {
  const d = new JsonlDecoder();
  const frames = d.push(bytes('{"a":1}\r\n{"b":2}\n'));
  assert.equal(frames.length, 2);
  const err = errorOf(frames[0], "carriage_return");
  assert.equal(err.fatal, false);
  assert.match(err.message, /byte 7/);
  assert.equal(err.quoted, '{"a":1}\\x0d');
  assert.deepEqual(valueOf(frames[1]), { b: 2 });
});

test("FRAME-02 (F3): a lone CR anywhere in a line is refused, even where JSON.parse allows it as whitespace", () => {
  for (const line of ['{"a":\r1}', '\r{"a":1}', '{"a":1}\r', "\r", '{"a":"x\ry"}']) {
    errorOf(decodeLine(bytes(line)), "carriage_return");
  }
  // The escape sequence \r (backslash, r) is ordinary JSON text and stays allowed.
  assert.deepEqual(valueOf(decodeLine(bytes('{"a":"x\\ry"}'))), { a: "x\ry" });
});

test("FRAME-02 (F9): invalid UTF-8 is refused: overlong, surrogate, truncated, stray bytes; the stream goes on", () => {
  const bad: number[][] = [
    [0xc0, 0xaf], // overlong "/"
    [0xc1, 0xbf], // overlong 2-byte
    [0xe0, 0x80, 0xaf], // overlong 3-byte "/"
    [0xf0, 0x80, 0x80, 0xaf], // overlong 4-byte "/"
    [0xed, 0xa0, 0x80], // U+D800 encoded (surrogate)
    [0xed, 0xbf, 0xbf], // U+DFFF encoded
    [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80], // CESU-8 surrogate pair
    [0xf4, 0x90, 0x80, 0x80], // above U+10FFFF
    [0xe2, 0x82], // truncated 3-byte sequence (then the closing quote)
    [0xf0, 0x9f, 0x98], // truncated 4-byte sequence
    [0x80], // lone continuation byte
    [0xff],
    [0xfe],
    [0xf5, 0x80, 0x80, 0x80],
  ];
  for (const seq of bad) {
    const d = new JsonlDecoder();
    const frames = d.push(bytes('{"s":"', seq, '"}\n{"ok":1}\n'));
    assert.equal(frames.length, 2, `sequence ${seq.map((b) => b.toString(16)).join(" ")}`);
    const err = errorOf(frames[0], "invalid_utf8");
    assert.equal(err.fatal, false);
    assertPrintableAscii(err.quoted);
    assert.deepEqual(valueOf(frames[1]), { ok: 1 });
  }
  // A truncated sequence at the very end of the line, just before the LF.
  errorOf(new JsonlDecoder().push(bytes('{"s":1}', [0xe2, 0x82], "\n"))[0], "invalid_utf8");
});

test(
  "FRAME-02: a UTF-8 character split across chunks is reassembled (every split of 2-, 3- and 4-byte " + "characters)",
  () => {
    for (const ch of ["é", "€", "😀", "\u2028"]) {
      const line = bytes(`{"s":"a${ch}b"}\n`);
      const start = 7;
      const n = te.encode(ch).length;
      for (let split = start + 1; split < start + n; split++) {
        const d = new JsonlDecoder();
        const frames = feed(d, [line.subarray(0, split), line.subarray(split)]);
        assert.deepEqual(valueOf(frames[0]), { s: `a${ch}b` });
      }
      // And one byte at a time.
      const d = new JsonlDecoder();
      const frames = feed(
        d,
        Array.from(line, (b) => Uint8Array.of(b)),
      );
      assert.equal(frames.length, 1);
      assert.deepEqual(valueOf(frames[0]), { s: `a${ch}b` });
    }
  },
);

test("FRAME-02: U+2028 and U+2029 inside strings are ordinary characters, kept intact", () => {
  const d = new JsonlDecoder();
  const frames = d.push(bytes('{"s":"a\u2028b\u2029c","\u2028":1}\n{"n":2}\n'));
  assert.equal(frames.length, 2);
  assert.deepEqual(valueOf(frames[0]), { s: "a\u2028b\u2029c", "\u2028": 1 });
  assert.deepEqual(valueOf(frames[1]), { n: 2 });
});

test("FRAME-02: a leading byte-order mark is not stripped: the line is refused as invalid JSON", () => {
  errorOf(decodeLine(bytes([0xef, 0xbb, 0xbf], '{"a":1}')), "invalid_json");
});

test("FRAME-02: lone-surrogate escapes are JSON text and decode to the same string JSON.parse gives", () => {
  assert.deepEqual(valueOf(decodeLine(bytes('{"s":"\\ud800x"}'))), { s: "\ud800x" });
});

test("FRAME-02: a __proto__ key stays an own data property and never changes the prototype", () => {
  const v = valueOf(decodeLine(bytes('{"__proto__":{"polluted":true}}'))) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.ok(Object.hasOwn(v, "__proto__"));
  assert.equal((v as { polluted?: unknown }).polluted, undefined);
});

test("FRAME-10 (F8): end of input with residue is a fatal truncated_frame quoting the residue", () => {
  const d = new JsonlDecoder();
  assert.deepEqual(d.push(bytes('{"a":1}\n{"b":')), [{ ok: true, value: { a: 1 }, bytes: 7, text: '{"a":1}' }]);
  const frames = d.end();
  assert.equal(frames.length, 1);
  const err = errorOf(frames[0], "truncated_frame");
  assert.equal(err.fatal, true);
  assert.equal(err.quoted, '{"b":');
  assert.equal(d.failed, true);
  assert.equal(d.buffered, 0);
  assert.deepEqual(d.end(), []);
});

test("FRAME-10: end of input after a complete stream reports nothing and is not a failure", () => {
  const d = new JsonlDecoder();
  d.push(bytes('{"a":1}\n'));
  assert.deepEqual(d.end(), []);
  assert.equal(d.failed, false);
});

test("FRAME-10 (F1): a refused line is quoted by its first 256 bytes only, escaped to printable ASCII", () => {
  const raw: number[] = [];
  for (let i = 0; i < 1000; i++) raw.push(i % 256 === 10 ? 11 : i % 256); // every byte but LF
  const line = Uint8Array.from(raw);
  const d = new JsonlDecoder();
  const frames = d.push(bytes(line, "\n"));
  const err = frames[0]?.ok === false ? frames[0].error : assert.fail("expected an error");
  assertPrintableAscii(err.quoted);
  assert.ok(err.quoted.length <= 4 * MAX_QUOTED_LINE_BYTES);
  assert.deepEqual(unquote(err.quoted), line.subarray(0, MAX_QUOTED_LINE_BYTES));
  assert.doesNotMatch(err.message, /[\x00-\x1f\x7f]/);
});

test("FRAME-10 (F1): quoteBytes escapes control bytes, DEL, non-ASCII and the backslash itself", () => {
  assert.equal(quoteBytes(bytes("a\\b")), "a\\\\b");
  assert.equal(
    quoteBytes(Uint8Array.of(0x00, 0x09, 0x0a, 0x0d, 0x1b, 0x7f, 0x80, 0xff)),
    "\\x00\\x09\\x0a\\x0d\\x1b\\x7f\\x80\\xff",
  );
  assert.equal(quoteBytes(bytes("é")), "\\xc3\\xa9");
  assert.equal(quoteBytes(bytes(' ~"')), ' ~"');
});

// ---------------------------------------------------------------------------------------------
// Properties

/** String units biased toward what breaks framings: multibyte, U+2028/9, emoji, LF/CR, surrogates. */
const tricky = fc.constantFrom(
  "\u2028",
  "\u2029",
  "😀",
  "👩‍💻",
  "𝄞",
  "é",
  "€",
  "\u00a0",
  "\ufeff",
  "\n",
  "\r",
  "\t",
  "\0",
  "\\",
  '"',
  "\ud800",
  "\udfff",
  "\u0085",
);
const unit = fc.oneof(
  tricky,
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
);
const jsonish = fc.jsonValue({ stringUnit: unit, maxDepth: 3 });
const message = fc.oneof(
  fc.record({
    jsonrpc: fc.constant("2.0"),
    id: fc.oneof(fc.nat(), fc.string({ unit, maxLength: 8 })),
    method: fc.string({ unit, minLength: 1, maxLength: 12 }),
    params: fc.dictionary(fc.string({ unit, maxLength: 6 }), jsonish, { maxKeys: 4 }),
  }),
  fc.dictionary(fc.string({ unit, maxLength: 6 }), jsonish, { maxKeys: 5 }),
);

test(
  "FRAME-02 (F6) property: encoded messages cut at any points, even inside UTF-8, decode to the same " +
    "values in order",
  () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 24 }), (messages, points) => {
        const wire = bytes(...messages.map((m) => encodeFrame(m)));
        const d = new JsonlDecoder();
        const frames = feed(d, cut(wire, points));
        assert.deepEqual(
          frames.map((f) => valueOf(f)),
          messages.map((m) => JSON.parse(JSON.stringify(m)) as unknown),
        );
        assert.equal(d.buffered, 0);
        assert.deepEqual(d.end(), []);
      }),
      { seed: 42, numRuns: 800 },
    );
  },
);

/** Chunks of bytes biased toward separators, CR, JSON punctuation and UTF-8 lead/continuation bytes. */
const biasedByte = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      0x0a,
      0x0d,
      0x7b,
      0x7d,
      0x22,
      0x31,
      0x3a,
      0x20,
      0x5c,
      0xe2,
      0x80,
      0xa8,
      0xc3,
      0xa9,
      0xff,
      0xed,
      0xf0,
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) },
);
const chunk = fc.oneof(
  fc.uint8Array({ maxLength: 48 }),
  fc.array(biasedByte, { maxLength: 48 }).map((a) => Uint8Array.from(a)),
  message.map((m) => te.encode(encodeFrame(m))),
);
const allCodes: FrameErrorCode[] = [
  "frame_too_large",
  "blank_line",
  "carriage_return",
  "invalid_utf8",
  "invalid_json",
  "truncated_frame",
];

test(
  "FRAME-10 (F5) property: totality: arbitrary chunks never throw, buffered stays within the bound, and " +
    "the results are the oracle's",
  () => {
    fc.assert(
      fc.property(
        fc.array(chunk, { maxLength: 12 }),
        fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 64, max: 8192 })),
        fc.boolean(),
        (chunks, max, callEnd) => {
          const d = new JsonlDecoder({ maxFrameBytes: max });
          const frames: DecodedFrame[] = [];
          let fatalSeen = false;
          for (const c of chunks) {
            const out = d.push(c);
            if (fatalSeen) assert.deepEqual(out, [], "nothing after a fatal error");
            for (const f of out) if (!f.ok && f.error.fatal) fatalSeen = true;
            frames.push(...out);
            assert.ok(d.buffered >= 0 && d.buffered <= max, `buffered ${d.buffered} > ${max}`);
            assert.equal(d.failed, fatalSeen);
          }
          if (callEnd) frames.push(...d.end());
          for (const f of frames) {
            if (f.ok) continue;
            assert.ok(allCodes.includes(f.error.code));
            assert.equal(typeof f.error.message, "string");
            assert.ok(f.error.message.length > 0);
            assert.equal(f.error.fatal, f.error.code === "frame_too_large" || f.error.code === "truncated_frame");
            assertPrintableAscii(f.error.quoted);
            assert.ok(unquote(f.error.quoted).length <= MAX_QUOTED_LINE_BYTES);
          }
          assert.ok(frames.filter((f) => !f.ok && f.error.fatal).length <= 1, "at most one fatal error");
          const expected = oracleStream(concat(chunks), max);
          if (
            !callEnd &&
            expected.at(-1)?.ok === false &&
            (expected.at(-1) as { code: string }).code === "truncated_frame"
          )
            expected.pop();
          assert.deepEqual(outcomes(frames), expected);
        },
      ),
      { seed: 42, numRuns: 3000 },
    );
  },
);

/** Byte-level mutations of a valid frame: overwrite, insert, delete, truncate. */
type Mutation = { kind: "set" | "insert"; at: number; byte: number } | { kind: "delete" | "truncate"; at: number };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constantFrom("set" as const, "insert" as const), at: fc.nat(), byte: biasedByte }),
  fc.record({ kind: fc.constantFrom("delete" as const, "truncate" as const), at: fc.nat() }),
);

function mutate(line: Uint8Array, ms: Mutation[]): Uint8Array {
  const b = Array.from(line);
  for (const m of ms) {
    const at = b.length === 0 ? 0 : m.at % (b.length + (m.kind === "insert" ? 1 : 0));
    if (m.kind === "set" && b.length > 0) b[at] = m.byte;
    else if (m.kind === "insert") b.splice(at, 0, m.byte);
    else if (m.kind === "delete") b.splice(at, 1);
    else if (m.kind === "truncate") b.length = at;
  }
  return Uint8Array.from(b);
}

const line = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(message, fc.array(mutation, { minLength: 1, maxLength: 3 }))
      .map(([m, ms]) => mutate(te.encode(JSON.stringify(m)), ms)),
  },
  { weight: 1, arbitrary: message.map((m) => te.encode(JSON.stringify(m))) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom("", "\r", "{}\r", '{"a":\r1}', " ", "null", "[1]", '"x"', "\ufeff{}")
      .map((s) => te.encode(s)),
  },
);

test(
  "FRAME-10 (F1-F3, F9) property: every line is judged exactly as the oracle judges it; CR, blank and " +
    "invalid lines are refused",
  () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (lines, points) => {
          const wire = bytes(...lines.flatMap((l) => [l, "\n"]));
          const d = new JsonlDecoder();
          const frames = feed(d, cut(wire, points));
          frames.push(...d.end());
          const expected = oracleStream(wire, MAX_FRAME_BYTES);
          assert.deepEqual(outcomes(frames), expected);
          // The rejection set, stated directly as well as through the oracle: one result per physical
          // line, and any blank line or line holding a CR is refused.
          const physical: Uint8Array[] = [];
          let start = 0;
          for (let nl = wire.indexOf(0x0a); nl !== -1; start = nl + 1, nl = wire.indexOf(0x0a, start))
            physical.push(wire.subarray(start, nl));
          assert.equal(frames.length, physical.length);
          physical.forEach((p, i) => {
            const f = frames[i]!;
            if (p.length === 0) errorOf(f, "blank_line");
            else if (p.includes(0x0d)) errorOf(f, "carriage_return");
          });
        },
      ),
      { seed: 42, numRuns: 1500 },
    );
  },
);

test(
  "FRAME-02, FRAME-10: lines joined from Node Buffer chunks take the native CR search and ASCII read, and " +
    "are judged as the oracle judges them",
  () => {
    // With Buffer chunks (what a Node stream delivers) a joined line is a Buffer view and a long
    // ASCII line is read as latin1; every verdict and value must stay the oracle's, at and around
    // the 4096-byte point where the ASCII read starts, with a CR, non-ASCII text and bad UTF-8 in it.
    const { Buffer } = globalThis as unknown as { Buffer: { from(b: Uint8Array): Uint8Array } };
    const line = (n: number, tail: string | number[]): Uint8Array => {
      const end = bytes(tail);
      const head = `"${"a".repeat(Math.max(0, n - end.length - 2))}`;
      return bytes(head, end, '"');
    };
    const lines: Uint8Array[] = [];
    for (const n of [4094, 4095, 4096, 4097, 70_000]) {
      lines.push(line(n, "x")); // ASCII
      lines.push(line(n, "é")); // non-ASCII, valid
      lines.push(line(n, [0xc3])); // a lead byte without its continuation
      lines.push(line(n, [0x0d])); // a raw CR near the end
      lines.push(bytes(line(n, "z").subarray(0, 10), [0x0d], line(n, "z").subarray(11))); // a CR near the start
    }
    const wire = bytes(...lines.flatMap((l) => [l, "\n"]));
    const expected = oracleStream(wire, MAX_FRAME_BYTES);
    for (const size of [1000, 4096, 65_536]) {
      const d = new JsonlDecoder({ borrowChunks: true });
      const frames: DecodedFrame[] = [];
      for (let at = 0; at < wire.length; at += size) frames.push(...d.push(Buffer.from(wire.subarray(at, at + size))));
      assert.deepEqual(outcomes(frames), expected, `chunks of ${size} bytes`);
      for (const f of frames) if (f.ok) assert.equal(typeof f.text, "string");
    }
    const crAt = new JsonlDecoder().push(Buffer.from(bytes(line(5000, [0x0d]), "\n")))[0];
    assert.equal(errorOf(crAt, "carriage_return").message.includes(`at byte ${5000 - 2}`), true);
  },
);
