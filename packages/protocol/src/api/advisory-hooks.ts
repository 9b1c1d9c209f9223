/**
 * The two advisory hooks of API 0.4 (INIT-43, PY-43..52): cache_warming_decision and
 * compaction_strategy. They travel as hook/run like the other hooks, but their payloads and
 * results are their own: a warming action ("warm" | "stop" | no opinion) and a list of PNG
 * frames. Both fail closed: a result that is not exactly one of the accepted shapes is refused,
 * and the host then keeps the decision it had (PY-49, PY-50).
 */
import { MAX_COMPACTION_FRAMES, MAX_COMPACTION_TEXT_BYTES } from "../bounds.js";
import {
  at,
  checkCount,
  finish,
  index,
  isAbsent,
  member,
  readArray,
  readBoolean,
  readNumber,
  readObject,
  readOneOf,
  readString,
  refuse,
  rejectUnknown,
} from "../validate/fields.js";
import { Problems, utf8ByteLength, type Checked } from "../validate/kit.js";
import type { ExecutionContext } from "./types.js";
import { checkContext } from "./validate-params.js";

export const ADVISORY_HOOKS = ["cache_warming_decision", "compaction_strategy"] as const;
export type AdvisoryHook = (typeof ADVISORY_HOOKS)[number];

export type CacheWarmingAction = "warm" | "stop";

/** The decision the host is about to take (PY-47, PY-48 GAP default names). Monetary fields in microdollars. */
export interface CacheWarmingDecision {
  phase: "streaming" | "idle";
  warm_cost_microdollars: number;
  miss_cost_microdollars: number;
  continuation_probability: number;
  /** Signed: negative when warming is expected to cost more than it saves. */
  expected_savings_microdollars: number;
  economics_available: boolean;
  host_action: CacheWarmingAction;
}

export interface CacheWarmingPayload {
  decision: CacheWarmingDecision;
  model: string;
}

export interface CompactionPayload {
  model_id: string;
  text: string;
}

export type AdvisoryHookParams =
  | { hook: "cache_warming_decision"; payload: CacheWarmingPayload; context: ExecutionContext }
  | { hook: "compaction_strategy"; payload: CompactionPayload; context: ExecutionContext };

export function isAdvisoryHook(name: unknown): name is AdvisoryHook {
  return typeof name === "string" && (ADVISORY_HOOKS as readonly string[]).includes(name);
}

/**
 * hook/run params of an advisory hook. Closed payloads: prompt text and credentials have no member to travel
 * in (PY-47).
 */
export function validateAdvisoryHookParams(value: unknown): Checked<AdvisoryHookParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const hook = readOneOf(p, "hook", member(obj, "hook"), ADVISORY_HOOKS);
  const context = checkContext(p, member(obj, "context"));
  const payload = readObject(p, "payload", member(obj, "payload"));
  if (hook === undefined || payload === undefined || context === undefined) return refuse(p);
  if (hook === "compaction_strategy") {
    rejectUnknown(p, "payload", payload, new Set(["model_id", "text"]));
    const modelId = readString(p, "payload.model_id", member(payload, "model_id"), { nonBlank: true });
    const text = readString(p, "payload.text", member(payload, "text"));
    if (text !== undefined && utf8ByteLength(text) > MAX_COMPACTION_TEXT_BYTES)
      p.add("payload.text", `${utf8ByteLength(text)} bytes, over the ${MAX_COMPACTION_TEXT_BYTES}-byte limit`);
    if (modelId === undefined || text === undefined) return refuse(p);
    return finish(p, { hook, payload: { model_id: modelId, text }, context });
  }
  rejectUnknown(p, "payload", payload, new Set(["decision", "model"]));
  const model = readString(p, "payload.model", member(payload, "model"), { nonBlank: true });
  const decision = checkDecision(p, member(payload, "decision"));
  if (model === undefined || decision === undefined) return refuse(p);
  return finish(p, { hook, payload: { decision, model }, context });
}

function checkDecision(p: Problems, raw: unknown): CacheWarmingDecision | undefined {
  const path = "payload.decision";
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  rejectUnknown(
    p,
    path,
    obj,
    new Set([
      "phase",
      "warm_cost_microdollars",
      "miss_cost_microdollars",
      "continuation_probability",
      "expected_savings_microdollars",
      "economics_available",
      "host_action",
    ]),
  );
  const phase = readOneOf(p, at(path, "phase"), member(obj, "phase"), ["streaming", "idle"] as const);
  const warm = readNumber(p, at(path, "warm_cost_microdollars"), member(obj, "warm_cost_microdollars"), 0);
  const miss = readNumber(p, at(path, "miss_cost_microdollars"), member(obj, "miss_cost_microdollars"), 0);
  const probability = readNumber(p, at(path, "continuation_probability"), member(obj, "continuation_probability"), 0);
  if (probability !== undefined && probability > 1)
    p.add(at(path, "continuation_probability"), `${probability} is over 1`);
  const savingsRaw = member(obj, "expected_savings_microdollars");
  const savings = typeof savingsRaw === "number" && Number.isFinite(savingsRaw) ? savingsRaw : undefined;
  if (savings === undefined)
    p.add(at(path, "expected_savings_microdollars"), "expected a finite number (it may be negative)");
  const available = readBoolean(p, at(path, "economics_available"), member(obj, "economics_available"));
  const hostAction = readOneOf(p, at(path, "host_action"), member(obj, "host_action"), ["warm", "stop"] as const);
  if (
    phase === undefined ||
    warm === undefined ||
    miss === undefined ||
    probability === undefined ||
    savings === undefined ||
    available === undefined ||
    hostAction === undefined
  )
    return undefined;
  return {
    phase,
    warm_cost_microdollars: warm,
    miss_cost_microdollars: miss,
    continuation_probability: probability,
    expected_savings_microdollars: savings,
    economics_available: available,
    host_action: hostAction,
  };
}

/**
 * A cache_warming_decision result: {"cache_warming_decision": "warm" | "stop"} is an action;
 * {}, null or a null action is no opinion (PY-49). Anything else is refused (fails closed).
 */
export function validateCacheWarmingResult(value: unknown): Checked<{ action: CacheWarmingAction | null }> {
  const p = new Problems();
  if (value === null || value === undefined) return { ok: true, value: { action: null } };
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["cache_warming_decision"]));
  const raw = member(obj, "cache_warming_decision");
  if (isAbsent(raw)) return finish(p, { action: null });
  const action = readOneOf(p, "cache_warming_decision", raw, ["warm", "stop"] as const);
  if (action === undefined) return refuse(p);
  return finish(p, { action });
}

/**
 * A compaction_strategy result: {"compaction_frames": [base64 PNG, ...]}, 1..16 frames (PY-45
 * GAP default). The PNG signature of each decoded frame is the host's to check.
 */
export function validateCompactionResult(value: unknown): Checked<{ frames: string[] }> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["compaction_frames"]));
  const list = readArray(p, "compaction_frames", member(obj, "compaction_frames"));
  if (list === undefined || !checkCount(p, "compaction_frames", list.length, MAX_COMPACTION_FRAMES, "frame"))
    return refuse(p);
  if (list.length === 0) p.add("compaction_frames", "must not be empty");
  const frames: string[] = [];
  list.forEach((f, i) => {
    if (typeof f !== "string" || f.length === 0 || f.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(f))
      p.add(index("compaction_frames", i), "expected a non-empty standard base64 string");
    else frames.push(f);
  });
  return finish(p, { frames });
}
