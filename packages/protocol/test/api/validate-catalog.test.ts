import { test } from "node:test";
import assert from "node:assert/strict";
import {
  validateCatalogMutationResult,
  validateToolsRegisterParams,
  validateToolsUnregisterParams,
} from "../../src/api/validate-catalog.js";
import { MAX_TOOLS } from "../../src/bounds.js";
import { accepted, refused } from "../helpers/checked.js";

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `tool ${name}`,
  parameters: { type: "object", properties: {} },
  ...extra,
});
const many = (n: number) => Array.from({ length: n }, (_, i) => tool(`t${i}`));

test(
  "CAT-02: tools/register carries complete definitions; a definition missing a member is refused, " + "not patched",
  () => {
    const v = accepted(
      validateToolsRegisterParams({ tools: [tool("a", { output_schema: null })] }, "0.2", ["dynamic_tools"]),
    );
    assert.equal(v.tools[0]!.name, "a");
    refused(validateToolsRegisterParams({ tools: [{ name: "a" }] }, "0.2", ["dynamic_tools"]), "tools[0].description");
    refused(
      validateToolsRegisterParams(
        { tools: [{ name: "a", description: "d", parameters: { type: "object" }, patch: true }] },
        "0.2",
        [],
      ),
      "tools[0].patch",
      "unknown member",
    );
  },
);

test("CAT-03: catalog mutations are process-scoped: parent_request_id and resource_owner are not members", () => {
  refused(
    validateToolsRegisterParams({ tools: [tool("a")], parent_request_id: 2 }, "0.2", []),
    "parent_request_id",
    "unknown member",
  );
  refused(validateToolsUnregisterParams({ names: ["a"], resource_owner: {} }), "resource_owner", "unknown member");
});

test("CAT-04: names in one tools/register must be unique", () => {
  refused(
    validateToolsRegisterParams({ tools: [tool("a"), tool("b"), tool("a")] }, "0.2", []),
    "duplicate tool names",
    '"a"',
  );
});

test(
  "CAT-05: a tools/register request is capped at 256 tools: 256 pass, 257 are refused naming the count and " +
    "the limit",
  () => {
    assert.equal(accepted(validateToolsRegisterParams({ tools: many(MAX_TOOLS) }, "0.2", [])).tools.length, 256);
    refused(validateToolsRegisterParams({ tools: many(MAX_TOOLS + 1) }, "0.2", []), "257", "256");
  },
);

test("CAT-11: tools/unregister names are unique valid tool identifiers, at most 256", () => {
  assert.deepEqual(accepted(validateToolsUnregisterParams({ names: ["a", "b_c-1"] })).names, ["a", "b_c-1"]);
  refused(validateToolsUnregisterParams({ names: ["a", "a"] }), "duplicate names", '"a"');
  refused(validateToolsUnregisterParams({ names: ["has space"] }), "names[0]", "is not a tool name");
  refused(validateToolsUnregisterParams({ names: [7] }), "names[0]", "is not a tool name");
  assert.equal(
    accepted(validateToolsUnregisterParams({ names: many(MAX_TOOLS).map((t) => t.name) })).names.length,
    256,
  );
  refused(validateToolsUnregisterParams({ names: many(MAX_TOOLS + 1).map((t) => t.name) }), "257", "256");
  refused(validateToolsUnregisterParams({}), "names");
});

test(
  "CAT-18: registration applies the initialize rules: prompt metadata only on API 0.4 with the feature " + "negotiated",
  () => {
    const withMeta = tool("m", { prompt_snippet: "use m" });
    refused(
      validateToolsRegisterParams({ tools: [withMeta] }, "0.4", ["dynamic_tools"]),
      "prompt_snippet",
      "tool_prompt_metadata_v1",
    );
    accepted(validateToolsRegisterParams({ tools: [withMeta] }, "0.4", ["dynamic_tools", "tool_prompt_metadata_v1"]));
    refused(
      validateToolsRegisterParams(
        { tools: [tool("s", { output_schema: { type: "object", $ref: "http://x" } })] },
        "0.2",
        [],
      ),
      "tools[0].output_schema",
    );
  },
);

test("CAT-08: the mutation result is {revision, tools}: revision at least 1, the complete unique list", () => {
  assert.deepEqual(accepted(validateCatalogMutationResult({ revision: 3, tools: ["a", "b"] })), {
    revision: 3,
    tools: ["a", "b"],
  });
  refused(validateCatalogMutationResult({ revision: 0, tools: [] }), "revision");
  refused(validateCatalogMutationResult({ revision: 1 }), "tools", "missing");
  refused(validateCatalogMutationResult({ revision: 1, tools: ["a", "a"] }), "duplicate");
  refused(validateCatalogMutationResult({ revision: 1, tools: [], extra: 1 }), "extra");
});
