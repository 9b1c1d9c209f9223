/**
 * The advisory hooks of API 0.4 on the extension's side (PY-43, PY-46, PY-49, PY-52 in parity
 * with the Python SDK): what an author's handler returns, turned into the hook/run result the
 * host accepts, failing closed: a value that is not one of the accepted shapes throws, and the
 * host then keeps the decision it had.
 */
import {
  ErrorCode,
  WireError,
  validateCacheWarmingResult,
  validateCompactionResult,
  type AdvisoryHook,
  type CacheWarmingAction,
} from "@octet/protocol";

/** The typed result of a cache_warming_decision hook: {"cache_warming_decision": action}. */
export function cacheWarmingDecision(action: CacheWarmingAction): { cache_warming_decision: CacheWarmingAction } {
  if (action !== "warm" && action !== "stop")
    throw new TypeError(`cacheWarmingDecision() takes "warm" or "stop", got ${JSON.stringify(action)}`);
  return { cache_warming_decision: action };
}

/** A handler's return value as the wire result of `hook`. */
export function toAdvisoryResult(hook: AdvisoryHook, value: unknown): Record<string, unknown> {
  if (hook === "cache_warming_decision") {
    // "warm"/"stop" directly, the helper's object, or no opinion: undefined, null, {} or a null action.
    const wire = value === "warm" || value === "stop" ? { cache_warming_decision: value } : (value ?? null);
    const checked = validateCacheWarmingResult(wire);
    if (!checked.ok)
      throw new WireError(
        ErrorCode.InternalError,
        `invalid cache_warming_decision result (fails closed): ${checked.problems.join("; ")}`,
      );
    return checked.value.action === null ? {} : { cache_warming_decision: checked.value.action };
  }
  const checked = validateCompactionResult(value);
  if (!checked.ok)
    throw new WireError(ErrorCode.InternalError, `invalid compaction_strategy result: ${checked.problems.join("; ")}`);
  return { compaction_frames: checked.value.frames };
}
