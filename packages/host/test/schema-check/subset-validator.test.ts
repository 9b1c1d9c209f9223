import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import fc from "fast-check";
import type { Ajv as AjvClass } from "ajv";
import { compileSubset, describeFailure } from "../../src/schema-check/subset-validator.js";

function problem(schema: unknown, value: unknown, maxSteps = 1_000_000): string | null {
  const f = compileSubset(schema).check(value, maxSteps);
  return f ? describeFailure("arguments", f) : null;
}

const hello = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };

test("issue 13.2: a failure names the path and the rule", () => {
  assert.equal(problem(hello, { name: 5 }), "arguments.name: must be string");
  assert.equal(problem(hello, {}), 'arguments: must have required property "name"');
  assert.equal(problem(hello, { name: "x" }), null);
  const nested = {
    type: "object",
    properties: {
      list: { type: "array", items: { type: "object", properties: { "a b": { type: "integer", minimum: 1 } } } },
    },
  };
  assert.equal(problem(nested, { list: [{ "a b": 1 }, { "a b": 0 }] }), 'arguments.list[1]["a b"]: must be >= 1');
  assert.equal(problem(nested, { list: [{ "a b": 1.5 }] }), 'arguments.list[0]["a b"]: must be integer');
  assert.equal(problem({ type: "object" }, [1]), "arguments: must be object");
});

test("issue 13.2: closedness comes from the schema only (additionalProperties false), never invented", () => {
  assert.equal(problem(hello, { name: "x", extra: 1 }), null, "an open schema accepts an extra property");
  const closed = { ...hello, additionalProperties: false };
  assert.equal(problem(closed, { name: "x", extra: 1 }), 'arguments: must not have property "extra"');
  const typed = { ...hello, additionalProperties: { type: "number" } };
  assert.equal(problem(typed, { name: "x", extra: "no" }), "arguments.extra: must be number");
});

test(
  "issue 13.2: keywords outside the subset (pattern, format, $ref...) are not enforced; subschemas without " +
    "type accept any type",
  () => {
    const schema = {
      type: "object",
      properties: {
        p: { pattern: "^a+$", format: "email" },
        r: { $ref: "#/definitions/x" },
        any: { description: "no type" },
      },
    };
    assert.equal(problem(schema, { p: "zzz", r: 5, any: [1, { x: null }] }), null);
  },
);

test("issue 13.2: enum, const, lengths in code points, counts, anyOf and oneOf", () => {
  assert.match(problem({ enum: ["a", "b"] }, "c")!, /^arguments: must be one of "a", "b"$/);
  assert.equal(problem({ const: { k: [1] } }, { k: [1] }), null);
  assert.equal(problem({ maxLength: 1 }, "😀"), null, "one code point, two UTF-16 units");
  assert.equal(problem({ minLength: 2 }, "😀"), "arguments: must not have fewer than 2 characters");
  assert.equal(problem({ maxProperties: 1 }, { a: 1, b: 2 }), "arguments: must not have more than 1 properties");
  assert.equal(
    problem({ anyOf: [{ type: "string" }, { type: "null" }] }, 1),
    "arguments: must match a schema in anyOf",
  );
  assert.match(
    problem({ oneOf: [{ type: "number" }, { type: "integer" }] }, 1)!,
    /exactly one schema in oneOf \(matched more than one\)/,
  );
});

test("issue 13e: uniqueItems on 7,990 objects is one pass (canonical keys), and finds the duplicate", () => {
  const items = Array.from({ length: 7990 }, (_, i) => ({ id: i, tags: ["x", String(i)] }));
  const schema = { type: "array", uniqueItems: true };
  assert.equal(problem(schema, items), null);
  items.push({ tags: ["x", "17"], id: 17 });
  assert.equal(problem(schema, items), "arguments: must not have duplicate items (items 17 and 7990 are equal)");
});

test("issue 13e: a check is bounded in steps; past the bound the value is refused, not checked on", () => {
  const schema = { type: "array", items: { type: "object", properties: { a: { type: "number" } } } };
  const value = Array.from({ length: 1000 }, () => ({ a: 1 }));
  assert.equal(problem(schema, value, 10_000), null);
  assert.equal(
    problem(schema, value, 500),
    "arguments: is too large to check against its schema (over 500 validation steps)",
  );
});

// Differential: over random schemas of the TDEF-06 subset and random values, the verdict is Ajv's.
const keys = ["a", "b", "c"];
const scalar = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, -1.5, 1e3),
  fc.constantFrom("", "a", "ab", "😀", "a😀"),
  fc.boolean(),
  fc.constant(null),
);
const { value: rawValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 3, withCrossShrink: true },
    scalar,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...keys, "d"), tie("value"), { maxKeys: 3 }),
  ),
}));
// As JSON.parse builds them (plain prototypes): what the host validates.
const value = rawValue.map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const typeName = fc.constantFrom("object", "array", "string", "number", "integer", "boolean", "null");
type Schema = Record<string, unknown>;
const kw = (name: string, arb: fc.Arbitrary<unknown>): fc.Arbitrary<Schema> => arb.map((v) => ({ [name]: v }));
const leaf: fc.Arbitrary<Schema> = fc.oneof(
  kw("type", fc.oneof(typeName, fc.uniqueArray(typeName, { minLength: 1, maxLength: 2 }))),
  kw("required", fc.uniqueArray(fc.constantFrom(...keys), { maxLength: 2 })),
  kw("additionalProperties", fc.boolean()),
  kw("enum", fc.array(value, { minLength: 1, maxLength: 3 })),
  kw("const", value),
  kw("minimum", fc.integer({ min: -2, max: 2 })),
  kw("exclusiveMaximum", fc.integer({ min: -2, max: 2 })),
  kw("minLength", fc.nat(2)),
  kw("maxLength", fc.nat(2)),
  kw("minItems", fc.nat(2)),
  kw("maxItems", fc.nat(2)),
  kw("uniqueItems", fc.boolean()),
  kw("minProperties", fc.nat(2)),
  kw("maxProperties", fc.nat(2)),
);
/** A schema of at most `depth` nested levels, one or two keywords per node. */
function schemaOf(depth: number): fc.Arbitrary<Schema> {
  const one: fc.Arbitrary<Schema> =
    depth === 0
      ? leaf
      : (() => {
          const sub = schemaOf(depth - 1);
          return fc.oneof(
            leaf,
            kw("properties", fc.dictionary(fc.constantFrom(...keys), sub, { maxKeys: 2 })),
            kw("items", sub),
            kw("additionalProperties", sub),
            kw("allOf", fc.array(sub, { minLength: 1, maxLength: 2 })),
            kw("anyOf", fc.array(sub, { minLength: 1, maxLength: 2 })),
            kw("oneOf", fc.array(sub, { minLength: 1, maxLength: 2 })),
          );
        })();
  return fc.tuple(one, fc.option(one)).map(([a, b]) => ({ ...(b ?? {}), ...a }));
}
const schema = schemaOf(2);

test("issue 13.2: the subset validator agrees with Ajv on random schemas and values of the subset", () => {
  const Ajv = (createRequire(import.meta.url)("ajv") as { Ajv: typeof AjvClass }).Ajv;
  const ajv = new Ajv({ strict: false, allErrors: false });
  fc.assert(
    fc.property(schema, fc.array(value, { minLength: 1, maxLength: 8 }), (s, values) => {
      let expected: ReturnType<typeof ajv.compile>;
      try {
        expected = ajv.compile(s);
      } catch {
        return; // a schema Ajv's meta-schema refuses (an enum with duplicates): nothing to compare
      }
      const mine = compileSubset(s);
      for (const v of values)
        assert.equal(
          mine.check(v, 1_000_000) === null,
          expected(v),
          `schema ${JSON.stringify(s)} value ${JSON.stringify(v)}`,
        );
    }),
    { numRuns: 300 },
  );
});

test(
  "issue 13.13 (review): enum and const charge the encoded length of what they compare, so many " +
    "alternatives over one large value are refused as too large, not re-encoded for seconds",
  () => {
    const schema = { anyOf: Array.from({ length: 2_000 }, (_, i) => ({ enum: [i, `v${i}`] })) };
    const big = { rows: Array.from({ length: 4_000 }, (_, i) => ({ i, text: "x".repeat(40) })) };
    // Primitives-only enums never encode an object: 2,000 cheap refusals, then anyOf fails.
    assert.equal(problem(schema, big), "arguments: must match a schema in anyOf");
    const objects = { anyOf: Array.from({ length: 2_000 }, (_, i) => ({ const: { i } })) };
    assert.match(
      problem(objects, big) ?? "",
      /too large to check against its schema \(over 1000000 validation steps\)/,
    );
    // Within the budget the verdict is exact.
    assert.equal(problem(objects, { i: 1_999 }), null);
    assert.equal(problem({ enum: [{ a: 1 }, "b"] }, { a: 1 }), null);
    assert.equal(problem({ enum: ["a", "b"] }, ["a"]), 'arguments: must be one of "a", "b"');
  },
);

test(
  "issue 13.2 (review): with patternProperties (outside the enforced subset), additionalProperties false " +
    "is not enforced, so names the patterns admit are not refused",
  () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string" } },
      patternProperties: { "^x-": { type: "string" } },
      additionalProperties: false,
    };
    assert.equal(problem(schema, { name: "a", "x-trace": "abc" }), null);
    assert.equal(problem(schema, { name: 5 }), "arguments.name: must be string");
  },
);
