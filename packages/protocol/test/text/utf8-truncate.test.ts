/**
 * truncateUtf8, the one UTF-8 cut of every package (issue 14.4): within the bound, a prefix of
 * the input cut as late as possible, never inside a character or a surrogate pair, marked.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { truncateUtf8 } from "../../src/text/utf8-truncate.js";
import { utf8ByteLength } from "../../src/validate/kit.js";

const encoder = new TextEncoder();
const bytesOf = (s: string): number => encoder.encode(s).length;

test("issue 14.4: truncateUtf8 keeps text that fits and cuts the rest to the latest character boundary", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.constantFrom("...", "…", ""),
      fc.integer({ min: 3, max: 300 }),
      (s, marker, max) => {
        const r = truncateUtf8(s, max, marker);
        assert.ok(bytesOf(r) <= max, `${bytesOf(r)} bytes > ${max}`);
        if (bytesOf(s) <= max) return assert.equal(r, s);
        assert.ok(r.endsWith(marker));
        const head = r.slice(0, r.length - marker.length);
        assert.ok(s.startsWith(head), "a prefix of the input");
        const last = head.charCodeAt(head.length - 1);
        assert.ok(!(last >= 0xd800 && last <= 0xdbff && s.length > head.length), "no pair split at the cut");
        // The next character (a whole pair counts as one) would not have fitted.
        const next = String.fromCodePoint(s.codePointAt(head.length)!);
        assert.ok(
          utf8ByteLength(head) + utf8ByteLength(next) > max - utf8ByteLength(marker),
          "cut as late as possible",
        );
      },
    ),
    { numRuns: 1_000 },
  );
});

test("issue 14.4: truncateUtf8 examples: the default marker, a custom one, pairs and lone surrogates", () => {
  assert.equal(truncateUtf8("hello", 5), "hello");
  assert.equal(truncateUtf8("hello world", 8), "hello...");
  assert.equal(truncateUtf8("abc😀d", 8, "…"), "abc😀d");
  assert.deepEqual(
    [4, 5, 6, 7].map((max) => truncateUtf8("abc😀d", max, "…")),
    ["a…", "ab…", "abc…", "abc…"],
  );
  // "é" is 2 bytes: 5 bytes leave room for "a" and the marker, not for half of "é".
  assert.equal(truncateUtf8("aééé", 5), "a...");
  assert.equal(truncateUtf8("aéé", 5), "aéé");
  // A lone surrogate counts as the 3-byte U+FFFD it encodes to, and stays as it was.
  assert.equal(truncateUtf8("\ud800\ud800xy", 7), "\ud800...");
  assert.equal(truncateUtf8("\ud800\ud800x", 7), "\ud800\ud800x");
  assert.equal(truncateUtf8("", 3), "");
  assert.equal(truncateUtf8("abcd", 3), "...");
});

test("issue 14.4: truncateUtf8 refuses a bound smaller than its marker, naming the value and the limit", () => {
  assert.throws(
    () => truncateUtf8("abc", 2),
    /maxBytes must be an integer of at least 3 \(the marker's bytes\); got 2/,
  );
  assert.throws(() => truncateUtf8("abc", 1.5, ""), /at least 0 .*got 1.5/);
  assert.throws(() => truncateUtf8("abc", Number.NaN), RangeError);
});
