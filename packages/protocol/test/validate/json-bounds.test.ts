import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { measureJson, stringTokenBytes, type JsonLimits } from "../../src/validate/json-bounds.js";
import {
  MAX_METADATA_BYTES,
  MAX_METADATA_KEY_BYTES,
  MAX_STRUCTURED_CONTENT_BYTES,
  MAX_VALUE_DEPTH,
  MAX_VALUE_NODES,
} from "../../src/bounds.js";

const OPEN: JsonLimits = { maxBytes: Infinity, maxDepth: Infinity, maxNodes: Infinity };
const CALL21: JsonLimits = {
  maxBytes: MAX_STRUCTURED_CONTENT_BYTES,
  maxDepth: MAX_VALUE_DEPTH,
  maxNodes: MAX_VALUE_NODES,
};

function encodedBytes(v: unknown): number {
  return Buffer.byteLength(JSON.stringify(v), "utf8");
}

function nested(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { k: v };
  return v;
}

function measured(v: unknown, limits: JsonLimits = OPEN): { bytes: number; depth: number; nodes: number } {
  const r = measureJson(v, limits);
  if (!r.ok) assert.fail(`unexpected violation: ${r.path}: ${r.message}`);
  return { bytes: r.bytes, depth: r.depth, nodes: r.nodes };
}

test("measureJson: bytes equal the UTF-8 length of JSON.stringify for escapes, non-ASCII and surrogates", () => {
  const samples: unknown[] = [
    null,
    true,
    false,
    0,
    -0,
    1.5e300,
    -12,
    "",
    "plain",
    'q"uote\\back',
    "\b\f\n\r\t\u0000\u001f",
    "é€😀",
    "\ud800",
    "\udc00x",
    "a\ud83d",
    [],
    {},
    [null, [], {}],
    { 'k"ey': ["ü", { "": 1 }] },
  ];
  for (const v of samples) assert.equal(measured(v).bytes, encodedBytes(v), JSON.stringify(v));
});

test("measureJson: bytes match JSON.stringify for arbitrary JSON values (property)", () => {
  fc.assert(
    fc.property(fc.jsonValue(), (v) => measured(v).bytes === encodedBytes(v)),
    { numRuns: 300 },
  );
});

test(
  "measureJson: string token bytes match JSON.stringify for arbitrary UTF-16, lone surrogates included " + "(property)",
  () => {
    const utf16 = fc
      .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 40 })
      .map((cs) => String.fromCharCode(...cs));
    fc.assert(
      fc.property(utf16, (s) => stringTokenBytes(s) === encodedBytes(s)),
      { numRuns: 500 },
    );
  },
);

test("measureJson: depth counts containers (scalar 0, [] 1, [[1]] 2) and nodes count every value", () => {
  assert.deepEqual(measured(7), { bytes: 1, depth: 0, nodes: 1 });
  assert.deepEqual(measured([]), { bytes: 2, depth: 1, nodes: 1 });
  assert.deepEqual(measured([[1]]), { bytes: 5, depth: 2, nodes: 3 });
  assert.deepEqual(measured({ a: 1, b: [true, null] }), { bytes: 23, depth: 2, nodes: 5 });
});

test("measureJson: undefined members are skipped and undefined elements count as null, like JSON.stringify", () => {
  const v = { a: undefined, b: [undefined, 1] };
  assert.equal(measured(v).bytes, encodedBytes(v));
  assert.equal(measured(v).nodes, 4);
});

test("measureJson: non-JSON values are refused with rule type", () => {
  for (const bad of [NaN, Infinity, () => 1, 10n, Symbol("s")]) {
    const r = measureJson({ a: [bad] }, OPEN, "metadata");
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.rule, "type");
      assert.equal(r.path, "metadata.a[0]");
    }
  }
});

test(
  "CALL-21: nesting of exactly 32 levels is accepted, 33 is refused naming the depth, the limit " + "and the path",
  () => {
    assert.equal(measured(nested(MAX_VALUE_DEPTH), CALL21).depth, MAX_VALUE_DEPTH);
    const r = measureJson(nested(MAX_VALUE_DEPTH + 1), CALL21, "structured_content");
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.rule, "depth");
      assert.match(r.message, /^33 levels of nesting, over the 32-level limit$/);
      assert.ok(r.path.startsWith("structured_content[0].k[0].k"), r.path);
    }
  },
);

test("CALL-21: 16,384 nodes are accepted, 16,385 are refused naming the count and the limit", () => {
  const atLimit = new Array(MAX_VALUE_NODES - 1).fill(0);
  assert.equal(measured(atLimit, CALL21).nodes, MAX_VALUE_NODES);
  const r = measureJson([...atLimit, 0], CALL21, "metadata");
  assert.equal(r.ok, false);
  if (!r.ok) {
    assert.equal(r.rule, "nodes");
    assert.equal(r.message, "at least 16385 nodes, over the 16384-node limit");
    assert.equal(r.path, "metadata");
  }
});

test(
  "CALL-21: an encoding of exactly 256 KiB is accepted, one byte more is refused naming the size and " + "the limit",
  () => {
    // {"s":"..."} is 8 bytes around the string.
    const atLimit = { s: "x".repeat(MAX_STRUCTURED_CONTENT_BYTES - 8) };
    assert.equal(measured(atLimit, CALL21).bytes, MAX_STRUCTURED_CONTENT_BYTES);
    const r = measureJson({ s: "x".repeat(MAX_STRUCTURED_CONTENT_BYTES - 7) }, CALL21, "structured_content");
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.rule, "bytes");
      assert.equal(r.path, "structured_content");
      assert.equal(r.message, "at least 262145 bytes encoded, over the 262144-byte limit");
    }
  },
);

test(
  "CALL-21: a metadata key of 256 bytes is accepted at any depth, 257 is refused naming the key size and " +
    "the limit",
  () => {
    const limits: JsonLimits = { ...CALL21, maxBytes: MAX_METADATA_BYTES, maxKeyBytes: MAX_METADATA_KEY_BYTES };
    measured({ a: [{ ["k".repeat(MAX_METADATA_KEY_BYTES)]: 1 }] }, limits);
    // é is two bytes: 129 of them are 258 bytes in 129 characters.
    const r = measureJson({ a: [{ ["é".repeat(129)]: 1 }] }, limits, "metadata");
    assert.equal(r.ok, false);
    if (!r.ok) {
      assert.equal(r.rule, "key");
      assert.equal(r.path, "metadata.a[0]");
      assert.match(r.message, /is 258 bytes, over the 256-byte limit$/);
    }
  },
);

test("measureJson: stops at the first limit passed and never reads the values after it", () => {
  let reads = 0;
  const trap = {};
  Object.defineProperty(trap, "x", { enumerable: true, get: () => ++reads });
  const r = measureJson(["y".repeat(100), trap], { ...OPEN, maxBytes: 50 });
  assert.equal(r.ok, false);
  assert.equal(reads, 0, "the value after the byte limit was never read");
  // A huge string is counted only up to one byte past the budget.
  assert.ok(stringTokenBytes("z".repeat(1_000_000), 10) <= 12);
});

test("measureJson: a wide array over the node limit is refused before any element is walked", () => {
  const r = measureJson(new Array(1_000_000).fill({}), { ...OPEN, maxNodes: 10 });
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.message, "at least 1000001 nodes, over the 10-node limit");
});

test("measureJson: a cyclic in-process value ends at the depth limit instead of looping", () => {
  const a: Record<string, unknown> = {};
  a["self"] = a;
  const r = measureJson(a, CALL21);
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.rule, "depth");
});

test("measureJson: odd keys are quoted in paths", () => {
  const r = measureJson({ "a b": { c: [NaN] } }, OPEN, "structured_content");
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.path, 'structured_content["a b"].c[0]');
});
