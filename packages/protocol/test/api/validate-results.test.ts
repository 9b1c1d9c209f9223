import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  checkToolResult,
  validateCommandResult,
  validateHookResult,
  validateRenderResult,
  validateToolResult,
} from "../../src/api/validate-results.js";
import { finish } from "../../src/validate/fields.js";
import { Problems } from "../../src/validate/kit.js";
import type { ToolDefinition } from "../../src/api/types.js";
import {
  MAX_COMMAND_TEXT_BYTES,
  MAX_CONTENT_PARTS,
  MAX_CONTEXT_ENTRIES,
  MAX_METADATA_BYTES,
  MAX_METADATA_KEY_BYTES,
  MAX_RENDER_SEGMENTS,
  MAX_RENDER_TEXT_BYTES,
  MAX_STRUCTURED_CONTENT_BYTES,
  MAX_VALUE_DEPTH,
  MAX_VALUE_NODES,
} from "../../src/bounds.js";
import { accepted, bytes, clone, refused } from "../helpers/checked.js";
import {
  COMMAND_RESULT,
  HOOK_RESULT,
  RENDER_RESULT,
  TOOL_RESULT_V01,
  TOOL_RESULT_V02,
} from "../helpers/spec-fixtures.js";

const SCHEMA_TOOL: ToolDefinition = {
  name: "search",
  description: "d",
  parameters: { type: "object" },
  output_schema: { type: "object" },
};
const PLAIN_TOOL: ToolDefinition = { name: "plain", description: "d", parameters: { type: "object" } };
const TEXT = [{ type: "text", text: "ok" }];

function v02(extra: Record<string, unknown>): Record<string, unknown> {
  return { content: clone(TEXT), is_error: false, ...extra };
}

/** {"s":"..."} of exactly n encoded bytes (8 bytes of framing). */
function sized(n: number): Record<string, string> {
  return { s: bytes(n - 8) };
}

function nested(levels: number): unknown {
  let v: unknown = 0;
  for (let i = 0; i < levels; i++) v = { k: v };
  return v;
}

test("CALL-12: the API 0.1 result of the spec is accepted as one text part", () => {
  const r = accepted(validateToolResult(TOOL_RESULT_V01, "0.1"));
  assert.deepEqual(r, {
    parts: [{ type: "text", text: TOOL_RESULT_V01.content }],
    text: TOOL_RESULT_V01.content,
    is_error: false,
  });
});

test("CALL-12: API 0.1 content must be a string and is_error a boolean; absent is_error reads as false", () => {
  refused(validateToolResult({ content: TEXT, is_error: false }, "0.1"), "content: expected a string, got array");
  refused(validateToolResult({ is_error: false }, "0.1"), "content: missing; expected a string");
  refused(validateToolResult({ content: "x", is_error: "no" }, "0.1"), "is_error: expected a boolean, got string");
  assert.equal(accepted(validateToolResult({ content: "" }, "0.1")).is_error, false);
  refused(validateToolResult("text", "0.1"), "expected an object, got string");
});

test("CALL-13: is_error true is carried to the normalized result on every API", () => {
  assert.equal(accepted(validateToolResult({ content: "boom", is_error: true }, "0.1")).is_error, true);
  assert.equal(accepted(validateToolResult(v02({ is_error: true }), "0.4")).is_error, true);
});

test("CALL-14: API 0.1 metadata is accepted and discarded from the normalized result", () => {
  const r = accepted(validateToolResult({ ...TOOL_RESULT_V01, metadata: { secret: [1, 2, { deep: true }] } }, "0.1"));
  assert.equal("metadata" in r, false);
  assert.equal(JSON.stringify(r).includes("secret"), false);
});

test("CALL-15: the API 0.2 result of the spec is accepted, with structured content and metadata retained", () => {
  const r = accepted(validateToolResult(TOOL_RESULT_V02, "0.2", SCHEMA_TOOL));
  assert.deepEqual(r.parts, TOOL_RESULT_V02.content);
  assert.equal(r.text, "Found 3 sources.");
  assert.deepEqual(r.structured_content, TOOL_RESULT_V02.structured_content);
  assert.deepEqual(r.metadata, { cache: "miss" });
});

test("CALL-15: content must be a non-empty array on API 0.2+", () => {
  refused(validateToolResult(v02({ content: [] }), "0.2"), "content: must not be empty");
  refused(validateToolResult(v02({ content: "text" }), "0.4"), "content: expected an array, got string");
  refused(validateToolResult(v02({ content: undefined }), "0.2"), "content: missing; expected an array");
});

test("CALL-15: 256 parts are accepted, 257 are refused naming count and limit", () => {
  const parts = (n: number): unknown[] => Array.from({ length: n }, (_, i) => ({ type: "text", text: `p${i}` }));
  assert.equal(accepted(validateToolResult(v02({ content: parts(MAX_CONTENT_PARTS) }), "0.2")).parts.length, 256);
  refused(
    validateToolResult(v02({ content: parts(MAX_CONTENT_PARTS + 1) }), "0.2"),
    "content: 257 parts, over the 256-part limit",
  );
});

test("CALL-16: content without a text part is refused; text parts are joined with newlines", () => {
  const image = { type: "image", artifact_id: "a", mime_type: "image/png" };
  refused(validateToolResult(v02({ content: [image] }), "0.2"), "content: no text part");
  const r = accepted(
    validateToolResult(v02({ content: [{ type: "text", text: "one" }, image, { type: "text", text: "two" }] }), "0.2"),
  );
  assert.equal(r.text, "one\ntwo");
});

test("CALL-17: only text, image and audio parts, each with exactly its members, are accepted", () => {
  const audio = { type: "audio", artifact_id: "a1", mime_type: "audio/wav", transcript: "hi" };
  const image = { type: "image", artifact_id: "i1", mime_type: "image/png" };
  assert.deepEqual(accepted(validateToolResult(v02({ content: [...TEXT, audio, image] }), "0.2")).parts, [
    ...TEXT,
    audio,
    image,
  ]);
  refused(
    validateToolResult(v02({ content: [...TEXT, { type: "video", artifact_id: "v" }] }), "0.2"),
    'content[1].type: "video" is not one of "text", "image", "audio"',
  );
  refused(
    validateToolResult(v02({ content: [{ type: "text", text: "a", annotations: {} }] }), "0.2"),
    "content[0].annotations: unknown member",
  );
  refused(
    validateToolResult(v02({ content: [...TEXT, { ...image, transcript: "x" }] }), "0.2"),
    "content[1].transcript: unknown member",
  );
  refused(
    validateToolResult(v02({ content: [...TEXT, { ...audio, alt: "x" }] }), "0.2"),
    "content[1].alt: unknown member",
  );
  refused(
    validateToolResult(v02({ content: [...TEXT, { type: "image", artifact_id: "i1" }] }), "0.2"),
    "content[1].mime_type: missing; expected a string",
  );
  refused(
    validateToolResult(v02({ content: [...TEXT, { ...image, artifact_id: "" }] }), "0.2"),
    "content[1].artifact_id: must not be empty",
  );
  refused(
    validateToolResult(v02({ content: [...TEXT, { ...image, alt: 3 }] }), "0.2"),
    "content[1].alt: expected a string, got number",
  );
  refused(
    validateToolResult(v02({ content: [{ type: "text", text: 3 }] }), "0.2"),
    "content[0].text: expected a string, got number",
  );
  refused(validateToolResult(v02({ content: [null] }), "0.2"), "content[0]: expected an object, got null");
});

test("CALL-20: a tool with an output_schema requires structured_content", () => {
  refused(
    validateToolResult(v02({}), "0.2", SCHEMA_TOOL),
    'structured_content: missing; tool "search" declares an output_schema',
  );
  refused(validateToolResult(v02({ structured_content: null }), "0.2", SCHEMA_TOOL), "structured_content: missing");
  assert.deepEqual(
    accepted(validateToolResult(v02({ structured_content: { n: 1 } }), "0.2", SCHEMA_TOOL)).structured_content,
    { n: 1 },
  );
});

test(
  "CALL-20, PY-22: an error result of a tool with an output_schema may omit structured_content; one it " +
    "carries is still checked",
  () => {
    const failed = accepted(validateToolResult(v02({ is_error: true }), "0.4", SCHEMA_TOOL));
    assert.equal(failed.is_error, true);
    assert.equal("structured_content" in failed, false);
    refused(validateToolResult(v02({ is_error: false }), "0.4", SCHEMA_TOOL), "structured_content: missing");
    refused(
      validateToolResult(
        v02({ is_error: true, structured_content: "x".repeat(MAX_STRUCTURED_CONTENT_BYTES) }),
        "0.4",
        SCHEMA_TOOL,
      ),
      "262144-byte limit",
    );
  },
);

test("CALL-20: a tool without an output_schema (absent or null) must not return structured_content", () => {
  refused(
    validateToolResult(v02({ structured_content: { n: 1 } }), "0.2", PLAIN_TOOL),
    'structured_content: not allowed; tool "plain" declares no output_schema',
  );
  refused(
    validateToolResult(v02({ structured_content: [] }), "0.4", { ...PLAIN_TOOL, output_schema: null }),
    "structured_content: not allowed",
  );
  assert.equal("structured_content" in accepted(validateToolResult(v02({}), "0.2", PLAIN_TOOL)), false);
});

test("CALL-21: structured_content of 256 KiB is accepted, one byte more is refused naming size and limit", () => {
  accepted(validateToolResult(v02({ structured_content: sized(MAX_STRUCTURED_CONTENT_BYTES) }), "0.2", SCHEMA_TOOL));
  refused(
    validateToolResult(v02({ structured_content: sized(MAX_STRUCTURED_CONTENT_BYTES + 1) }), "0.2", SCHEMA_TOOL),
    "structured_content: at least 262145 bytes encoded, over the 262144-byte limit",
  );
});

test("CALL-21: metadata of 64 KiB is accepted, one byte more is refused naming size and limit", () => {
  accepted(validateToolResult(v02({ metadata: sized(MAX_METADATA_BYTES) }), "0.2"));
  refused(
    validateToolResult(v02({ metadata: sized(MAX_METADATA_BYTES + 1) }), "0.2"),
    "metadata: at least 65537 bytes encoded, over the 65536-byte limit",
  );
});

test("CALL-21: structured_content and metadata nest 32 levels, 33 are refused naming depth and limit", () => {
  for (const member of ["structured_content", "metadata"]) {
    accepted(validateToolResult(v02({ [member]: nested(MAX_VALUE_DEPTH) }), "0.2"));
    refused(
      validateToolResult(v02({ [member]: nested(MAX_VALUE_DEPTH + 1) }), "0.2"),
      `${member}.k.k`,
      "33 levels of nesting, over the 32-level limit",
    );
  }
});

test("CALL-21: structured_content and metadata hold 16,384 nodes, 16,385 are refused naming count and limit", () => {
  for (const member of ["structured_content", "metadata"]) {
    accepted(validateToolResult(v02({ [member]: new Array(MAX_VALUE_NODES - 1).fill(0) }), "0.2"));
    refused(
      validateToolResult(v02({ [member]: new Array(MAX_VALUE_NODES).fill(0) }), "0.2"),
      `${member}: at least 16385 nodes, over the 16384-node limit`,
    );
  }
});

test(
  "CALL-21: metadata keys of 256 bytes are accepted, 257 are refused; structured_content keys are not " + "bounded so",
  () => {
    accepted(validateToolResult(v02({ metadata: { a: { [bytes(MAX_METADATA_KEY_BYTES)]: 1 } } }), "0.2"));
    refused(
      validateToolResult(v02({ metadata: { a: { [bytes(MAX_METADATA_KEY_BYTES + 1)]: 1 } } }), "0.2"),
      "metadata.a: key",
      "is 257 bytes, over the 256-byte limit",
    );
    accepted(
      validateToolResult(v02({ structured_content: { [bytes(MAX_METADATA_KEY_BYTES + 1)]: 1 } }), "0.2", SCHEMA_TOOL),
    );
  },
);

test("CMD-02: the command result of the spec is accepted", () => {
  assert.deepEqual(accepted(validateCommandResult(COMMAND_RESULT)), COMMAND_RESULT);
});

test("CMD-02: text is a required string; absent notifications and context read as []", () => {
  assert.deepEqual(accepted(validateCommandResult({ text: "done" })), { text: "done", notifications: [], context: [] });
  refused(validateCommandResult({ notifications: [] }), "text: missing; expected a string");
  refused(validateCommandResult({ text: "x", notifications: {} }), "notifications: expected an array, got object");
  refused(
    validateCommandResult({ text: "x", notifications: [{ title: "t" }] }),
    "notifications[0].message: missing; expected a string",
  );
});

test(
  "bound MAX_COMMAND_TEXT_BYTES: 256 KiB of command text is accepted, one byte more is refused naming size " +
    "and limit",
  () => {
    accepted(validateCommandResult({ text: bytes(MAX_COMMAND_TEXT_BYTES) }));
    refused(
      validateCommandResult({ text: bytes(MAX_COMMAND_TEXT_BYTES + 1) }),
      "text: 262145 bytes, over the 262144-byte limit",
    );
  },
);

test("CMD-03: command context entries get the context/collect validation, 32-entry bound included", () => {
  const entry = { label: "l", content: "c" };
  assert.equal(accepted(validateCommandResult({ text: "", context: [entry] })).context[0]?.placement, "prompt_suffix");
  refused(
    validateCommandResult({ text: "", context: [{ ...entry, placement: "middle" }] }),
    'context[0].placement: "middle" is not one of',
  );
  accepted(validateCommandResult({ text: "", context: new Array(MAX_CONTEXT_ENTRIES).fill(entry) }));
  refused(
    validateCommandResult({ text: "", context: new Array(MAX_CONTEXT_ENTRIES + 1).fill(entry) }),
    "context: 33 entries, over the 32-entry limit",
  );
});

test("HOOK-05: the hook result of the spec is accepted", () => {
  assert.deepEqual(accepted(validateHookResult(HOOK_RESULT, "before_prompt")), HOOK_RESULT);
});

test("HOOK-05: an absent disposition reads as continue; context and notifications default to []", () => {
  assert.deepEqual(accepted(validateHookResult({}, "after_response")), {
    disposition: { action: "continue" },
    context: [],
    notifications: [],
  });
});

test("HOOK-05: deny needs a string reason; an unknown action is refused", () => {
  assert.deepEqual(
    accepted(validateHookResult({ disposition: { action: "deny", reason: "no" } }, "before_prompt")).disposition,
    { action: "deny", reason: "no" },
  );
  refused(
    validateHookResult({ disposition: { action: "deny" } }, "before_prompt"),
    "disposition.reason: missing; expected a string",
  );
  refused(
    validateHookResult({ disposition: { action: "deny", reason: 1 } }, "before_tool_call"),
    "disposition.reason: expected a string, got number",
  );
  refused(
    validateHookResult({ disposition: { action: "retry" } }, "before_prompt"),
    'disposition.action: "retry" is not one of "continue", "deny"',
  );
  refused(validateHookResult({ disposition: "deny" }, "before_prompt"), "disposition: expected an object, got string");
  refused(
    validateHookResult({ context: [{ label: "x" }] }, "before_prompt"),
    "context[0].content: missing; expected a string",
  );
});

test("HOOK-06: deny is kept for before_prompt and before_tool_call and read as continue for the other hooks", () => {
  const deny = { disposition: { action: "deny", reason: "stop" } };
  for (const hook of ["before_prompt", "before_tool_call"] as const) {
    assert.equal(accepted(validateHookResult(deny, hook)).disposition.action, "deny");
  }
  for (const hook of ["after_response", "after_tool_call"] as const) {
    assert.deepEqual(accepted(validateHookResult(deny, hook)).disposition, { action: "continue" });
    // The reason is still checked: a malformed deny is malformed on every hook.
    refused(validateHookResult({ disposition: { action: "deny" } }, hook), "disposition.reason");
  }
});

test("REND-01: the render result of the spec is accepted; an absent style_role reads as null", () => {
  assert.deepEqual(accepted(validateRenderResult(RENDER_RESULT)), RENDER_RESULT);
  assert.deepEqual(accepted(validateRenderResult({ segments: [{ text: "a" }] })).segments, [
    { text: "a", style_role: null },
  ]);
  refused(
    validateRenderResult({ segments: [{ text: "a", style_role: 3 }] }),
    "segments[0].style_role: expected a string or null, got number",
  );
  refused(validateRenderResult({ segments: [{ style_role: null }] }), "segments[0].text: missing; expected a string");
  refused(validateRenderResult({}), "segments: missing; expected an array");
});

test("bound MAX_RENDER_SEGMENTS: 1,024 segments are accepted, 1,025 are refused naming count and limit", () => {
  const seg = { text: "s", style_role: null };
  accepted(validateRenderResult({ segments: new Array(MAX_RENDER_SEGMENTS).fill(seg) }));
  refused(
    validateRenderResult({ segments: new Array(MAX_RENDER_SEGMENTS + 1).fill(seg) }),
    "segments: 1025 segments, over the 1024-segment limit",
  );
});

test(
  "bound MAX_RENDER_TEXT_BYTES: 64 KiB of segment text in total is accepted, one byte more is refused " +
    "naming size and limit",
  () => {
    const half = bytes(MAX_RENDER_TEXT_BYTES / 2);
    accepted(validateRenderResult({ segments: [{ text: half }, { text: half }] }));
    refused(
      validateRenderResult({ segments: [{ text: half }, { text: `${half}x` }] }),
      "segments: 65537 bytes of text, over the 65536-byte limit",
    );
  },
);

test("result validators never throw, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), (v) => {
      for (const api of ["0.1", "0.2", "0.4"] as const) {
        validateToolResult(v, api, SCHEMA_TOOL);
        validateToolResult({ content: v, structured_content: v, metadata: v }, api);
      }
      validateCommandResult(v);
      validateCommandResult({ text: "", notifications: v, context: v });
      validateHookResult(v, "before_prompt");
      validateHookResult({ disposition: v }, "after_tool_call");
      validateRenderResult(v);
      validateRenderResult({ segments: v });
      return true;
    }),
    { numRuns: 300 },
  );
});

test("CALL-12: a text-only result is judged as the full check judges it, on the short way and off it", () => {
  // validateToolResult proves the common text-only result without building problem paths; every
  // result must come out exactly as checkToolResult makes it, accepted or refused.
  const part = fc.oneof(
    fc.record({ type: fc.constant("text"), text: fc.string() }),
    fc.record({ type: fc.constant("text"), text: fc.oneof(fc.integer(), fc.constant(null)) }),
    fc.record({ type: fc.constant("text"), text: fc.string(), extra: fc.string() }),
    fc.record({ type: fc.constant("text") }),
    fc.record({ type: fc.constantFrom("image", "audio", "TEXT"), text: fc.string() }),
    fc.constantFrom(null, "text", [], 7),
  );
  const absentOr = (v: fc.Arbitrary<unknown>) => fc.option(fc.oneof(fc.constant(null), v), { nil: undefined });
  const result = fc.record(
    {
      content: fc.oneof(
        { weight: 8, arbitrary: fc.array(part, { minLength: 0, maxLength: 4 }) },
        { weight: 1, arbitrary: fc.constantFrom("text", null, {}) },
      ),
      is_error: absentOr(fc.oneof(fc.boolean(), fc.constant("true"))),
      structured_content: absentOr(fc.constant({ a: 1 })),
      metadata: absentOr(fc.constant({ k: "v" })),
      other: absentOr(fc.string()),
    },
    { requiredKeys: [] },
  );
  const tools = [undefined, SCHEMA_TOOL, PLAIN_TOOL];
  fc.assert(
    fc.property(result, fc.constantFrom(...tools), fc.constantFrom("0.2", "0.4"), (value, tool, api) => {
      const p = new Problems();
      const full = finish(p, checkToolResult(p, "", value, api, tool));
      assert.deepEqual(validateToolResult(value, api, tool), full);
    }),
    { numRuns: 3000 },
  );
  // At the part limit and one past it.
  const parts = (n: number) => Array.from({ length: n }, (_, i) => ({ type: "text", text: `p${i}` }));
  const atLimit = validateToolResult({ content: parts(MAX_CONTENT_PARTS) }, "0.4");
  assert.ok(atLimit.ok);
  assert.equal(atLimit.value.parts.length, MAX_CONTENT_PARTS);
  assert.equal(
    atLimit.value.text,
    parts(MAX_CONTENT_PARTS)
      .map((x) => x.text)
      .join("\n"),
  );
  refused(
    validateToolResult({ content: parts(MAX_CONTENT_PARTS + 1) }, "0.4"),
    `content: ${MAX_CONTENT_PARTS + 1} parts, over the ${MAX_CONTENT_PARTS}-part limit`,
  );
});
