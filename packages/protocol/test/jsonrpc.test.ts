/**
 * The closed JSON-RPC envelope validator (FRAME-01, FRAME-15) and the id rules (REV-02,
 * FRAME-11), with a property test against a small independent oracle written from the spec text.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { checkId, isErrorResponse, parseEnvelope, type EnvelopeResult } from "../src/jsonrpc.js";
import { JsonlDecoder } from "../src/jsonl/decoder.js";
import { encodeFrame } from "../src/jsonl/encode.js";
import { MAX_CHILD_ID_BYTES } from "../src/bounds.js";

const te = new TextEncoder();
const utf8Bytes = (s: string): number => te.encode(s).length;

/** Parses JSON text so test values have exactly the shape a frame would (own __proto__ keys, no -0 surprises). */
const parsed = (text: string): unknown => JSON.parse(text);

function kindOf(r: EnvelopeResult): string {
  return r.ok ? r.envelope.kind : "refused";
}

function refused(value: unknown): { reason: string; id: unknown } {
  const r = parseEnvelope(value);
  if (r.ok) assert.fail(`expected a refusal, got a ${r.envelope.kind}: ${JSON.stringify(value)?.slice(0, 120)}`);
  assert.equal(typeof r.reason, "string");
  assert.ok(r.reason.length > 0);
  return { reason: r.reason, id: r.id };
}

/** A string of exactly n UTF-8 bytes whose last character is `last` (so multibyte sits at the boundary). */
function idOfBytes(n: number, last: string): string {
  const s = "a".repeat(n - utf8Bytes(last)) + last;
  assert.equal(utf8Bytes(s), n);
  return s;
}

// ---------------------------------------------------------------------------------------------
// FRAME-01: classification

test(
  "FRAME-01: requests carry id and method, notifications method and no id, responses id and one of " + "result/error",
  () => {
    const cases: [unknown, string][] = [
      [{ jsonrpc: "2.0", id: 1, method: "tool/call", params: { name: "x" } }, "request"],
      [{ jsonrpc: "2.0", id: "a", method: "m" }, "request"],
      [{ jsonrpc: "2.0", id: 1, method: "m", params: [1, 2] }, "request"],
      [{ jsonrpc: "2.0", method: "$/progress", params: {} }, "notification"],
      [{ jsonrpc: "2.0", method: "n" }, "notification"],
      [{ jsonrpc: "2.0", id: 1, result: { ok: true } }, "response"],
      [{ jsonrpc: "2.0", id: 1, result: null }, "response"],
      [{ jsonrpc: "2.0", id: "s", error: { code: -32601, message: "Method not found" } }, "response"],
      [{ jsonrpc: "2.0", id: 2, error: { code: -32000, message: "x", data: { any: [1] } } }, "response"],
    ];
    for (const [value, kind] of cases) {
      const r = parseEnvelope(value);
      assert.equal(kindOf(r), kind, JSON.stringify(value));
      assert.ok(r.ok && r.envelope.message === value, "the message is the parsed value itself");
    }
  },
);

test("FRAME-01: isErrorResponse tells the two response shapes apart", () => {
  const err = parseEnvelope({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "m" } });
  const ok = parseEnvelope({ jsonrpc: "2.0", id: 1, result: 0 });
  assert.ok(err.ok && err.envelope.kind === "response" && isErrorResponse(err.envelope.message));
  assert.ok(ok.ok && ok.envelope.kind === "response" && !isErrorResponse(ok.envelope.message));
});

test('FRAME-01: "jsonrpc" other than "2.0" (missing, "1.0", 2, "2.0 ", null) is refused', () => {
  for (const jsonrpc of [undefined, "1.0", "2", 2, 2.0, "2.0 ", null, ["2.0"]]) {
    const value: Record<string, unknown> = { id: 1, method: "m" };
    if (jsonrpc !== undefined) value["jsonrpc"] = jsonrpc;
    assert.match(refused(value).reason, /"jsonrpc" must be "2.0"/);
  }
});

test("FRAME-01: a response must carry exactly one of result or error; result plus error is refused", () => {
  assert.match(
    refused({ jsonrpc: "2.0", id: 1, result: 1, error: { code: 1, message: "m" } }).reason,
    /exactly one of result or error/,
  );
  assert.match(refused({ jsonrpc: "2.0", id: 1 }).reason, /exactly one of result or error/);
  assert.match(
    refused({ jsonrpc: "2.0", id: 1, method: "m", result: 1 }).reason,
    /request cannot carry result or error/,
  );
  assert.match(
    refused({ jsonrpc: "2.0", id: 1, method: "m", error: { code: 1, message: "m" } }).reason,
    /request cannot carry result or error/,
  );
  assert.match(refused({ jsonrpc: "2.0", id: 1, result: 1, params: {} }).reason, /response cannot carry params/);
});

test("FRAME-01: a response without an id is refused", () => {
  const r = refused({ jsonrpc: "2.0", result: { ok: true } });
  assert.match(r.reason, /must carry an id/);
  assert.equal(r.id, null);
  assert.match(refused({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } }).reason, /must carry an id/);
});

test(
  "FRAME-10: an error response with id null is accepted (the answer to a parse error); a result with id " +
    "null is not",
  () => {
    const r = parseEnvelope(parsed('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}'));
    assert.ok(r.ok && r.envelope.kind === "response" && r.envelope.message.id === null);
    assert.match(refused(parsed('{"jsonrpc":"2.0","id":null,"result":1}')).reason, /got null/);
    assert.match(refused(parsed('{"jsonrpc":"2.0","id":null,"method":"m"}')).reason, /got null/);
  },
);

test("FRAME-01: method must be a non-empty string; params, when present, an object or an array", () => {
  for (const method of ["", 1, null, {}, ["m"]])
    assert.match(refused({ jsonrpc: "2.0", id: 1, method }).reason, /"method" must be a non-empty string/);
  for (const params of [null, 1, "x", true]) {
    assert.match(
      refused({ jsonrpc: "2.0", id: 1, method: "m", params }).reason,
      /"params" must be an object or an array/,
    );
    assert.match(refused({ jsonrpc: "2.0", method: "m", params }).reason, /"params" must be an object or an array/);
  }
});

test("FRAME-01: a malformed error object is refused: not an object, non-integer code, non-string message", () => {
  for (const error of [null, "boom", [], 1])
    assert.match(refused({ jsonrpc: "2.0", id: 1, error }).reason, /"error" must be an object/);
  for (const code of [1.5, "1", null, undefined]) {
    const error: Record<string, unknown> = { message: "m" };
    if (code !== undefined) error["code"] = code;
    assert.match(refused({ jsonrpc: "2.0", id: 1, error }).reason, /"error.code" must be an integer/);
  }
  for (const message of [1, null, undefined, {}]) {
    const error: Record<string, unknown> = { code: 1 };
    if (message !== undefined) error["message"] = message;
    assert.match(refused({ jsonrpc: "2.0", id: 1, error }).reason, /"error.message" must be a string/);
  }
});

// ---------------------------------------------------------------------------------------------
// FRAME-15: closed envelope; batches and scalars

test("FRAME-15: the envelope is closed: an unknown member is refused and named", () => {
  assert.match(refused({ jsonrpc: "2.0", id: 1, method: "m", extra: 1 }).reason, /unknown envelope member "extra"/);
  assert.match(refused({ jsonrpc: "2.0", method: "m", Method: "x" }).reason, /unknown envelope member "Method"/);
  assert.match(refused({ jsonrpc: "2.0", id: 1, result: 1, meta: {} }).reason, /unknown envelope member "meta"/);
  assert.match(
    refused({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "m", stack: "x" } }).reason,
    /unknown error member "stack"/,
  );
  // The member name is quoted bounded, whatever its length.
  assert.ok(refused({ jsonrpc: "2.0", method: "m", ["k".repeat(10_000)]: 1 }).reason.length < 200);
});

test('FRAME-15 (F12): a "__proto__" member, as JSON.parse makes it, is an unknown member and is refused', () => {
  const value = parsed('{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{"isAdmin":true}}');
  assert.match(refused(value).reason, /unknown envelope member "__proto__"/);
  assert.match(
    refused(parsed('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","__proto__":{}}}')).reason,
    /unknown error member "__proto__"/,
  );
});

test("FRAME-01: batch arrays are refused, empty or not", () => {
  for (const batch of [[], [{ jsonrpc: "2.0", id: 1, method: "m" }], [1]]) {
    const r = refused(batch);
    assert.match(r.reason, /batch/);
    assert.equal(r.id, null);
  }
});

test("FRAME-01: scalars and null are refused as not an object, naming what they are", () => {
  for (const [value, what] of [
    [null, "null"],
    [1, "number"],
    ["x", "string"],
    [true, "boolean"],
  ] as const) {
    const r = refused(value);
    assert.match(r.reason, new RegExp(`must be a JSON object, got ${what}`));
    assert.equal(r.id, null);
  }
});

test(
  "REV-06: a refused envelope gives the id for the error reply: its own when valid, null when the id " +
    "itself is invalid",
  () => {
    assert.equal(refused({ jsonrpc: "2.0", id: 7, method: "m", extra: 1 }).id, 7);
    assert.equal(refused({ jsonrpc: "1.0", id: "abc", method: "m" }).id, "abc");
    assert.equal(refused({ jsonrpc: "2.0", id: -1, method: "m" }).id, null);
    assert.equal(refused({ jsonrpc: "2.0", id: { x: 1 }, method: "m", extra: 1 }).id, null);
    assert.equal(refused({ jsonrpc: "2.0", id: "x".repeat(257), result: 1 }).id, null);
  },
);

// ---------------------------------------------------------------------------------------------
// REV-02 / FRAME-11: ids

test("REV-02: ids 0, 2^53-1 and strings up to 256 UTF-8 bytes (multibyte at the boundary) are accepted", () => {
  const ids: unknown[] = [
    0,
    1,
    2 ** 32,
    2 ** 53 - 1,
    "",
    "a",
    "x".repeat(MAX_CHILD_ID_BYTES),
    idOfBytes(256, "é"),
    idOfBytes(256, "€"),
    idOfBytes(256, "😀"),
    "€".repeat(85) + "a", // 256 bytes in 86 characters
  ];
  for (const id of ids) {
    assert.equal(checkId(id), null, `id ${String(id).slice(0, 20)}`);
    assert.equal(kindOf(parseEnvelope({ jsonrpc: "2.0", id, method: "confirmation/request", params: {} })), "request");
    assert.equal(kindOf(parseEnvelope({ jsonrpc: "2.0", id, result: 1 })), "response");
    assert.equal(kindOf(parseEnvelope({ jsonrpc: "2.0", id, error: { code: -32600, message: "x" } })), "response");
  }
});

test(
  "REV-02: ids -1, 1.5, 2^53, larger integers, 257-byte strings, objects, arrays and booleans are refused, " +
    "naming the value",
  () => {
    const cases: [unknown, RegExp][] = [
      [-1, /id -1 is not an unsigned integer/],
      [1.5, /id 1\.5 is not an unsigned integer/],
      [-2.5, /id -2\.5 is not an unsigned integer/],
      [2 ** 53, /id 9007199254740992 is above 2\^53-1/],
      [2 ** 53 + 2, /id 9007199254740994 is above 2\^53-1/],
      [2 ** 64, /id 18446744073709552000 is above 2\^53-1/],
      [1e300, /id 1e\+300 is above 2\^53-1/],
      ["x".repeat(257), /id string is 257 bytes, over the 256-byte limit/],
      [idOfBytes(257, "é"), /257 bytes, over the 256-byte limit/],
      [idOfBytes(257, "€"), /257 bytes, over the 256-byte limit/],
      [idOfBytes(257, "😀"), /257 bytes, over the 256-byte limit/],
      ["€".repeat(86), /258 bytes/], // 86 characters, 258 bytes: counted in bytes, not characters
      [{}, /got object/],
      [{ id: 1 }, /got object/],
      [[1], /got object/],
      [true, /got boolean/],
      [false, /got boolean/],
    ];
    for (const [id, reason] of cases) {
      const problem = checkId(id);
      assert.ok(problem !== null, `checkId accepted ${String(id).slice(0, 20)}`);
      assert.match(problem, reason);
      for (const envelope of [
        { jsonrpc: "2.0", id, method: "m" },
        { jsonrpc: "2.0", id, result: 1 },
        { jsonrpc: "2.0", id, error: { code: 1, message: "m" } },
      ]) {
        const r = refused(envelope);
        assert.match(r.reason, reason);
        assert.equal(r.id, null, "an invalid id is never echoed back");
      }
    }
  },
);

test("REV-02 (F11): integer ids past 2^53-1 on the wire are refused, never aliased to a neighbouring id", () => {
  // JSON.parse reads 9007199254740993 as 9007199254740992: two distinct wire ids would collide.
  for (const text of ["9007199254740992", "9007199254740993", "18446744073709551615", "9007199254740992.0"]) {
    const d = new JsonlDecoder();
    const [frame] = d.push(te.encode(`{"jsonrpc":"2.0","id":${text},"method":"m"}\n`));
    assert.ok(frame?.ok);
    const r = refused(frame.value);
    assert.match(r.reason, /above 2\^53-1/);
  }
});

test(
  "FRAME-11: numeric host ids survive the wire exactly up to 2^53-1 and come back as numbers in " + "the response",
  () => {
    for (const id of [1, 2, 2 ** 31, 2 ** 32 + 1, 2 ** 53 - 2, 2 ** 53 - 1]) {
      const d = new JsonlDecoder();
      const frames = d.push(
        te.encode(
          encodeFrame({ jsonrpc: "2.0", id, method: "tool/call", params: {} }) +
            encodeFrame({ jsonrpc: "2.0", id, result: {} }),
        ),
      );
      assert.equal(frames.length, 2);
      const [request, response] = frames.map((f) => (f.ok ? parseEnvelope(f.value) : assert.fail(f.error.message)));
      assert.ok(request?.ok && request.envelope.kind === "request");
      assert.equal(typeof request.envelope.message.id, "number");
      assert.equal(request.envelope.message.id, id);
      assert.ok(response?.ok && response.envelope.kind === "response");
      assert.equal(response.envelope.message.id, id);
    }
  },
);

// ---------------------------------------------------------------------------------------------
// Property: parseEnvelope agrees with an independent oracle

const ENVELOPE_MEMBERS = ["jsonrpc", "id", "method", "params", "result", "error"];

function oracleIdOk(id: unknown): boolean {
  if (typeof id === "string") return utf8Bytes(id) <= 256;
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 0;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Written from FRAME-01, FRAME-15 and REV-02 without looking at the order of checks in jsonrpc.ts. */
function oracle(v: unknown): "request" | "notification" | "response" | "refused" {
  if (!isObject(v)) return "refused";
  if (!Object.keys(v).every((k) => ENVELOPE_MEMBERS.includes(k))) return "refused";
  if (v["jsonrpc"] !== "2.0") return "refused";
  const has = (k: string): boolean => Object.hasOwn(v, k);
  if (has("method")) {
    if (has("result") || has("error")) return "refused";
    if (typeof v["method"] !== "string" || v["method"] === "") return "refused";
    if (has("params") && (typeof v["params"] !== "object" || v["params"] === null)) return "refused";
    if (!has("id")) return "notification";
    return oracleIdOk(v["id"]) ? "request" : "refused";
  }
  if (has("params") || has("result") === has("error") || !has("id")) return "refused";
  if (has("error")) {
    const e = v["error"];
    if (!isObject(e)) return "refused";
    if (!Object.keys(e).every((k) => k === "code" || k === "message" || k === "data")) return "refused";
    if (!Number.isInteger(e["code"]) || typeof e["message"] !== "string") return "refused";
    return v["id"] === null || oracleIdOk(v["id"]) ? "response" : "refused";
  }
  return oracleIdOk(v["id"]) ? "response" : "refused";
}

const nearLimitString = fc
  .tuple(fc.integer({ min: 250, max: 262 }), fc.constantFrom("a", "é", "€", "😀", "\ud800"))
  .map(([n, last]) => "a".repeat(Math.max(0, n - utf8Bytes(last))) + last);
const idLike = fc.oneof(
  { weight: 4, arbitrary: fc.nat() },
  { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 2, arbitrary: nearLimitString },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(
      0,
      -1,
      1.5,
      2 ** 53 - 1,
      2 ** 53,
      2 ** 64,
      1e300,
      -0,
      null,
      true,
      false,
      {},
      [],
      [1],
      { a: 1 },
    ),
  },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);
const errorLike = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      { code: fc.integer(), message: fc.string(), data: fc.jsonValue({ maxDepth: 1 }) },
      { requiredKeys: ["code", "message"] },
    ),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        code: fc.oneof(fc.double(), fc.string(), fc.constant(null)),
        message: fc.oneof(fc.string(), fc.nat()),
        data: fc.nat(),
        stack: fc.string(),
        ["__proto__"]: fc.nat(),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, "boom", [], 1) },
);
const memberValues = {
  jsonrpc: fc.oneof(
    { weight: 8, arbitrary: fc.constant<unknown>("2.0") },
    { weight: 1, arbitrary: fc.constantFrom<unknown>("1.0", "2", 2, "2.0 ", null) },
  ),
  id: idLike,
  method: fc.oneof(
    { weight: 6, arbitrary: fc.string({ minLength: 1, maxLength: 10 }) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>("", 1, null, ["m"], {}) },
  ),
  params: fc.oneof(
    { weight: 4, arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) },
    { weight: 2, arbitrary: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.constantFrom<unknown>(null, 1, "x", true) },
  ),
  result: fc.jsonValue({ maxDepth: 2 }),
  error: errorLike,
};
const extraMember = fc.tuple(
  fc.constantFrom("extra", "Method", "ID", "__proto__", "jsonrpc ", "", "constructor", "toString"),
  fc.jsonValue({ maxDepth: 1 }),
);

function shape(
  required: (keyof typeof memberValues)[],
  optional: (keyof typeof memberValues)[],
): fc.Arbitrary<Record<string, unknown>> {
  const all = [...required, ...optional];
  const model = Object.fromEntries(all.map((k) => [k, memberValues[k]])) as Record<string, fc.Arbitrary<unknown>>;
  return fc.record(model, { requiredKeys: required as string[] });
}

/**
 * Envelope-like values as a frame would carry them: built as objects, optionally given an unknown
 * member, then serialized and parsed again so that keys such as "__proto__" are own data members.
 */
const envelopeLike: fc.Arbitrary<unknown> = fc
  .tuple(
    fc.oneof(
      shape(["jsonrpc", "method"], ["id", "params"]),
      shape(["jsonrpc", "id"], ["result"]),
      shape(["jsonrpc", "id"], ["error"]),
      shape([], ["jsonrpc", "id", "method", "params", "result", "error"]),
    ),
    fc.oneof({ weight: 7, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: extraMember }),
  )
  .map(([members, extra]) => {
    const body = Object.entries(members).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    if (extra) body.push(`${JSON.stringify(extra[0])}:${JSON.stringify(extra[1])}`);
    return JSON.parse(`{${body.join(",")}}`) as unknown;
  });
const anyFrameValue = fc.oneof(
  { weight: 12, arbitrary: envelopeLike },
  { weight: 1, arbitrary: fc.array(envelopeLike, { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

test(
  "FRAME-01/FRAME-15/REV-02 property: parseEnvelope agrees with an independent oracle on " + "envelope-like values",
  () => {
    fc.assert(
      fc.property(anyFrameValue, (value) => {
        const r = parseEnvelope(value);
        assert.equal(kindOf(r), oracle(value));
        if (r.ok) {
          assert.equal(r.envelope.message, value);
        } else {
          assert.ok(r.reason.length > 0 && r.reason.length < 200);
          if (r.id !== null) {
            assert.ok(oracleIdOk(r.id), "a salvaged id is a valid id");
            assert.equal(r.id, (value as Record<string, unknown>)["id"]);
          }
        }
      }),
      { seed: 42, numRuns: 3000 },
    );
  },
);

test(
  "REV-02 property: checkId accepts exactly the unsigned safe integers and the strings of at most 256 " + "UTF-8 bytes",
  () => {
    fc.assert(
      fc.property(
        fc.oneof(idLike, fc.string({ unit: "binary", maxLength: 140 }), fc.jsonValue({ maxDepth: 1 })),
        (id) => {
          const problem = checkId(id);
          assert.equal(problem === null, oracleIdOk(id), `id ${JSON.stringify(id)?.slice(0, 40)}`);
        },
      ),
      { seed: 42, numRuns: 3000 },
    );
  },
);
