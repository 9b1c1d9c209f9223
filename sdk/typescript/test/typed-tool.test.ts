/**
 * Typed tools in process: schema generation and refusal at registration, argument decoding before
 * the handler, output checks, TypedResult, and the wire result as the host's own validators read
 * it. The process path (real child, real wire) is in typed-process.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import {
  ErrorCode,
  WireError,
  bounds,
  validateDiagnostics,
  validateToolDefinition,
  validateToolResult,
  type ToolDefinition,
} from "@octet/protocol";
import { TypedResult, INVALID_OUTPUT_CODE } from "../src/index.js";
import { buildTypedTool, type TypedToolHandler, type TypedToolSpec } from "../src/typed-tool.js";
import { toToolResult } from "../src/results.js";
import type { HandlerContext } from "../src/types.js";
import type { TObject, TSchema } from "@sinclair/typebox";

const CTX = {} as HandlerContext;

/** Builds a typed tool and returns its wire definition and a call(args) giving the wire result. */
function typed<I extends TObject, O extends TSchema | undefined = undefined>(
  spec: TypedToolSpec<I, O>,
  handler: TypedToolHandler<I, O>,
) {
  const built = buildTypedTool(spec, handler);
  const definition: ToolDefinition = {
    name: built.spec.name,
    description: built.spec.description,
    parameters: built.spec.parameters!,
  };
  if (built.spec.outputSchema) definition.output_schema = built.spec.outputSchema;
  const checked = validateToolDefinition(definition, "0.4", []);
  assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("; "));
  return {
    definition,
    call: async (args: Record<string, unknown>) => {
      const result = toToolResult(await built.handler(args, CTX), "0.4");
      const accepted = validateToolResult(result, "0.4", definition);
      assert.ok(
        accepted.ok,
        `the host validator refused the result: ${accepted.ok ? "" : accepted.problems.join("; ")}`,
      );
      return result as {
        content: { type: string; text: string }[];
        is_error: boolean;
        structured_content?: unknown;
        metadata?: Record<string, unknown>;
      };
    },
  };
}

async function refusedInput(call: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof WireError, `expected a WireError, got ${String(err)}`);
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, pattern);
    return true;
  });
}

function invalidOutput(
  result: { is_error: boolean; structured_content?: unknown; metadata?: Record<string, unknown> },
  pattern: RegExp,
): void {
  assert.equal(result.is_error, true, "invalid output is never a success");
  assert.equal("structured_content" in result, false);
  const diags = result.metadata?.["octet_diagnostics_v1"] as { code: string; message: string }[];
  assert.equal(diags.length, 1);
  assert.equal(diags[0]!.code, INVALID_OUTPUT_CODE);
  assert.match(diags[0]!.message, pattern);
}

const Record = Type.Object({
  name: Type.String(),
  enabled: Type.Boolean(),
  samples: Type.Array(Type.Number()),
  note: Type.Union([Type.String(), Type.Null()], { default: null }),
});

test(
  "PY-11, PY-12: typedTool derives closed parameters and output_schema in the output subset, and a success " +
    "is structured_content with the summary as text",
  async () => {
    const echo = typed(
      {
        name: "echo",
        description: "Echo a typed record",
        input: Record,
        output: Record,
        summary: () => "Echoed typed record.",
      },
      (value) => value,
    );
    const closed = {
      type: "object",
      properties: {
        name: { type: "string" },
        enabled: { type: "boolean" },
        samples: { type: "array", items: { type: "number" } },
        note: { anyOf: [{ type: "string" }, { type: "null" }], default: null },
      },
      required: ["name", "enabled", "samples"],
      additionalProperties: false,
    };
    assert.deepEqual(echo.definition.parameters, closed);
    assert.deepEqual(echo.definition.output_schema, closed);
    const result = await echo.call({ name: "a", enabled: true, samples: [1, 2.5] });
    assert.deepEqual(result, {
      content: [{ type: "text", text: "Echoed typed record." }],
      is_error: false,
      structured_content: { name: "a", enabled: true, samples: [1, 2.5], note: null },
    });
  },
);

test(
  "PY-11: a typed tool needs a handler function (API 0.4 and registration beside ext.tool are in " +
    "typed-process.test.ts)",
  () => {
    assert.throws(
      () => buildTypedTool({ name: "t", description: "d", input: Type.Object({}) }, undefined as never),
      /needs a handler function/,
    );
  },
);

test(
  "PY-13: strings, booleans, integers within ±(2^53-1), finite numbers, lists, nested records, nullable " +
    "and string enums/literals decode",
  async () => {
    const input = Type.Object({
      s: Type.String(),
      b: Type.Boolean(),
      i: Type.Integer(),
      f: Type.Number(),
      list: Type.Array(Type.Object({ k: Type.Literal("one") })),
      color: Type.Union([Type.Literal("red"), Type.Literal("green")]),
      maybe: Type.Union([Type.Integer(), Type.Null()]),
    });
    let seen: unknown;
    const t = typed({ name: "all", description: "d", input }, (v) => {
      seen = v;
      return "ok";
    });
    assert.deepEqual(t.definition.parameters["properties"], {
      s: { type: "string" },
      b: { type: "boolean" },
      i: { type: "integer" },
      f: { type: "number" },
      list: {
        type: "array",
        items: {
          type: "object",
          properties: { k: { type: "string", enum: ["one"] } },
          required: ["k"],
          additionalProperties: false,
        },
      },
      color: { type: "string", enum: ["red", "green"] },
      maybe: { anyOf: [{ type: "integer" }, { type: "null" }] },
    });
    const good = {
      s: "é",
      b: false,
      i: Number.MAX_SAFE_INTEGER,
      f: 0.5,
      list: [{ k: "one" }],
      color: "green",
      maybe: null,
    };
    await t.call(good);
    assert.deepEqual(seen, good);
    await t.call({ ...good, i: -Number.MAX_SAFE_INTEGER, maybe: 3 });
    await refusedInput(
      t.call({ ...good, i: Number.MAX_SAFE_INTEGER + 1 }),
      /arguments\.i: 9007199254740992 is outside ±\(2\^53-1\)/,
    );
    await refusedInput(t.call({ ...good, i: 1.5 }), /arguments\.i: expected an integer, got 1\.5/);
    await refusedInput(t.call({ ...good, color: "blue" }), /arguments\.color: "blue" is not one of "red", "green"/);
    await refusedInput(t.call({ ...good, list: [{ k: "two" }] }), /arguments\.list\[0\]\.k/);
    await refusedInput(t.call({ ...good, s: 3 }), /arguments\.s: expected a string, got 3/);
  },
);

test(
  "PY-14: an integer is a float for a number field, a boolean is never a number, and records " + "are closed",
  async () => {
    const t = typed(
      { name: "n", description: "d", input: Type.Object({ f: Type.Number(), i: Type.Integer() }) },
      (v) => `${v.f}`,
    );
    assert.equal((await t.call({ f: 2, i: 1 })).content[0]!.text, "2");
    await refusedInput(t.call({ f: true, i: 1 }), /arguments\.f: expected a finite number, got true/);
    await refusedInput(t.call({ f: 1, i: false }), /arguments\.i: expected a finite integer, got false/);
    await refusedInput(t.call({ f: 1, i: 1, extra: 0 }), /arguments\.extra: unknown field; the record is closed/);
    // The output side: non-finite numbers are refused too (JSON has no NaN or Infinity).
    const out = typed(
      {
        name: "o",
        description: "d",
        input: Type.Object({}),
        output: Type.Object({ f: Type.Number() }),
        summary: () => "s",
      },
      () => ({ f: Number.NaN }),
    );
    invalidOutput(await out.call({}), /output\.f: expected a finite number, got NaN/);
  },
);

test(
  "PY-15: nullable permits explicit null, omission needs a default, and null never substitutes for a " +
    "non-null default",
  async () => {
    assert.throws(
      () =>
        buildTypedTool(
          {
            name: "t",
            description: "d",
            input: Type.Object({ note: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
          },
          () => "x",
        ),
      /input\.properties\.note: the field may be omitted but has no default/,
    );
    let seen: unknown;
    const t = typed(
      {
        name: "t",
        description: "d",
        input: Type.Object({ note: Type.Union([Type.String(), Type.Null()]), mode: Type.String({ default: "fast" }) }),
      },
      (v) => {
        seen = v;
        return "ok";
      },
    );
    assert.deepEqual(t.definition.parameters["required"], ["note"], "a field with a default may be omitted");
    await t.call({ note: null });
    assert.deepEqual(seen, { note: null, mode: "fast" });
    await refusedInput(t.call({}), /arguments\.note: missing required field/);
    await refusedInput(t.call({ note: null, mode: null }), /arguments\.mode: expected a string, got null/);
  },
);

test("PY-16: defaults are checked at registration and decoded afresh for each omitted field", async () => {
  assert.throws(
    () =>
      buildTypedTool(
        { name: "t", description: "d", input: Type.Object({ n: Type.Integer({ default: 1.5 }) }) },
        () => "x",
      ),
    /input\.properties\.n\.default: expected an integer, got 1\.5/,
  );
  assert.throws(
    () =>
      buildTypedTool(
        { name: "t", description: "d", input: Type.Object({ c: Type.Union([Type.Literal("a")], { default: "b" }) }) },
        () => "x",
      ),
    /"b" is not one of "a"/,
  );
  const seen: unknown[] = [];
  const t = typed(
    { name: "t", description: "d", input: Type.Object({ tags: Type.Array(Type.String(), { default: ["x"] }) }) },
    (v) => {
      seen.push(structuredClone(v));
      v.tags.push("mutated by the handler");
      return "ok";
    },
  );
  await t.call({});
  await t.call({});
  assert.deepEqual(
    seen,
    [{ tags: ["x"] }, { tags: ["x"] }],
    "a handler's change to a default never reaches the next call",
  );
});

test(
  "PY-17: maps, tuples, recursive types, general unions, untyped values and unsupported keywords fail " +
    "registration",
  () => {
    const refuses = (input: TSchema, pattern: RegExp): void => {
      assert.throws(
        () => buildTypedTool({ name: "t", description: "d", input: Type.Object({ x: input }) }, () => "x"),
        pattern,
      );
    };
    refuses(Type.Record(Type.String(), Type.Number()), /maps are not supported/);
    refuses(Type.Tuple([Type.String(), Type.Number()]), /tuples are not supported/);
    refuses(
      Type.Recursive((self) => Type.Object({ next: Type.Union([self, Type.Null()]) })),
      /references and recursive types are not supported/,
    );
    refuses(Type.Union([Type.String(), Type.Number()]), /general unions are not supported/);
    refuses(Type.Any(), /untyped values/);
    refuses(Type.Unknown(), /untyped values/);
    refuses(Type.String({ pattern: "^a" }), /keyword "pattern": not supported by typed tools for a string/);
    refuses(Type.String({ format: "email" }), /keyword "format"/);
    refuses(Type.Object({ a: Type.String() }, { additionalProperties: true }), /records are closed/);
    refuses(Type.Literal(3), /keyword "const": not supported by typed tools for a number/);
    refuses(
      Type.Intersect([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
      /intersections are not supported/,
    );
    // A schema object that contains itself is a recursive type too, not an endless walk.
    const cyclic: Record<string, unknown> = { type: "object", properties: {} };
    (cyclic["properties"] as Record<string, unknown>)["self"] = cyclic;
    assert.throws(
      () => buildTypedTool({ name: "t", description: "d", input: cyclic as unknown as TObject }, () => "x"),
      /refers to itself/,
    );
    assert.throws(
      () => buildTypedTool({ name: "t", description: "d", input: Type.String() as unknown as TObject }, () => "x"),
      /the input must be a record/,
    );
    assert.throws(
      () =>
        buildTypedTool(
          {
            name: "t",
            description: "d",
            input: Type.Object({}),
            output: Type.Union([Type.String(), Type.Null()]),
            summary: () => "s",
          },
          () => "x",
        ),
      /root cannot be nullable/,
    );
    assert.throws(
      () =>
        buildTypedTool({ name: "t", description: "d", input: Type.Object({}), summary: () => "s" } as never, () => "x"),
      /summary needs an output/,
    );
  },
);

test("PY-18: the generated schema is at most 64 KiB: at the limit accepted, one byte more refused", () => {
  const withDescription = (n: number) => Type.Object({ a: Type.String({ description: "d".repeat(n) }) });
  const base = JSON.stringify(
    buildTypedTool({ name: "t", description: "d", input: withDescription(0) }, () => "x").spec.parameters,
  ).length;
  const fill = bounds.MAX_TYPED_SCHEMA_BYTES - base;
  const atLimit = buildTypedTool({ name: "t", description: "d", input: withDescription(fill) }, () => "x").spec
    .parameters;
  assert.equal(JSON.stringify(atLimit).length, 65_536);
  assert.throws(
    () => buildTypedTool({ name: "t", description: "d", input: withDescription(fill + 1) }, () => "x"),
    /input: the generated schema is 65537 bytes, over the 65536-byte limit/,
  );
});

test(
  "PY-18: a typed value is at most 256 KiB, and each string at most 128 KiB: at the limits accepted, one " +
    "past refused",
  async () => {
    const t = typed(
      { name: "t", description: "d", input: Type.Object({ a: Type.String(), b: Type.String() }) },
      () => "ok",
    );
    const a = "x".repeat(bounds.MAX_TYPED_STRING_BYTES);
    const b = "y".repeat(bounds.MAX_TYPED_VALUE_BYTES - '{"a":"","b":""}'.length - a.length);
    assert.equal(JSON.stringify({ a, b }).length, 262_144);
    await t.call({ a, b });
    await refusedInput(t.call({ a, b: `${b}y` }), /262144-byte limit/);
    await refusedInput(
      t.call({ a: `${a}x`, b: "" }),
      /arguments\.a: string of 131073 bytes, over the 131072-byte limit/,
    );
    // The output side has the same value bound.
    const out = typed(
      { name: "o", description: "d", input: Type.Object({}), output: Type.Array(Type.String()), summary: () => "s" },
      () => [a, a],
    );
    invalidOutput(await out.call({}), /262144-byte limit/);
  },
);

test(
  "PY-18: a typed value is at most 32 levels deep and 16,384 nodes: at the limits accepted, one " + "past refused",
  async () => {
    let schema: TObject = Type.Object({});
    let value: Record<string, unknown> = {};
    for (let level = 2; level <= 32; level++) {
      schema = Type.Object({ d: schema });
      value = { d: value };
    }
    const deep = typed({ name: "deep", description: "d", input: schema }, () => "ok");
    await deep.call(value);
    await refusedInput(deep.call({ d: { ...value, extra: { d: value } } }), /32-level limit|32 levels/);
    const wide = typed(
      { name: "wide", description: "d", input: Type.Object({ a: Type.Array(Type.Integer()) }) },
      () => "ok",
    );
    await wide.call({ a: new Array(bounds.MAX_VALUE_NODES - 2).fill(0) });
    await refusedInput(wide.call({ a: new Array(bounds.MAX_VALUE_NODES - 1).fill(0) }), /16384-node limit|16384 nodes/);
  },
);

test(
  "PY-19: a summary is non-empty plain text of at most 4096 bytes: at the limit accepted, one byte " + "more refused",
  async () => {
    const with_ = (summary: string) =>
      typed(
        { name: "s", description: "d", input: Type.Object({}), output: Type.Integer(), summary: () => summary },
        () => 1,
      );
    assert.equal((await with_("é".repeat(2048)).call({})).is_error, false);
    invalidOutput(await with_(`${"é".repeat(2048)}x`).call({}), /the summary is 4097 bytes, over the 4096-byte limit/);
    invalidOutput(await with_("  ").call({}), /the summary must not be empty/);
    invalidOutput(await with_("a\u0007b").call({}), /control character U\+0007 at index 1/);
    assert.equal((await with_("two\nlines\tand a tab").call({})).is_error, false);
    const throwing = typed(
      {
        name: "s",
        description: "d",
        input: Type.Object({}),
        output: Type.Integer(),
        summary: () => {
          throw new Error("boom");
        },
      },
      () => 1,
    );
    invalidOutput(await throwing.call({}), /the summary callback threw: boom/);
  },
);

test(
  "PY-20: arguments that do not match are refused -32602 before the handler runs; output that does not " +
    "match is a tool error, never a success",
  async () => {
    let ran = 0;
    const t = typed(
      {
        name: "t",
        description: "d",
        input: Type.Object({ n: Type.Integer({ minimum: 0, maximum: 10 }) }),
        output: Type.Object({ half: Type.Integer() }),
        summary: () => "halved",
      },
      (v) => {
        ran++;
        return { half: v.n / 2 };
      },
    );
    await refusedInput(t.call({ n: 11 }), /invalid arguments for tool "t": arguments\.n: 11 is above the maximum 10/);
    await refusedInput(t.call({ n: -1 }), /-1 is below the minimum 0/);
    await refusedInput(t.call({}), /arguments\.n: missing required field/);
    assert.equal(ran, 0, "the handler never ran for refused arguments");
    assert.deepEqual((await t.call({ n: 4 })).structured_content, { half: 2 });
    const bad = await t.call({ n: 3 });
    invalidOutput(bad, /output\.half: expected an integer, got 1\.5/);
    assert.equal(bad.content[0]!.text, "Tool t produced invalid output.");
    assert.match(bad.content[1]!.text, /- error octet\.typed\.invalid_output: output\.half/);
    const extra = typed(
      {
        name: "x",
        description: "d",
        input: Type.Object({}),
        output: Type.Object({ a: Type.String() }),
        summary: () => "s",
      },
      () => ({ a: "1", b: 2 }) as never,
    );
    invalidOutput(await extra.call({}), /output\.b: unknown field; the record is closed/);
    const instance = typed(
      { name: "i", description: "d", input: Type.Object({}), output: Type.Object({}), summary: () => "s" },
      () => new Date() as never,
    );
    invalidOutput(await instance.call({}), /expected a record \(plain object\)/);
    const noSummary = typed({ name: "p", description: "d", input: Type.Object({}), output: Type.Integer() }, () => 1);
    invalidOutput(await noSummary.call({}), /has no summary; return new TypedResult/);
  },
);

test(
  "PY-22: a TypedResult carries value, summary, error and diagnostics; an error may omit its value, a " +
    "success may not",
  async () => {
    const spec = {
      name: "solve",
      description: "d",
      input: Type.Object({ fail: Type.Boolean() }),
      output: Type.Object({ x: Type.Number() }),
    };
    const t = typed(spec, (v) =>
      v.fail
        ? new TypedResult(null, "Validation failed.", {
            isError: true,
            diagnostics: [
              { severity: "error", code: "solver.nonconvergent", message: "Operating point did not converge." },
            ],
          })
        : new TypedResult({ x: 1 }, "Solved.", {
            diagnostics: [{ severity: "info", code: "solver.iterations", message: "12 iterations" }],
          }),
    );
    const failed = await t.call({ fail: true });
    assert.deepEqual(failed, {
      content: [
        { type: "text", text: "Validation failed." },
        { type: "text", text: "Diagnostics (1):\n- error solver.nonconvergent: Operating point did not converge." },
      ],
      is_error: true,
      metadata: {
        octet_diagnostics_v1: [
          { severity: "error", code: "solver.nonconvergent", message: "Operating point did not converge." },
        ],
      },
    });
    const solved = await t.call({ fail: false });
    assert.equal(solved.is_error, false);
    assert.deepEqual(solved.structured_content, { x: 1 });
    assert.deepEqual(solved.metadata, {
      octet_diagnostics_v1: [{ severity: "info", code: "solver.iterations", message: "12 iterations" }],
    });
    const nullSuccess = typed(spec, () => new TypedResult<{ x: number }>(null, "nothing"));
    invalidOutput(await nullSuccess.call({ fail: false }), /a successful result needs its value/);
    // An error with a value that does not match is not published either.
    const badError = typed(spec, () => new TypedResult({ x: "no" } as never, "failed", { isError: true }));
    invalidOutput(await badError.call({ fail: true }), /output\.x: expected a finite number/);
    // Invalid diagnostics make the result invalid, and the author's diagnostics are not sent with it.
    const badDiag = typed(
      spec,
      () => new TypedResult({ x: 1 }, "ok", { diagnostics: [{ severity: "fatal", code: "c", message: "m" } as never] }),
    );
    invalidOutput(
      await badDiag.call({ fail: false }),
      /severity: "fatal" is not one of "error", "warning", "info", "hint"/,
    );
  },
);

test("PY-22: a typed tool without output answers its text, or a TypedResult without a value", async () => {
  const t = typed({ name: "t", description: "d", input: Type.Object({ n: Type.Integer() }) }, (v) =>
    v.n > 0
      ? `got ${v.n}`
      : new TypedResult(null, "n must be positive", {
          isError: true,
          diagnostics: [{ severity: "error", code: "input.range", message: "n <= 0" }],
        }),
  );
  assert.equal(t.definition.output_schema, undefined);
  assert.deepEqual(await t.call({ n: 2 }), { content: [{ type: "text", text: "got 2" }], is_error: false });
  const failed = await t.call({ n: 0 });
  assert.equal(failed.is_error, true);
  assert.equal(failed.content.length, 2);
  const withValue = typed(
    { name: "v", description: "d", input: Type.Object({}) },
    () => new TypedResult(3 as never, "three"),
  );
  invalidOutput(await withValue.call({}), /declares no output/);
});

test("PY-24: the invalid-output diagnostic is itself a valid octet_diagnostics_v1 profile", async () => {
  const t = typed(
    {
      name: "t",
      description: "d",
      input: Type.Object({}),
      output: Type.Object({ ["k\u0001"]: Type.String() }),
      summary: () => "s",
    },
    () => ({ ["k\u0001"]: 3 }) as never,
  );
  const result = await t.call({});
  const checked = validateDiagnostics(result.metadata?.["octet_diagnostics_v1"]);
  assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("; "));
});
