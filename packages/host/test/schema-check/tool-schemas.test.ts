import { test } from "node:test";
import assert from "node:assert/strict";
import type { ToolDefinition } from "@octet/protocol";
import { CompileBudget, compileToolSchemas } from "../../src/schema-check/tool-schemas.js";

/** A schema of about 3.9 KB; each salt gives a distinct one (the compile cache is process-wide). */
function schema(salt: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++)
    properties[`${salt}_${i}`] = {
      type: ["string", "null"],
      description: "a field described at length",
      maxLength: 100 + i,
    };
  return { type: "object", properties };
}
const bytes = (s: unknown): number => Buffer.byteLength(JSON.stringify(s));

function tools(n: number, output: (i: number) => Record<string, unknown>): ToolDefinition[] {
  return Array.from({ length: n }, (_, i) => ({
    name: `t${i}`,
    description: "d",
    parameters: { type: "object", properties: { n: { type: "integer" } } },
    output_schema: output(i),
  }));
}

test("issue 13b: a schema repeated across 255 tools and three publications counts (and compiles) once", () => {
  const shared = schema("repeat");
  // Room for the shared schema and the parameters once, not for 255 copies (of new compilation;
  // every publication's whole size counts per second, so that allowance is ample here).
  const budget = new CompileBudget(bytes(shared) + 200, 10_000_000);
  for (let round = 0; round < 3; round++) {
    const s = compileToolSchemas(
      tools(255, () => shared),
      budget,
    );
    assert.equal(s.checkStructured("t254", { repeat_0: 1 }), "structured_content.repeat_0: must be string or null");
    assert.equal(s.checkArguments("t0", { n: 1.5 }), "arguments.n: must be integer");
  }
});

test("issue 13b: new schema text past the per-publication bound is refused, naming the figure and the limit", () => {
  const budget = new CompileBudget(10_000, 1_000_000);
  assert.throws(
    () =>
      compileToolSchemas(
        tools(3, (i) => schema(`pub${i}`)),
        budget,
      ),
    /needs? \d+ bytes of new schema compilation, over the limit of 10000 bytes per publication/,
  );
  // Nothing was compiled: the same three still count as new.
  assert.throws(
    () =>
      compileToolSchemas(
        tools(3, (i) => schema(`pub${i}`)),
        budget,
      ),
    /over the limit of 10000 bytes per publication/,
  );
  compileToolSchemas(
    tools(2, (i) => schema(`pub${i}`)),
    budget,
  );
});

test("issue 13b: a generation may compile at most its bytes per second; the allowance refills with time", () => {
  let now = 0;
  // A publication's size: its one tool's name, description, parameters and output schema.
  const one = bytes(schema("rate0")) + bytes(tools(1, () => ({}))[0]!.parameters) + "t0d".length;
  const budget = new CompileBudget(100_000, 2 * one + 100, () => now);
  compileToolSchemas(
    tools(1, () => schema("rate0")),
    budget,
  );
  compileToolSchemas(
    tools(1, () => schema("rate1")),
    budget,
  );
  assert.throws(
    () =>
      compileToolSchemas(
        tools(1, () => schema("rate2")),
        budget,
      ),
    new RegExp(`has \\d+ left of its ${2 * one + 100} bytes per second; publish again later`),
  );
  // Compiled before, but published again: it counts (issue 13 review).
  const again = () =>
    compileToolSchemas(
      tools(1, () => schema("rate1")),
      budget,
    );
  assert.throws(again, /bytes per second; publish again later/);
  now += 600;
  compileToolSchemas(
    tools(1, () => schema("rate2")),
    budget,
  );
});

test("issue 13.2: tools without an output schema have no structured check; arguments are always checked", () => {
  const s = compileToolSchemas(
    [
      {
        name: "plain",
        description: "d",
        parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      },
    ],
    new CompileBudget(),
  );
  assert.equal(s.checkStructured("plain", 5), null);
  assert.equal(s.checkArguments("plain", {}), 'arguments: must have required property "path"');
  assert.equal(s.checkArguments("plain", { path: "a" }), null);
  assert.equal(s.checkArguments("unknown", { path: 1 }), null, "not this catalog's tool");
});

test(
  "issue 13b (review): the initialize catalog compiles whole past the per-publication bound (TDEF-13 " +
    "allows 1 MiB); the publications after it owe what it took",
  () => {
    let now = 0;
    const budget = new CompileBudget(); // the host's defaults: 262,144 per publication, 524,288 per second
    const big = tools(200, (i) => schema(`init${i}`)); // about 780 KB of distinct schemas
    assert.ok(big.reduce((n, t) => n + bytes(t.output_schema), 0) > 262_144 * 2);
    const clock = new CompileBudget(262_144, 524_288, () => now);
    const s = compileToolSchemas(big, clock, true);
    assert.equal(s.checkStructured("t0", { init0_0: "x" }), null);
    assert.match(s.checkStructured("t0", { init0_0: 5 }) ?? "", /structured_content.init0_0: must be string/);
    // Right after, a small new schema must wait for the allowance to refill.
    assert.throws(
      () =>
        compileToolSchemas(
          tools(1, () => schema("after0")),
          clock,
        ),
      /has 0 left of its 524288 bytes per second; publish again later/,
    );
    now += 2_000;
    compileToolSchemas(
      tools(1, () => schema("after0")),
      clock,
    );
    // Not initial: the same size is refused whole by the per-publication bound.
    assert.throws(
      () =>
        compileToolSchemas(
          tools(200, (i) => schema(`later${i}`)),
          budget,
        ),
      /over the limit of 262144 bytes per publication/,
    );
  },
);

test("issue 13 review: a cached catalog republished in a loop counts whole per second; one republish passes", () => {
  let now = 0;
  const catalog = tools(60, (i) => schema(`loop${i}`)); // about 230 KB, under the per-publication bound
  const defined = (t: ToolDefinition): number => t.name.length + t.description.length + bytes(t.parameters);
  const size = catalog.reduce((n, t) => n + defined(t) + bytes(t.output_schema), 0);
  const budget = new CompileBudget(262_144, 524_288, () => now);
  compileToolSchemas(catalog, budget); // compiles all 60
  compileToolSchemas(catalog, budget); // nothing new to compile, and still within the second
  const refusal = new RegExp(
    `its tool definitions are ${size} bytes \\(schemas compiled before count too.*` +
      "has \\d+ left of its 524288 bytes per second; publish again later",
  );
  assert.throws(() => compileToolSchemas(catalog, budget), refusal);
  now += 500; // half a second refills 262,144 bytes: one more republish
  compileToolSchemas(catalog, budget);
  assert.throws(() => compileToolSchemas(catalog, budget), /bytes per second; publish again later/);
});

test("issue 13 review: a publication over a second's allowance passes once it is full, and owes the rest", () => {
  let now = 0;
  const budget = new CompileBudget(1_000_000, 100_000, () => now);
  const big = tools(40, () => schema("owed")); // one schema compiled once, about 160 KB published
  compileToolSchemas(big, budget);
  const small = () =>
    compileToolSchemas(
      tools(1, () => schema("owed")),
      budget,
    );
  assert.throws(small, /has 0 left of its 100000 bytes per second/);
  now += 1_000; // a second refills 100,000: still owing
  assert.throws(() => compileToolSchemas(big, budget), /bytes per second; publish again later/);
  now += 1_000;
  compileToolSchemas(big, budget);
});
