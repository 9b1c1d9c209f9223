import { test } from "node:test";
import assert from "node:assert/strict";
import {
  validateAdvisoryHookParams,
  validateCacheWarmingResult,
  validateCompactionResult,
} from "../../src/api/advisory-hooks.js";
import { MAX_COMPACTION_FRAMES, MAX_COMPACTION_TEXT_BYTES } from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";

const context = { workspace: "/w", execution_scope: null, host: {} };
const decision = {
  phase: "streaming",
  warm_cost_microdollars: 10,
  miss_cost_microdollars: 20,
  continuation_probability: 0.5,
  expected_savings_microdollars: -3,
  economics_available: true,
  host_action: "warm",
};

test(
  "PY-47, PY-48: the cache-warming payload is exactly decision (the seven named members) and model; prompt " +
    "text has no member to travel in",
  () => {
    const v = accepted(
      validateAdvisoryHookParams({ hook: "cache_warming_decision", payload: { decision, model: "m" }, context }),
    );
    assert.equal(v.hook, "cache_warming_decision");
    refused(
      validateAdvisoryHookParams({
        hook: "cache_warming_decision",
        payload: { decision, model: "m", prompt: "secret plans" },
        context,
      }),
      "payload.prompt",
      "unknown member",
    );
    refused(
      validateAdvisoryHookParams({
        hook: "cache_warming_decision",
        payload: { decision: { ...decision, phase: "later" }, model: "m" },
        context,
      }),
      "payload.decision.phase",
    );
    refused(
      validateAdvisoryHookParams({
        hook: "cache_warming_decision",
        payload: { decision: { ...decision, continuation_probability: 1.5 }, model: "m" },
        context,
      }),
      "continuation_probability",
      "over 1",
    );
    accepted(
      validateAdvisoryHookParams({
        hook: "cache_warming_decision",
        payload: { decision: { ...decision, expected_savings_microdollars: -1e6 }, model: "m" },
        context,
      }),
    );
  },
);

test(
  "PY-49: a warming result is an action, or no opinion ({}, null, a null action); anything else is refused " +
    "(fails closed)",
  () => {
    assert.deepEqual(accepted(validateCacheWarmingResult({ cache_warming_decision: "warm" })), { action: "warm" });
    assert.deepEqual(accepted(validateCacheWarmingResult({ cache_warming_decision: "stop" })), { action: "stop" });
    for (const none of [null, {}, { cache_warming_decision: null }])
      assert.deepEqual(accepted(validateCacheWarmingResult(none)), { action: null });
    refused(validateCacheWarmingResult({ cache_warming_decision: "sometimes" }), "cache_warming_decision");
    refused(validateCacheWarmingResult({ cache_warming_decision: "warm", extra: 1 }), "extra");
    refused(validateCacheWarmingResult("warm"));
  },
);

test(
  "PY-43, PY-45: compaction takes {model_id, text} and answers 1..16 base64 frames; 16 pass, 17 are " +
    "refused; the text is bounded",
  () => {
    accepted(
      validateAdvisoryHookParams({
        hook: "compaction_strategy",
        payload: { model_id: "v", text: bytes(MAX_COMPACTION_TEXT_BYTES) },
        context,
      }),
    );
    refused(
      validateAdvisoryHookParams({
        hook: "compaction_strategy",
        payload: { model_id: "v", text: bytes(MAX_COMPACTION_TEXT_BYTES + 1) },
        context,
      }),
      String(MAX_COMPACTION_TEXT_BYTES + 1),
      String(MAX_COMPACTION_TEXT_BYTES),
    );
    const frame = "iVBORw0KGgo=";
    assert.equal(
      accepted(validateCompactionResult({ compaction_frames: Array(MAX_COMPACTION_FRAMES).fill(frame) })).frames.length,
      16,
    );
    refused(validateCompactionResult({ compaction_frames: Array(MAX_COMPACTION_FRAMES + 1).fill(frame) }), "17", "16");
    refused(validateCompactionResult({ compaction_frames: [] }), "must not be empty");
    refused(validateCompactionResult({ compaction_frames: ["not base64!"] }), "compaction_frames[0]", "base64");
  },
);
