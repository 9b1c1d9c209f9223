import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { utf8ByteLength } from "../../src/validate/kit.js";

// utf8ByteLength answers ASCII with a regex test and counts everything else in a loop: both paths
// must give the bytes TextEncoder writes (lone surrogates become the 3-byte U+FFFD).
test("UTF-8 byte counts agree with TextEncoder on ASCII and non-ASCII text, lone surrogates included", () => {
  const encoder = new TextEncoder();
  const samples = [
    "",
    "a",
    "\u007f",
    "\u0080",
    "é",
    "€",
    "\u{1f600}",
    "\ud800",
    "\udc00\ud800",
    "a\ud800b\u00e9\u{1f600}",
    "x".repeat(524_288),
  ];
  for (const s of samples) {
    const expected = encoder.encode(s).length;
    assert.equal(utf8ByteLength(s), expected, JSON.stringify(s.slice(0, 20)));
  }
  fc.assert(
    fc.property(fc.string({ unit: "binary" }), (s) => {
      const expected = encoder.encode(s).length;
      return utf8ByteLength(s) === expected;
    }),
    { numRuns: 500 },
  );
});
