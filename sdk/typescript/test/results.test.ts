/**
 * The pure mapping from handler return values to wire results. Each mapped value is also checked
 * by the host's validator from @octet/protocol: what the SDK produces must be what a host accepts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  validateCommandResult,
  validateContextContributions,
  validateHookResult,
  validateRenderResult,
  validateStatusResult,
  validateToolResult,
  type Checked,
} from "@octet/protocol";
import {
  toCommandResult,
  toContext,
  toHookResult,
  toNotification,
  toRenderResult,
  toStatusResult,
  toToolResult,
} from "../src/results.js";

function accepted<T>(r: Checked<T>): T {
  if (!r.ok) assert.fail(`the host validator refused it:\n  ${r.problems.join("\n  ")}`);
  return r.value;
}

test("CALL-12: an API 0.1 tool result is {content: string, is_error} from a string or an object", () => {
  assert.deepEqual(toToolResult("done", "0.1"), { content: "done", is_error: false });
  assert.deepEqual(toToolResult({ content: "bad input", isError: true }, "0.1"), {
    content: "bad input",
    is_error: true,
  });
  for (const v of ["done", { content: "x", isError: true }])
    accepted(validateToolResult(toToolResult(v, "0.1"), "0.1"));
});

test("CALL-12/CALL-14: API 0.1 keeps metadata (the host discards it) and never sends structured_content", () => {
  const out = toToolResult({ content: "x", metadata: { cache: "miss" }, structuredContent: { a: 1 } }, "0.1");
  assert.deepEqual(out, { content: "x", is_error: false, metadata: { cache: "miss" } });
  accepted(validateToolResult(out, "0.1"));
});

test("CALL-12: API 0.1 flattens content parts to their text, joined by newlines; media parts are left out", () => {
  const out = toToolResult(
    {
      content: [
        { type: "text", text: "first" },
        { type: "image", artifact_id: "a-1", mime_type: "image/png" },
        { type: "text", text: "second" },
      ],
    },
    "0.1",
  );
  assert.deepEqual(out, { content: "first\nsecond", is_error: false });
});

test(
  "CALL-15/CALL-16/PY-06: an API 0.2 tool result wraps a string in one text part and carries " +
    "structured_content and metadata",
  () => {
    assert.deepEqual(toToolResult("done", "0.2"), { content: [{ type: "text", text: "done" }], is_error: false });
    const rich = toToolResult(
      { content: "3 hits", structuredContent: { hits: 3 }, metadata: { ms: 12 }, isError: false },
      "0.4",
    );
    assert.deepEqual(rich, {
      content: [{ type: "text", text: "3 hits" }],
      is_error: false,
      structured_content: { hits: 3 },
      metadata: { ms: 12 },
    });
    accepted(validateToolResult(rich, "0.4"));
    const parts = [
      { type: "text" as const, text: "see image" },
      { type: "image" as const, artifact_id: "a-1", mime_type: "image/png", alt: "chart" },
    ];
    const media = toToolResult({ content: parts }, "0.2");
    assert.deepEqual(media, { content: parts, is_error: false });
    accepted(validateToolResult(media, "0.2"));
  },
);

test("CALL-12: a tool handler's return that is neither a string nor an object is a TypeError naming what came", () => {
  assert.throws(() => toToolResult(null as never, "0.1"), /got null/);
  assert.throws(() => toToolResult(42 as never, "0.2"), /got number/);
});

test("CMD-02: a command result has text, notifications and context, with level and placement defaults", () => {
  assert.deepEqual(toCommandResult("ok"), { text: "ok", notifications: [], context: [] });
  const full = toCommandResult({
    text: "saved",
    notifications: [
      { title: "Saved", message: "3 files" },
      { level: "error", title: "Skipped", message: "1 file" },
    ],
    context: [{ label: "save", content: "saved 3 files" }],
  });
  assert.deepEqual(full, {
    text: "saved",
    notifications: [
      { level: "info", title: "Saved", message: "3 files" },
      { level: "error", title: "Skipped", message: "1 file" },
    ],
    context: [{ label: "save", content: "saved 3 files", placement: "prompt_suffix" }],
  });
  accepted(validateCommandResult(full));
});

test(
  "HOOK-05: a hook result is continue by default, deny with its reason, and always has context and " + "notifications",
  () => {
    for (const v of [undefined, {}]) {
      assert.deepEqual(toHookResult(v), { disposition: { action: "continue" }, context: [], notifications: [] });
    }
    const deny = toHookResult({ deny: "not now", notifications: [{ title: "Blocked", message: "prompt" }] });
    assert.deepEqual(deny, {
      disposition: { action: "deny", reason: "not now" },
      context: [],
      notifications: [{ level: "info", title: "Blocked", message: "prompt" }],
    });
    accepted(validateHookResult(deny, "before_prompt"));
    // An empty reason is still a deny: the author asked for it explicitly.
    assert.deepEqual(toHookResult({ deny: "" }).disposition, { action: "deny", reason: "" });
  },
);

test(
  "CTX-01/CTX-02: context contributions are {label, content, placement} with placement defaulting to " +
    "prompt_suffix",
  () => {
    const list = [
      toContext({ label: "a", content: "x" }),
      toContext({ label: "b", content: "y", placement: "system_prefix" }),
    ];
    assert.deepEqual(list, [
      { label: "a", content: "x", placement: "prompt_suffix" },
      { label: "b", content: "y", placement: "system_prefix" },
    ]);
    accepted(validateContextContributions(list));
  },
);

test("STAT-02: a status result is {surface, text, style_role, priority} from a string or an object, or null", () => {
  assert.equal(toStatusResult(null, "status"), null);
  assert.equal(toStatusResult(undefined, "footer"), null);
  assert.deepEqual(toStatusResult("ready", "header"), {
    surface: "header",
    text: "ready",
    style_role: null,
    priority: 0,
  });
  const styled = toStatusResult({ text: "2 jobs", styleRole: "extension.x.busy", priority: 5 }, "footer");
  assert.deepEqual(styled, { surface: "footer", text: "2 jobs", style_role: "extension.x.busy", priority: 5 });
  accepted(validateStatusResult(styled, "footer"));
  assert.deepEqual(toStatusResult({ text: "t" }, "status"), {
    surface: "status",
    text: "t",
    style_role: null,
    priority: 0,
  });
});

test("REND-01: a render result is {segments:[{text, style_role}]}; a string is one unstyled segment", () => {
  assert.deepEqual(toRenderResult("plain"), { segments: [{ text: "plain", style_role: null }] });
  const segs = [
    { text: "ok", style_role: "extension.x.ok" },
    { text: "\n", style_role: null },
  ];
  const out = toRenderResult(segs);
  assert.deepEqual(out, { segments: segs });
  accepted(validateRenderResult(out));
});

test("NOTIF-01/NOTIF-02: a notification defaults its level to info and keeps only level, title and message", () => {
  assert.deepEqual(toNotification({ title: "t", message: "m" }), { level: "info", title: "t", message: "m" });
  assert.deepEqual(toNotification({ level: "success", title: "t", message: "m", extra: 1 } as never), {
    level: "success",
    title: "t",
    message: "m",
  });
});
