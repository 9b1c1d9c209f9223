// The model-turn hook result rule (W 1.4b, TURN-10, TURN-11) and the payload check the SDK makes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateTurnHookParams, validateTurnHookResult } from "../../src/index.js";

test("TURN-10: the ordinary envelope, with or without session_operation continue, is accepted", () => {
  for (const ok of [
    {},
    { disposition: { action: "continue" }, context: [], notifications: [] },
    { disposition: { action: "continue" }, notifications: [], session_operation: { action: "continue" } },
  ]) {
    const r = validateTurnHookResult(ok, "model_turn_end");
    assert.ok(r.ok, JSON.stringify(ok));
  }
  const n = validateTurnHookResult(
    { notifications: [{ level: "info", title: "t", message: "m" }] },
    "model_turn_start",
  );
  assert.ok(n.ok && n.value.notifications.length === 1);
});

test("TURN-11: deny, cancel, replace_compaction, non-empty context and unrelated effects are refused", () => {
  const cases: [unknown, RegExp][] = [
    [{ disposition: { action: "deny", reason: "no" } }, /disposition: deny is refused in model_turn_end/],
    [{ session_operation: { action: "cancel" } }, /session_operation: action "cancel" is refused/],
    [{ session_operation: { action: "replace_compaction" } }, /"replace_compaction" is refused/],
    [{ context: [{ label: "a", content: "b" }] }, /context: 1 contributions; model_turn_end may contribute no/],
    [{ replace_prompt: "x" }, /replace_prompt: is not an effect model_turn_end may have/],
    [{ session_operation: { action: "later" } }, /session_operation.action/],
  ];
  for (const [value, why] of cases) {
    const r = validateTurnHookResult(value, "model_turn_end");
    assert.ok(!r.ok, JSON.stringify(value));
    assert.match(r.problems.join("; "), why);
  }
});

test("TURN-02, TURN-03: the SDK checks the payload kind against the hook", () => {
  const context = { workspace: "/w", execution_scope: null, host: {} };
  const start = { kind: "model_turn_start", run_id: "run:1", turn_index: 0, timestamp_ms: 1 };
  assert.ok(validateTurnHookParams({ hook: "model_turn_start", payload: start, context }).ok);
  const wrong = validateTurnHookParams({ hook: "model_turn_end", payload: start, context });
  assert.ok(!wrong.ok);
  assert.match(wrong.problems.join("; "), /payload.kind: expected "model_turn_end"/);
});
