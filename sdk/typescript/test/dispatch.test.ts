/**
 * API 0.4 tool results through a real child process: content parts and structured_content for a
 * tool with an outputSchema, accepted by the host's own validator against that tool's definition.
 * (The other content methods and error paths are in extension-dispatch.test.ts.)
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { validateToolResult, type ToolDefinition } from "@octet/protocol";
import { CONTEXT, WireHost, killAll, resultOf } from "./harness.js";

afterEach(killAll);

test(
  "CALL-15/CALL-20: on API 0.4 a tool with an outputSchema answers text parts and structured_content " +
    "that match it",
  async () => {
    const host = new WireHost("negotiated", ["0.4"]);
    const init = resultOf(await host.initialize("0.4", { optional: ["request_progress"] })) as {
      tools: ToolDefinition[];
    };
    const definition = init.tools.find((t) => t.name === "count");
    assert.deepEqual(definition?.output_schema, {
      type: "object",
      properties: { n: { type: "integer" } },
      required: ["n"],
      additionalProperties: false,
    });
    const result = resultOf(await host.request("tool/call", { name: "count", arguments: {}, context: CONTEXT }));
    assert.deepEqual(result, {
      content: [{ type: "text", text: "3 items" }],
      is_error: false,
      structured_content: { n: 3 },
    });
    const checked = validateToolResult(result, "0.4", definition);
    assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("; "));
  },
);
