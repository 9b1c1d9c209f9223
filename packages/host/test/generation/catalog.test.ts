/** One generation's catalog (CAT-07..09, CALL-03): epoch 0 from initialize, then publications. */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ToolDefinition } from "@octet/protocol";
import { GenerationCatalog } from "../../src/generation/catalog.js";
import { CompileBudget } from "../../src/schema-check/tool-schemas.js";

const tool = (name: string, type = "string"): ToolDefinition => ({
  name,
  description: name,
  parameters: { type: "object", properties: { v: { type } }, required: ["v"] },
});

test("CAT-09: the initialize catalog is epoch 0; each publication replaces it whole with its own schemas", () => {
  const c = new GenerationCatalog();
  assert.equal(c.tools.length, 0);
  c.accept([tool("a")]);
  assert.equal(c.revision, 0);
  assert.equal(c.schemas.checkArguments("a", { v: 1 }), "arguments.v: must be string");
  assert.equal(c.publish([tool("b", "integer")]), 1);
  assert.deepEqual(
    c.tools.map((t) => t.name),
    ["b"],
  );
  assert.equal(c.schemas.checkArguments("b", { v: "x" }), "arguments.v: must be integer");
  assert.equal(c.publish([]), 2);
  assert.deepEqual(c.tools, []);
});

test("CAT-08: a publication over the compile budget throws and changes nothing", () => {
  const c = new GenerationCatalog(new CompileBudget(50, 1_000_000));
  c.accept([tool("a")]);
  const before = c.schemas;
  const next = [tool("big", "integer"), tool("bigger", "number")];
  assert.throws(() => c.publish(next), /over the limit of 50 bytes per publication/);
  assert.equal(c.revision, 0);
  assert.deepEqual(
    c.tools.map((t) => t.name),
    ["a"],
  );
  assert.equal(c.schemas, before);
});
