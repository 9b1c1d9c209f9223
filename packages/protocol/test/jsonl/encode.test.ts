/**
 * Frame encoding: one line per message, a single trailing LF, nothing that the strict decoder
 * would refuse (FRAME-02), and the 1 MiB outbound bound checked before any byte is written
 * (FRAME-09).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { encodeFrame, encodeRequestFrame } from "../../src/jsonl/encode.js";
import { decodeLine } from "../../src/jsonl/decoder.js";
import { MAX_FRAME_BYTES } from "../../src/bounds.js";
import { OctetError } from "../../src/errors.js";

const te = new TextEncoder();
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A message whose frame text (without LF) is exactly n UTF-8 bytes, padded with `fill`. */
function messageOfBytes(n: number, fill = "a"): { s: string } {
  const fillBytes = te.encode(fill).length;
  const body = n - `{"s":""}`.length;
  const k = Math.floor(body / fillBytes);
  const message = { s: fill.repeat(k) + "a".repeat(body - k * fillBytes) };
  assert.equal(te.encode(JSON.stringify(message)).length, n);
  return message;
}

function assertOneLine(frame: string): void {
  assert.ok(frame.endsWith("\n"), "ends with LF");
  assert.equal(frame.indexOf("\n"), frame.length - 1, "no LF before the terminating one");
  assert.ok(!frame.includes("\r"), "no raw CR");
  assert.doesNotMatch(frame, LONE_SURROGATE, "no lone surrogate (it would not survive UTF-8)");
}

function roundTrip(frame: string): unknown {
  const decoded = decodeLine(te.encode(frame.slice(0, -1)));
  if (!decoded.ok) assert.fail(`the decoder refused an encoded frame: ${decoded.error.message}`);
  return decoded.value;
}

test("FRAME-02: a message is one line with a single trailing LF; newlines and CRs in strings are escaped", () => {
  const message = {
    jsonrpc: "2.0",
    id: 1,
    method: "m",
    params: { text: "line 1\nline 2\r\nend\r", nested: [{ k: "\n" }] },
  };
  const frame = encodeFrame(message);
  assertOneLine(frame);
  assert.equal(frame, JSON.stringify(message) + "\n");
  assert.deepEqual(roundTrip(frame), message);
});

test("FRAME-02: lone surrogates are escaped as \\uXXXX and survive the round trip exactly", () => {
  const message = { s: "a\ud800b\udfffc\udbff", t: "\udc00", pair: "😀" };
  const frame = encodeFrame(message);
  assertOneLine(frame);
  assert.ok(
    frame.includes("\\ud800") && frame.includes("\\udfff") && frame.includes("\\udbff") && frame.includes("\\udc00"),
  );
  assert.ok(frame.includes("😀"), "a valid pair is kept as the character");
  assert.deepEqual(roundTrip(frame), message);
});

test("FRAME-02: U+2028 and U+2029 may appear raw (only LF separates frames) and round-trip intact", () => {
  const message = { s: "a\u2028b\u2029c" };
  const frame = encodeFrame(message);
  assertOneLine(frame);
  assert.deepEqual(roundTrip(frame), message);
});

const unit = fc.oneof(
  fc.constantFrom(
    "\u2028",
    "\u2029",
    "😀",
    "é",
    "€",
    "\n",
    "\r",
    "\r\n",
    "\0",
    "\u001f",
    "\u007f",
    "\ud800",
    "\udfff",
    "\\",
    '"',
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  fc.string({ unit: "grapheme-ascii", minLength: 1, maxLength: 1 }),
  // Any single UTF-16 code unit, lone surrogate halves included.
  fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
);

test(
  "FRAME-02 property: any JSON value encodes to one LF-terminated line the strict decoder reads back " + "unchanged",
  () => {
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: unit, maxDepth: 4 }), (value) => {
        const frame = encodeFrame(value);
        assertOneLine(frame);
        assert.deepEqual(roundTrip(frame), JSON.parse(JSON.stringify(value)));
      }),
      { seed: 42, numRuns: 500 },
    );
  },
);

test(
  "FRAME-09: an outbound frame of exactly 1 MiB is encoded and one of 1 MiB + 1 byte is refused, before " +
    "anything is written",
  () => {
    for (const fill of ["a", "é", "€", "😀"]) {
      const atLimit = messageOfBytes(MAX_FRAME_BYTES, fill);
      const frame = encodeFrame(atLimit);
      assert.equal(te.encode(frame).length, MAX_FRAME_BYTES + 1, `fill ${fill}: the LF is not counted`);
      assertOneLine(frame);

      const over = messageOfBytes(MAX_FRAME_BYTES + 1, fill);
      assert.throws(
        () => encodeFrame(over),
        (err: unknown) => {
          assert.ok(err instanceof OctetError);
          assert.equal(err.code, "frame_too_large");
          assert.match(err.message, /\b1048577 bytes\b/, "names the size");
          assert.match(err.message, /\b1048576-byte limit\b/, "names the limit");
          return true;
        },
      );
    }
  },
);

test("FRAME-09: the bound counts UTF-8 bytes after escaping (an escaped control char is 6 bytes)", () => {
  // "\u0001" encodes as the six characters \u0001.
  const n = Math.floor((MAX_FRAME_BYTES - 8) / 6);
  const message = { s: "\u0001".repeat(n) };
  const size = JSON.stringify(message).length;
  assert.ok(size <= MAX_FRAME_BYTES);
  assert.doesNotThrow(() => encodeFrame(message));
  assert.throws(() => encodeFrame({ s: "\u0001".repeat(n + 1) }), { name: "OctetError", code: "frame_too_large" });
});

test("FRAME-09: a caller-given bound applies at the limit and one past it", () => {
  const message = { s: "é😀" }; // {"s":"é😀"} = 8 + 2 + 4 bytes
  assert.equal(encodeFrame(message, 14), '{"s":"é😀"}\n');
  assert.throws(
    () => encodeFrame(message, 13),
    (err: unknown) => {
      assert.ok(err instanceof OctetError);
      assert.equal(err.code, "frame_too_large");
      assert.equal(err.message, "outbound frame is 14 bytes, over the 13-byte limit");
      return true;
    },
  );
});

test("FRAME-09 property: encodeFrame accepts exactly the values whose JSON text fits the bound", () => {
  fc.assert(
    fc.property(fc.jsonValue({ stringUnit: unit, maxDepth: 3 }), fc.integer({ min: 0, max: 400 }), (value, max) => {
      const size = te.encode(JSON.stringify(value)).length;
      if (size <= max) assert.equal(encodeFrame(value, max), JSON.stringify(value) + "\n");
      else assert.throws(() => encodeFrame(value, max), { name: "OctetError", code: "frame_too_large" });
    }),
    { seed: 42, numRuns: 500 },
  );
});

test("FRAME-02: values with no JSON text are refused as frame_invalid, never written as 'undefined'", () => {
  const cyclic: Record<string, unknown> = {};
  cyclic["self"] = cyclic;
  for (const bad of [
    undefined,
    () => 1,
    Symbol("s"),
    1n,
    { a: 1n },
    cyclic,
    { toJSON: () => undefined },
    {
      toJSON: () => {
        throw new Error("boom");
      },
    },
  ]) {
    assert.throws(
      () => encodeFrame(bad),
      (err: unknown) => {
        assert.ok(err instanceof OctetError, `a local error, got ${String(err)}`);
        assert.equal(err.code, "frame_invalid");
        return true;
      },
    );
  }
});

test("FRAME-02: a request with spliced params text is the frame encodeFrame makes of the whole message", () => {
  fc.assert(
    fc.property(fc.nat(), fc.string(), fc.jsonValue(), (id, method, params) => {
      const paramsText = JSON.stringify(params);
      const frame = encodeRequestFrame(id, method, paramsText);
      assert.equal(frame, encodeFrame({ jsonrpc: "2.0", id, method, params }));
      assertOneLine(frame);
    }),
  );
});

test("FRAME-09: a request with spliced params text is bound like any frame, at the limit and one past it", () => {
  const head = `{"jsonrpc":"2.0","id":7,"method":"tool/call","params":`;
  const fill = (n: number): string => JSON.stringify("a".repeat(n - head.length - 3));
  const atLimit = encodeRequestFrame(7, "tool/call", fill(MAX_FRAME_BYTES));
  assert.equal(te.encode(atLimit).length, MAX_FRAME_BYTES + 1, "the limit's bytes and the LF");
  assert.throws(
    () => encodeRequestFrame(7, "tool/call", fill(MAX_FRAME_BYTES + 1)),
    (err: unknown) =>
      err instanceof OctetError &&
      err.code === "frame_too_large" &&
      err.message.includes(`${MAX_FRAME_BYTES + 1} bytes`) &&
      err.message.includes(`${MAX_FRAME_BYTES}-byte limit`),
  );
});
