import { test } from "node:test";
import assert from "node:assert/strict";
import { WireError } from "@octet/protocol";
import { describeGot, refuseInvalidArguments } from "../../src/schema-check/call-arguments.js";
import { CompileBudget, compileToolSchemas } from "../../src/schema-check/tool-schemas.js";

const schemas = compileToolSchemas(
  [
    {
      name: "greet",
      description: "d",
      parameters: {
        type: "object",
        properties: {
          name: { type: "string" },
          tags: { type: "array", items: { type: "string" } },
          opts: { type: "object", properties: { n: { type: "integer" } } },
        },
        required: ["name"],
        additionalProperties: false,
      },
    },
  ],
  new CompileBudget(),
);

/** The refusal refuseInvalidArguments throws for `args`. */
function refusal(args: unknown): WireError {
  try {
    refuseInvalidArguments("greet", schemas, args);
  } catch (err) {
    assert.ok(err instanceof WireError);
    return err;
  }
  assert.fail(`${JSON.stringify(args)} was accepted`);
}

test("issue 13 review: the argument refusal keeps its message; data.errors says what was given at the path", () => {
  const e = refusal({ name: 5 });
  assert.equal(e.code, -32602);
  assert.equal(e.message, 'invalid arguments for tool "greet": arguments.name: must be string');
  assert.deepEqual(e.data, { errors: [{ path: "arguments.name", rule: "must be string", got: "number 5" }] });
  assert.deepEqual(e.toJSON().data, { errors: [{ path: "arguments.name", rule: "must be string", got: "number 5" }] });
  const only = (path: string, rule: string, got: string) => ({ errors: [{ path, rule, got }] });
  const tags = refusal({ name: "x", tags: ["a", true] });
  assert.deepEqual(tags.data, only("arguments.tags[1]", "must be string", "boolean true"));
  const nested = refusal({ name: "x", opts: { n: "1.5" } });
  assert.deepEqual(nested.data, only("arguments.opts.n", "must be integer", 'string "1.5"'));
  // A failure of the object itself (a missing or an extra member) shows the object's type.
  assert.deepEqual(refusal({}).data, only("arguments", 'must have required property "name"', "object"));
  assert.deepEqual(refusal([1]).data, only("arguments", "must be object", "array"));
  refuseInvalidArguments("greet", schemas, { name: "fine" });
});

test("issue 13 review: got is the JSON type, and for a scalar its value cut to 40 characters", () => {
  assert.equal(describeGot(null), "null");
  assert.equal(describeGot(false), "boolean false");
  assert.equal(describeGot(-1.5e300), "number -1.5e+300");
  assert.equal(describeGot({ a: 1 }), "object");
  assert.equal(describeGot([]), "array");
  assert.equal(describeGot("a\nb"), 'string "a\\nb"');
  assert.equal(describeGot("x".repeat(41)), `string "${"x".repeat(40)}..."`);
  assert.equal(describeGot("y".repeat(40)), `string "${"y".repeat(40)}"`);
});
