/**
 * Strict UTF-8 for the codec. decodeUtf8Pure is what QuickJS (no TextDecoder) runs, so it must
 * agree with the platform's fatal decoder byte for byte; encodeUtf8 must agree with TextEncoder,
 * including in its pure fallback, which is loaded here as a second module instance with the
 * platform codecs hidden.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import * as utf8 from "../../src/jsonl/utf8.js";
import { decodeUtf8, decodeUtf8Pure, encodeUtf8, Utf8Error } from "../../src/jsonl/utf8.js";

const te = new TextEncoder();
/** The platform decoder exactly as platform.ts builds it: fatal, and a leading BOM is kept. */
const fatal = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function platformDecode(bytes: Uint8Array): { ok: true; text: string } | { ok: false } {
  try {
    return { ok: true, text: fatal.decode(bytes) };
  } catch {
    return { ok: false };
  }
}

function pureDecode(bytes: Uint8Array): { ok: true; text: string } | { ok: false } {
  try {
    return { ok: true, text: decodeUtf8Pure(bytes) };
  } catch (err) {
    assert.ok(err instanceof Utf8Error, `decodeUtf8Pure threw ${String(err)}, not a Utf8Error`);
    return { ok: false };
  }
}

/** A second instance of utf8.js evaluated while TextDecoder/TextEncoder are absent (as in QuickJS). */
async function loadWithoutPlatformCodecs(): Promise<typeof utf8> {
  const g = globalThis as Record<string, unknown>;
  const saved = ["TextDecoder", "TextEncoder"].map((name) => [name, Object.getOwnPropertyDescriptor(g, name)] as const);
  for (const [name] of saved) delete g[name];
  try {
    const url = new URL("../../src/jsonl/utf8.js", import.meta.url).href + "?no-platform-codecs";
    return (await import(url)) as typeof utf8;
  } finally {
    for (const [name, descriptor] of saved) if (descriptor) Object.defineProperty(g, name, descriptor);
  }
}
const pure = await loadWithoutPlatformCodecs();

const hex = (b: Uint8Array): string => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join(" ");

// ---------------------------------------------------------------------------------------------
// encodeUtf8

const encodeCases: [string, string, number[]][] = [
  ["empty", "", []],
  ["ASCII", "A~", [0x41, 0x7e]],
  ["NUL and DEL", "\0\u007f", [0x00, 0x7f]],
  ["U+0080 (first 2-byte)", "\u0080", [0xc2, 0x80]],
  ["U+07FF (last 2-byte)", "\u07ff", [0xdf, 0xbf]],
  ["U+0800 (first 3-byte)", "\u0800", [0xe0, 0xa0, 0x80]],
  ["U+D7FF (before the surrogates)", "\ud7ff", [0xed, 0x9f, 0xbf]],
  ["U+E000 (after the surrogates)", "\ue000", [0xee, 0x80, 0x80]],
  ["U+FEFF (BOM, kept)", "\ufeff", [0xef, 0xbb, 0xbf]],
  ["U+FFFF (last 3-byte)", "\uffff", [0xef, 0xbf, 0xbf]],
  ["U+2028", "\u2028", [0xe2, 0x80, 0xa8]],
  ["U+10000 (first 4-byte)", "\u{10000}", [0xf0, 0x90, 0x80, 0x80]],
  ["U+1F600 emoji", "😀", [0xf0, 0x9f, 0x98, 0x80]],
  ["U+10FFFF (last code point)", "\u{10ffff}", [0xf4, 0x8f, 0xbf, 0xbf]],
  ["lone high surrogate at the end", "a\ud800", [0x61, 0xef, 0xbf, 0xbd]],
  ["lone high surrogate before ASCII", "\ud800a", [0xef, 0xbf, 0xbd, 0x61]],
  ["lone low surrogate", "\udc00", [0xef, 0xbf, 0xbd]],
  ["two high surrogates then a low one", "\ud800\ud83d\ude00", [0xef, 0xbf, 0xbd, 0xf0, 0x9f, 0x98, 0x80]],
  ["reversed pair", "\ude00\ud83d", [0xef, 0xbf, 0xbd, 0xef, 0xbf, 0xbd]],
];

for (const [name, input, expected] of encodeCases) {
  test(`encodeUtf8: ${name}, platform and pure fallback alike`, () => {
    assert.deepEqual(Array.from(encodeUtf8(input)), expected);
    assert.deepEqual(Array.from(pure.encodeUtf8(input)), expected);
  });
}

test("encodeUtf8 property: the pure fallback agrees with TextEncoder on any string, lone surrogates included", () => {
  const codeUnit = fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
  );
  fc.assert(
    fc.property(fc.string({ unit: codeUnit, maxLength: 64 }), (s) => {
      assert.deepEqual(pure.encodeUtf8(s), te.encode(s));
      assert.deepEqual(encodeUtf8(s), te.encode(s));
    }),
    { seed: 42, numRuns: 2000 },
  );
});

// ---------------------------------------------------------------------------------------------
// decodeUtf8 / decodeUtf8Pure

const validCases: [string, number[], string][] = [
  ["empty", [], ""],
  ["ASCII with NUL", [0x00, 0x41], "\0A"],
  ["last 1-byte", [0x7f], "\u007f"],
  ["first 2-byte", [0xc2, 0x80], "\u0080"],
  ["last 2-byte", [0xdf, 0xbf], "\u07ff"],
  ["first 3-byte", [0xe0, 0xa0, 0x80], "\u0800"],
  ["U+D7FF", [0xed, 0x9f, 0xbf], "\ud7ff"],
  ["U+E000", [0xee, 0x80, 0x80], "\ue000"],
  ["last 3-byte", [0xef, 0xbf, 0xbf], "\uffff"],
  ["first 4-byte", [0xf0, 0x90, 0x80, 0x80], "\u{10000}"],
  ["last code point", [0xf4, 0x8f, 0xbf, 0xbf], "\u{10ffff}"],
  ["a leading BOM is kept, not stripped", [0xef, 0xbb, 0xbf, 0x7b, 0x7d], "\ufeff{}"],
  ["U+2028 U+2029", [0xe2, 0x80, 0xa8, 0xe2, 0x80, 0xa9], "\u2028\u2029"],
];

const invalidCases: [string, number[]][] = [
  ["lone continuation byte", [0x80]],
  ["continuation byte 0xbf", [0x41, 0xbf]],
  ["overlong NUL (C0 80)", [0xc0, 0x80]],
  ["overlong 2-byte (C1 BF)", [0xc1, 0xbf]],
  ["overlong 3-byte (E0 9F BF)", [0xe0, 0x9f, 0xbf]],
  ["overlong 3-byte NUL (E0 80 80)", [0xe0, 0x80, 0x80]],
  ["overlong 4-byte (F0 8F BF BF)", [0xf0, 0x8f, 0xbf, 0xbf]],
  ["surrogate U+D800 (ED A0 80)", [0xed, 0xa0, 0x80]],
  ["surrogate U+DFFF (ED BF BF)", [0xed, 0xbf, 0xbf]],
  ["CESU-8 pair", [0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80]],
  ["above U+10FFFF (F4 90 80 80)", [0xf4, 0x90, 0x80, 0x80]],
  ["lead F5", [0xf5, 0x80, 0x80, 0x80]],
  ["lead F8 (5-byte form)", [0xf8, 0x88, 0x80, 0x80, 0x80]],
  ["lead FE", [0xfe]],
  ["lead FF", [0xff]],
  ["truncated 2-byte at end", [0x41, 0xc3]],
  ["truncated 3-byte at end", [0xe2, 0x82]],
  ["truncated 4-byte at end", [0xf0, 0x9f, 0x98]],
  ["truncated 3-byte before ASCII", [0xe2, 0x82, 0x41]],
  ["2-byte lead then a lead", [0xc3, 0xc3, 0xa9]],
];

for (const [name, input, expected] of validCases) {
  test(`decodeUtf8Pure: accepts ${name}, like the platform decoder`, () => {
    const bytes = Uint8Array.from(input);
    assert.equal(decodeUtf8Pure(bytes), expected);
    assert.equal(decodeUtf8(bytes), expected);
    assert.equal(pure.decodeUtf8(bytes), expected);
  });
}

for (const [name, input] of invalidCases) {
  test(`decodeUtf8Pure: refuses ${name} (${hex(Uint8Array.from(input))}), like the platform decoder`, () => {
    const bytes = Uint8Array.from(input);
    assert.throws(() => decodeUtf8Pure(bytes), Utf8Error);
    assert.throws(() => decodeUtf8(bytes), Utf8Error);
    assert.throws(
      () => pure.decodeUtf8(bytes),
      (err: unknown) => err instanceof Error && err.name === "Utf8Error",
    );
    assert.equal(platformDecode(bytes).ok, false, "the oracle agrees");
  });
}

test("decodeUtf8Pure: long inputs (past its 8192-unit flush) with pairs across the flush boundary", () => {
  for (const s of ["😀".repeat(10_000), "a" + "😀".repeat(5_000), "é€😀".repeat(7_000), "x".repeat(100_000)]) {
    assert.equal(decodeUtf8Pure(te.encode(s)), s);
  }
});

test("decodeUtf8Pure: every code point round-trips through encodeUtf8 (surrogates excepted)", () => {
  const codePoints: number[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp += cp < 0x3000 ? 1 : 97) if (cp < 0xd800 || cp > 0xdfff) codePoints.push(cp);
  codePoints.push(0x10ffff, 0xd7ff, 0xe000, 0xfffd, 0xfffe, 0xffff);
  const s = String.fromCodePoint(...codePoints);
  const bytes = encodeUtf8(s);
  assert.equal(decodeUtf8Pure(bytes), s);
  assert.equal(decodeUtf8(bytes), s);
});

/** Byte sequences built from well-formed, overlong, surrogate, out-of-range, truncated and stray units. */
function encodeForm(cp: number, length: 1 | 2 | 3 | 4): number[] {
  switch (length) {
    case 1:
      return [cp & 0x7f];
    case 2:
      return [0xc0 | ((cp >> 6) & 0x1f), 0x80 | (cp & 0x3f)];
    case 3:
      return [0xe0 | ((cp >> 12) & 0x0f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
    case 4:
      return [0xf0 | ((cp >> 18) & 0x07), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)];
  }
}
const byteUnit: fc.Arbitrary<number[]> = fc.oneof(
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).map((c) => Array.from(te.encode(c))),
  fc
    .tuple(fc.integer({ min: 0, max: 0x1fffff }), fc.constantFrom(1 as const, 2 as const, 3 as const, 4 as const))
    .map(([cp, n]) => encodeForm(cp, n)),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((cp) => encodeForm(cp, 3)),
  fc.tuple(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), fc.nat()).map(([c, k]) => {
    const b = Array.from(te.encode(c));
    return b.slice(0, Math.max(1, k % b.length));
  }),
  fc.integer({ min: 0, max: 255 }).map((b) => [b]),
  fc.constantFrom<number[]>([0xef, 0xbb, 0xbf], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]),
);
const utf8ish = fc.oneof(
  fc.array(byteUnit, { maxLength: 24 }).map((units) => Uint8Array.from(units.flat())),
  fc.uint8Array({ maxLength: 32 }),
);

test(
  "FRAME-02 property: decodeUtf8Pure agrees with TextDecoder (fatal) on arbitrary bytes: same string or " +
    "both refuse",
  () => {
    fc.assert(
      fc.property(utf8ish, (bytes) => {
        const expected = platformDecode(bytes);
        assert.deepEqual(pureDecode(bytes), expected, hex(bytes));
        let viaCodec: { ok: true; text: string } | { ok: false };
        try {
          viaCodec = { ok: true, text: decodeUtf8(bytes) };
        } catch {
          viaCodec = { ok: false };
        }
        assert.deepEqual(viaCodec, expected);
      }),
      { seed: 42, numRuns: 5000 },
    );
  },
);

test("FRAME-02: the codec's decoder keeps a leading BOM where a default TextDecoder would drop it", () => {
  // Why the oracle above uses ignoreBOM: true: a BOM before a frame is not JSON, so it must reach
  // JSON.parse (and be refused) rather than vanish in the UTF-8 layer.
  const bytes = Uint8Array.of(0xef, 0xbb, 0xbf, 0x31);
  assert.equal(new TextDecoder("utf-8", { fatal: true }).decode(bytes), "1");
  assert.equal(decodeUtf8(bytes), "\ufeff1");
  assert.equal(decodeUtf8Pure(bytes), "\ufeff1");
});
