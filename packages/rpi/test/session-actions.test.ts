// pi's session actions as octet's Wave-1 requests (octet/session-actions.ts, WAVE1-38): each
// action's method, feature and exact params, for a call's parent and for the issued owner.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mapSessionAction } from "../src/octet/session-actions.js";

const parent = { parent_request_id: 7 };
const owner = {
  parent_request_id: 0,
  resource_owner: { session_id: "s", extension_instance_id: "i", process_generation: 1 },
};

test("WAVE1-38: pi.sendMessage: custom -> entry, assistant/system -> message, user -> user message", () => {
  assert.deepEqual(
    mapSessionAction({ kind: "send_message", message: { customType: "note", content: "hi", display: true } }, parent),
    {
      method: "session/append_entry",
      feature: "session_entries",
      params: { parent_request_id: 7, entry_type: "note", data: { content: "hi", display: true } },
    },
  );
  assert.deepEqual(
    mapSessionAction(
      { kind: "send_message", message: { role: "system", content: [{ type: "text", text: "x" }] } },
      owner,
    ),
    { method: "session/send_message", feature: "message_injection", params: { ...owner, role: "system", text: "x" } },
  );
  assert.deepEqual(mapSessionAction({ kind: "send_message", message: { role: "user", content: "go" } }, parent), {
    method: "session/send_user_message",
    feature: "message_injection",
    params: { parent_request_id: 7, text: "go" },
  });
  assert.deepEqual(mapSessionAction({ kind: "send_user_message", content: "again" }, parent), {
    method: "session/send_user_message",
    feature: "message_injection",
    params: { parent_request_id: 7, text: "again" },
  });
});

test("pi's entry, name, label, tools, compact and idle actions map onto their Wave-1 requests", () => {
  const m = (a: Record<string, unknown> & { kind: string }) => mapSessionAction(a, parent);
  assert.deepEqual(m({ kind: "append_entry", customType: "state", data: { n: 1 } }), {
    method: "session/append_entry",
    feature: "session_entries",
    params: { parent_request_id: 7, entry_type: "state", data: { n: 1 } },
  });
  assert.deepEqual(m({ kind: "set_session_name", name: "n" }), {
    method: "session/set_name",
    feature: "session_entries",
    params: { parent_request_id: 7, name: "n" },
  });
  // pi clears a label with undefined; octet with "".
  assert.deepEqual(m({ kind: "set_label", entryId: "e1" }), {
    method: "session/set_label",
    feature: "session_entries",
    params: { parent_request_id: 7, entry_id: "e1", label: "" },
  });
  assert.deepEqual(m({ kind: "set_active_tools", toolNames: ["read"] }), {
    method: "tools/set_active",
    feature: "active_tools",
    params: { parent_request_id: 7, names: ["read"] },
  });
  assert.deepEqual(m({ kind: "compact", customInstructions: "focus" }), {
    method: "session/compact",
    feature: "session_compaction_v1",
    params: { parent_request_id: 7, custom_instructions: "focus" },
  });
  assert.deepEqual(m({ kind: "wait_for_idle" }), {
    method: "session/wait_for_idle",
    feature: "session_control_v1",
    params: { parent_request_id: 7 },
  });
});

test("ctx.switchSession takes a session file's id; newSession, fork, navigateTree and the rest are refused", () => {
  assert.deepEqual(
    mapSessionAction(
      { kind: "switch_session", sessionPath: "/h/sessions/w/2026-12-02T04-00-00_0a1b2c3d.jsonl" },
      parent,
    ),
    {
      method: "session/switch",
      feature: "session_control_v1",
      params: { parent_request_id: 7, session_id: "0a1b2c3d" },
    },
  );
  const refused = (a: Record<string, unknown> & { kind: string }): string => {
    const r = mapSessionAction(a, parent);
    assert.ok("refused" in r, JSON.stringify(r));
    return r.refused;
  };
  assert.match(refused({ kind: "switch_session", sessionPath: "/tmp/other.txt" }), /not an octet session file/);
  assert.match(refused({ kind: "new_session" }), /ctx\.newSession/);
  assert.match(refused({ kind: "fork", entryId: "e" }), /ctx\.fork/);
  assert.match(refused({ kind: "navigate_tree", targetId: "e" }), /ctx\.navigateTree/);
  assert.match(refused({ kind: "set_model", model: {} }), /"set_model"/);
});

test("WAVE1-39: a displayed custom message keeps display and its renderer's text (joined, bounded)", () => {
  const mapped = mapSessionAction(
    {
      kind: "send_message",
      message: { customType: "status-update", content: "disk", display: true, details: { level: "warn" } },
      rendered: ["[WARN] disk", "  at noon"],
    },
    parent,
  );
  assert.deepEqual(mapped, {
    method: "session/append_entry",
    feature: "session_entries",
    params: {
      parent_request_id: 7,
      entry_type: "status-update",
      data: { content: "disk", display: true, details: { level: "warn" }, rendered: "[WARN] disk\n  at noon" },
    },
  });
  const long = mapSessionAction(
    {
      kind: "send_message",
      message: { customType: "big", content: "", display: true },
      rendered: ["x".repeat(40_000)],
    },
    parent,
  ) as unknown as { params: { data: { rendered: string } } };
  assert.equal(long.params.data.rendered.length, 16 * 1024, "cut to 16 KiB");
  const notLines = mapSessionAction(
    { kind: "send_message", message: { customType: "odd", content: "c", display: true }, rendered: [1, 2] },
    parent,
  ) as unknown as { params: { data: Record<string, unknown> } };
  assert.equal(notLines.params.data["rendered"], undefined, "only a list of strings is taken");
});
