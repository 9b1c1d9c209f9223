// message/updated and message/settled shapes (W 1.11, WAVE1-04/06/07) and the request params of
// message_injection and active_tools (W 2.22, W 2.23) as the protocol validates them.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  validateMessageSettled,
  validateMessageUpdated,
  validateSendMessageParams,
  validateSetActiveToolsParams,
} from "../../src/api/validate-message-injection.js";
import { sessionEntriesRefusal } from "../../src/api/validate-session-entries.js";

test("WAVE1-04: a batch is {message_id, delta, deltas}; deltas counts at least one delta", () => {
  assert.deepEqual(validateMessageUpdated({ message_id: "m", delta: "abc", deltas: 3 }), {
    ok: true,
    value: { message_id: "m", delta: "abc", deltas: 3 },
  });
  for (const bad of [
    { message_id: "", delta: "a", deltas: 1 },
    { message_id: "m".repeat(257), delta: "a", deltas: 1 },
    { message_id: "m", delta: 1, deltas: 1 },
    { message_id: "m", delta: "a", deltas: 0 },
    { message_id: "m", delta: "a" },
  ])
    assert.equal(validateMessageUpdated(bad).ok, false, JSON.stringify(bad).slice(0, 80));
});

test("WAVE1-06: an SDK-shaped array under deltas or updates is accepted up to 1024; more is bounds_exceeded", () => {
  const parts = Array.from({ length: 1024 }, (_, i) => String(i % 10));
  assert.deepEqual(validateMessageUpdated({ message_id: "m", deltas: parts }), {
    ok: true,
    value: { message_id: "m", delta: parts.join(""), deltas: 1024 },
  });
  const alias = validateMessageUpdated({ message_id: "m", updates: ["a", "b"] });
  assert.deepEqual(alias.ok && alias.value, { message_id: "m", delta: "ab", deltas: 2 });
  const over = validateMessageUpdated({ message_id: "m", deltas: [...parts, "x"] });
  assert.equal(over.ok, false);
  if (!over.ok) {
    assert.match(over.problems.join(";"), /deltas: 1025 deltas, over the 1024-delta limit/);
    assert.equal(sessionEntriesRefusal(over.problems), "bounds_exceeded");
  }
});

test("WAVE1-07: message/settled is exactly {message_id}", () => {
  assert.deepEqual(validateMessageSettled({ message_id: "run:1:0" }), { ok: true, value: { message_id: "run:1:0" } });
  assert.equal(validateMessageSettled({}).ok, false);
});

test("WAVE1-09, WAVE1-33: the optional resource_owner is read; role is assistant or system only", () => {
  const owner = { session_id: "s", extension_instance_id: "i", process_generation: 1 };
  const ok = validateSendMessageParams({ parent_request_id: 2, resource_owner: owner, role: "assistant", text: "t" });
  assert.deepEqual(ok.ok && ok.value, { parent_request_id: 2, resource_owner: owner, role: "assistant", text: "t" });
  const user = validateSendMessageParams({ parent_request_id: 2, role: "user", text: "t" });
  assert.equal(user.ok, false);
  if (!user.ok) assert.equal(sessionEntriesRefusal(user.problems), "invalid_request");
  const names = validateSetActiveToolsParams({ parent_request_id: 2, names: "read" });
  assert.equal(names.ok, false, "names must be an array");
});
