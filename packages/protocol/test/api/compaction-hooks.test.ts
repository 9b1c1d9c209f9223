// The compaction hooks' result and params rules (W 1.11, WAVE1-40): continue, or a veto before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { validateCompactionHookParams, validateCompactionHookResult } from "../../src/index.js";

test("WAVE1-40: session_before_compact may continue or cancel; session_compact may only continue", () => {
  const before = validateCompactionHookResult({ session_operation: { action: "cancel" } }, "session_before_compact");
  assert.deepEqual(before, { ok: true, value: { notifications: [], cancel: true } });
  const goOn = validateCompactionHookResult({ disposition: { action: "continue" } }, "session_compact");
  assert.deepEqual(goOn, { ok: true, value: { notifications: [], cancel: false } });
  for (const [bad, hook, why] of [
    [{ session_operation: { action: "cancel" } }, "session_compact", /"cancel" is refused in session_compact/],
    [
      { session_operation: { action: "replace_compaction" } },
      "session_before_compact",
      /"replace_compaction" is refused/,
    ],
    [{ disposition: { action: "deny", reason: "no" } }, "session_before_compact", /deny is refused in session_before/],
    [{ context: [{ label: "x", content: "y" }] }, "session_compact", /may contribute no prompt context/],
    [{ replace: true }, "session_compact", /an unrelated hook effect/],
  ] as const) {
    const r = validateCompactionHookResult(bad, hook);
    assert.equal(r.ok, false, JSON.stringify(bad));
    if (!r.ok) assert.match(r.problems.join("; "), why);
  }
});

test("WAVE1-40: the SDK reads a compaction hook's payload with its fixed members checked", () => {
  const context = { workspace: "/w", execution_scope: null, host: {} };
  const ok = validateCompactionHookParams({
    hook: "session_compact",
    payload: {
      kind: "session_compact",
      session_id: "s",
      timestamp_ms: 1,
      compaction_entry: {
        id: "e",
        parent: null,
        timestamp_unix_ms: 1,
        summary: "S",
        first_kept: "k",
        tokens_before: 9,
      },
    },
    context,
  });
  assert.equal(ok.ok, true, ok.ok ? "" : ok.problems.join("; "));
  const bad = validateCompactionHookParams({
    hook: "session_before_compact",
    payload: { kind: "session_compact", session_id: "s", timestamp_ms: 1, tokens_before: -1 },
    context,
  });
  assert.equal(bad.ok, false);
  if (!bad.ok)
    assert.match(bad.problems.join("; "), /payload\.kind.*payload\.first_kept|payload\.first_kept.*payload\.kind/s);
});
