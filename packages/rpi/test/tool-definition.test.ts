// A pi tool as octet's definition (octet/late-tools.ts toolDefinition): pi's promptSnippet and
// promptGuidelines fitted to octet's prompt metadata bounds (TDEF-10) at the limit and past it,
// and left out where the host did not take prompt metadata (TDEF-09).
import { test } from "node:test";
import assert from "node:assert/strict";
import { bounds } from "@octet/protocol";
import { toolDefinition } from "../src/octet/late-tools.js";

const base = { name: "t", description: "d", parameters: { type: "object", properties: {} } };

test("TDEF-10: pi's prompt snippet and guidelines fitted to octet's bounds, at the limit and past it", () => {
  const max = bounds.MAX_PROMPT_METADATA_BYTES;
  const at = toolDefinition({ ...base, promptSnippet: "s".repeat(max) }, true);
  assert.equal(at.prompt_snippet, "s".repeat(max), "at the limit: whole");
  const past = toolDefinition({ ...base, promptSnippet: `${"é".repeat(max / 2)}x` }, true);
  // Past it: cut between characters, marked, within the bound.
  assert.ok(Buffer.byteLength(past.prompt_snippet ?? "") <= max);
  assert.match(past.prompt_snippet ?? "", /^(é)+\.\.\.$/);
  const guidelines = Array.from({ length: bounds.MAX_PROMPT_GUIDELINES + 1 }, (_, i) => `g${i}`);
  assert.equal(toolDefinition({ ...base, promptGuidelines: guidelines }, true).prompt_guidelines?.length, 16);
  assert.equal(
    toolDefinition({ ...base, promptGuidelines: guidelines.slice(0, 16) }, true).prompt_guidelines?.length,
    16,
  );
  assert.equal(toolDefinition({ ...base, promptSnippet: "a\u0007b\tc\nd" }, true).prompt_snippet, "a b\tc\nd");
});

test("TDEF-09: without prompt metadata taken, a pi tool's snippet and guidelines are left out", () => {
  const def = toolDefinition({ ...base, promptSnippet: "s", promptGuidelines: ["g"] }, false);
  assert.deepEqual(def, { name: "t", description: "d", parameters: base.parameters });
});
