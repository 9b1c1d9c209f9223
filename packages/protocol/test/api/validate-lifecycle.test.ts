import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { LIFECYCLE_OUTCOMES, validateLifecycleEvent } from "../../src/api/validate-lifecycle.js";
import { LIFECYCLE_EVENTS } from "../../src/features.js";
import { MAX_LIFECYCLE_REASON_BYTES, MAX_SAFE_JSON_INTEGER } from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";
import { TURN_SETTLED_PARAMS } from "../helpers/spec-fixtures.js";

const SESSION = { session_id: "abc123" };
const TURN = { ...SESSION, run_id: "extension-run-7", turn_id: "extension-turn-7" };
const TOOL = { ...TURN, tool_call_id: "call-1", tool_name: "git_status" };
const SETTLED = { outcome: "completed", duration_ms: 942, reason: null };

/** The minimal valid params of each event (LIFE-09). */
const VALID: Record<string, Record<string, unknown>> = {
  "session/started": SESSION,
  "session/settled": { ...SESSION, ...SETTLED },
  "turn/started": TURN,
  "turn/settled": { ...TURN, ...SETTLED },
  "tool/started": TOOL,
  "tool/settled": { ...TOOL, ...SETTLED },
};

test("LIFE-07: the turn/settled notification of the spec is accepted as sent", () => {
  assert.deepEqual(accepted(validateLifecycleEvent("turn/settled", TURN_SETTLED_PARAMS)), {
    method: "turn/settled",
    params: TURN_SETTLED_PARAMS,
  });
});

test("LIFE-05: exactly the six lifecycle methods are accepted", () => {
  assert.deepEqual(Object.keys(VALID), [...LIFECYCLE_EVENTS]);
  for (const [method, params] of Object.entries(VALID)) {
    assert.deepEqual(accepted(validateLifecycleEvent(method, params)), { method, params });
  }
  for (const method of ["session/ended", "turn/progress", "tool/started ", "", "Tool/started"]) {
    refused(validateLifecycleEvent(method, SESSION), "method:", "is not one of the six lifecycle events");
  }
  refused(validateLifecycleEvent(7, SESSION), "method: number is not one of the six lifecycle events");
  refused(validateLifecycleEvent("turn/started", null), "params: expected an object, got null");
});

test("LIFE-06: start events carry session/run/turn ids, tool events also tool_call_id and tool_name", () => {
  refused(validateLifecycleEvent("session/started", {}), "params.session_id: missing; expected a string");
  for (const key of ["session_id", "run_id", "turn_id"]) {
    const params: Record<string, unknown> = { ...TURN };
    delete params[key];
    refused(validateLifecycleEvent("turn/started", params), `params.${key}: missing; expected a string`);
  }
  for (const key of ["tool_call_id", "tool_name"]) {
    const params: Record<string, unknown> = { ...TOOL };
    delete params[key];
    refused(validateLifecycleEvent("tool/started", params), `params.${key}: missing; expected a string`);
    refused(validateLifecycleEvent("tool/settled", { ...params, ...SETTLED }), `params.${key}: missing`);
  }
  refused(
    validateLifecycleEvent("turn/started", { ...TURN, run_id: 7 }),
    "params.run_id: expected a string, got number",
  );
  refused(
    validateLifecycleEvent("tool/started", { ...TOOL, tool_call_id: " " }),
    "params.tool_call_id: must not be empty",
  );
});

test("LIFE-07: settled events add outcome, duration_ms and reason; start events do not carry them", () => {
  for (const method of ["session/settled", "turn/settled", "tool/settled"]) {
    const base = VALID[method]!;
    for (const key of ["outcome", "duration_ms"]) {
      const params = { ...base };
      delete params[key];
      refused(validateLifecycleEvent(method, params), `params.${key}: missing`);
    }
  }
  // Unknown members, settled ones on a start event included, are ignored and not carried over.
  assert.deepEqual(accepted(validateLifecycleEvent("turn/started", { ...TURN, ...SETTLED, model: "x" })).params, TURN);
});

test("LIFE-07: duration_ms is an unsigned safe integer", () => {
  const p = (duration_ms: unknown): Record<string, unknown> => ({ ...TURN, ...SETTLED, duration_ms });
  assert.equal(
    (accepted(validateLifecycleEvent("turn/settled", p(0))).params as { duration_ms: number }).duration_ms,
    0,
  );
  accepted(validateLifecycleEvent("turn/settled", p(MAX_SAFE_JSON_INTEGER)));
  refused(validateLifecycleEvent("turn/settled", p(-1)), "params.duration_ms: -1 is below the minimum 0");
  refused(validateLifecycleEvent("turn/settled", p(9.5)), "params.duration_ms: expected an integer, got 9.5");
  refused(validateLifecycleEvent("turn/settled", p("942")), 'params.duration_ms: expected an integer, got "942"');
});

test(
  "LIFE-07: reason is optional (absent reads as null) and a 4 KiB reason is accepted, one byte more " +
    "refused naming size and limit",
  () => {
    const p = (extra: Record<string, unknown>): Record<string, unknown> => ({
      ...SESSION,
      outcome: "failed",
      duration_ms: 1,
      ...extra,
    });
    assert.equal((accepted(validateLifecycleEvent("session/settled", p({}))).params as { reason: null }).reason, null);
    assert.equal(
      (accepted(validateLifecycleEvent("session/settled", p({ reason: "boom" }))).params as { reason: string }).reason,
      "boom",
    );
    accepted(validateLifecycleEvent("session/settled", p({ reason: bytes(MAX_LIFECYCLE_REASON_BYTES) })));
    refused(
      validateLifecycleEvent("session/settled", p({ reason: bytes(MAX_LIFECYCLE_REASON_BYTES + 1) })),
      "params.reason: 4097 bytes, over the 4096-byte limit",
    );
    refused(
      validateLifecycleEvent("session/settled", p({ reason: { text: "x" } })),
      "params.reason: expected a string, got object",
    );
  },
);

test("LIFE-08: outcome is one of the seven terminal outcomes", () => {
  assert.deepEqual(
    [...LIFECYCLE_OUTCOMES],
    ["completed", "failed", "cancelled", "interrupted", "frontend_disconnected", "shutdown", "limit_reached"],
  );
  for (const outcome of LIFECYCLE_OUTCOMES)
    accepted(validateLifecycleEvent("tool/settled", { ...TOOL, ...SETTLED, outcome }));
  refused(
    validateLifecycleEvent("tool/settled", { ...TOOL, ...SETTLED, outcome: "timeout" }),
    'params.outcome: "timeout" is not one of "completed", "failed"',
  );
  refused(
    validateLifecycleEvent("tool/settled", { ...TOOL, ...SETTLED, outcome: null }),
    "params.outcome: expected one of",
    "got null",
  );
});

test("LIFE-09: a refusal reports every problem of the params", () => {
  const problems = refused(validateLifecycleEvent("tool/settled", { session_id: "", outcome: "x", duration_ms: -1 }));
  for (const start of [
    "params.session_id:",
    "params.run_id:",
    "params.turn_id:",
    "params.tool_call_id:",
    "params.tool_name:",
    "params.outcome:",
    "params.duration_ms:",
  ]) {
    assert.ok(
      problems.some((p) => p.startsWith(start)),
      `${start}\n${problems.join("\n")}`,
    );
  }
});

test("validateLifecycleEvent never throws, whatever the input", () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.constantFrom(...LIFECYCLE_EVENTS), fc.anything()),
      fc.anything(),
      fc.anything(),
      (method, v, w) => {
        validateLifecycleEvent(method, v);
        validateLifecycleEvent(method, { ...TOOL, session_id: v, tool_name: w, outcome: v, duration_ms: w, reason: v });
        return true;
      },
    ),
    { numRuns: 300 },
  );
});
