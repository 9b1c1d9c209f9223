// session_control_v1 / session_compaction_v1 shapes (W 2.21b, 2.21c): closed params, the owner
// triple, the compact answer exactly {entry_id, summary, first_kept} and nothing invented beside it.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  validateCompactParams,
  validateCompactResult,
  validateSwitchParams,
  validateWaitForIdleParams,
} from "../../src/api/validate-session-control.js";

const OWNER = { session_id: "s", extension_instance_id: "i", process_generation: 1 };

test("SCTL-02: wait_for_idle and switch take exactly parent_request_id, resource_owner and (switch) session_id", () => {
  assert.deepEqual(validateWaitForIdleParams({ parent_request_id: 3, resource_owner: null }), {
    ok: true,
    value: { parent_request_id: 3 },
  });
  assert.deepEqual(validateSwitchParams({ parent_request_id: 3, resource_owner: OWNER, session_id: "abc" }), {
    ok: true,
    value: { parent_request_id: 3, resource_owner: OWNER, session_id: "abc" },
  });
  for (const bad of [
    { parent_request_id: -1 },
    { parent_request_id: 1.5 },
    { parent_request_id: 3, resource_owner: { ...OWNER, extra: 1 } },
    { parent_request_id: 3, resource_owner: { session_id: "s" } },
    { parent_request_id: 3, more: true },
  ])
    assert.equal(validateWaitForIdleParams(bad).ok, false, JSON.stringify(bad));
  assert.equal(validateSwitchParams({ parent_request_id: 3, session_id: "s".repeat(257) }).ok, false);
  assert.equal(validateSwitchParams({ parent_request_id: 3, session_id: "s".repeat(256) }).ok, true);
});

test("SCOMP-03, SCOMP-04: compact needs the owner; blank instructions read as absent", () => {
  assert.equal(validateCompactParams({ parent_request_id: 3 }).ok, false);
  assert.deepEqual(
    validateCompactParams({ parent_request_id: 3, resource_owner: OWNER, custom_instructions: "\n\t " }),
    {
      ok: true,
      value: { parent_request_id: 3, resource_owner: OWNER },
    },
  );
  assert.deepEqual(validateCompactParams({ parent_request_id: 3, resource_owner: OWNER, custom_instructions: null }), {
    ok: true,
    value: { parent_request_id: 3, resource_owner: OWNER },
  });
});

test("SCOMP-11: the compact answer is exactly {entry_id, summary, first_kept}; token counts are refused", () => {
  const ok = { entry_id: "c", summary: "S", first_kept: "k" };
  assert.deepEqual(validateCompactResult(ok), { ok: true, value: ok });
  for (const bad of [
    { ...ok, tokens_before: 10 },
    { ...ok, usage: {} },
    { entry_id: "c", summary: "S" },
    { ...ok, summary: "" },
  ])
    assert.equal(validateCompactResult(bad).ok, false, JSON.stringify(bad));
});
