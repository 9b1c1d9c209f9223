/**
 * The embedder's side of the API 0.4 advisory hooks (INIT-43, PY-43..52): asking the extensions
 * that negotiated cache_warming_decision for warming advice, and one that negotiated
 * compaction_strategy for compaction frames.
 *
 * Advice never decides alone: each extension is asked in order, each wait capped at 200 ms and by
 * the caller's own deadline; the last valid action wins, and a failure, an invalid answer, a
 * timeout, no opinion or a generation replaced meanwhile keeps the action before it (PY-49..51).
 * Frames are checked whole (count, base64, a complete PNG each) before any is returned (PY-45).
 */
import {
  bounds,
  validateCacheWarmingResult,
  validateCompactionResult,
  type CacheWarmingAction,
  type CacheWarmingPayload,
  type CompactionPayload,
} from "@octet/protocol";
import type { CollectEnv, RequestTarget as Generation } from "../target.js";
import { mediaSignatureProblem } from "../artifacts/media-signature.js";

export interface CacheWarmingAdvice {
  /** The action after every extension was asked: the host's own unless one advised otherwise. */
  action: CacheWarmingAction;
  /** Who decided it: null when it is still the host's action. */
  decidedBy: string | null;
}

export async function adviseCacheWarming<G extends Generation>(
  gens: readonly G[],
  payload: CacheWarmingPayload,
  options: { signal?: AbortSignal; deadlineMs?: number },
  env: CollectEnv,
  stillCurrent: (g: G) => boolean,
): Promise<CacheWarmingAdvice> {
  const advice: CacheWarmingAdvice = { action: payload.decision.host_action, decidedBy: null };
  const until = options.deadlineMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.deadlineMs;
  for (const g of gens) {
    if (!g.features.includes("cache_warming_decision")) continue;
    const left = until - Date.now();
    if (left <= 0) break;
    let raw: unknown;
    try {
      raw = await g.request(
        "hook/run",
        { hook: "cache_warming_decision", payload, context: g.context(true) },
        { timeoutMs: Math.min(bounds.CACHE_WARMING_WAIT_MS, left), signal: options.signal },
      );
    } catch (err) {
      env.diagnoseFailure(g, "cache_warming_decision", err);
      continue;
    }
    // An answer from a generation replaced while it was asked is stale: ignored.
    if (!stillCurrent(g)) continue;
    const checked = validateCacheWarmingResult(raw);
    if (!checked.ok) {
      env.emit({
        type: "diagnostic",
        extension: g.name,
        generation: g.number,
        level: "warning",
        message: `invalid cache_warming_decision result, the previous action stands: ${checked.problems.join("; ")}`,
      });
      continue;
    }
    if (checked.value.action !== null) {
      advice.action = checked.value.action;
      advice.decidedBy = g.name;
    }
  }
  return advice;
}

/** Frames from the first extension that negotiated compaction_strategy, or null (none, or it failed). */
export async function compactionFrames(
  gens: readonly Generation[],
  payload: CompactionPayload,
  options: { signal?: AbortSignal; timeoutMs?: number },
  env: CollectEnv,
): Promise<{ extension: string; frames: Uint8Array[] } | null> {
  const g = gens.find((x) => x.features.includes("compaction_strategy"));
  if (!g) return null;
  let raw: unknown;
  try {
    raw = await g.request(
      "hook/run",
      { hook: "compaction_strategy", payload, context: g.context(true) },
      { timeoutMs: options.timeoutMs ?? env.collectMs, signal: options.signal },
    );
  } catch (err) {
    env.diagnoseFailure(g, "compaction_strategy", err);
    return null;
  }
  const checked = validateCompactionResult(raw);
  const problems = checked.ok ? [] : checked.problems;
  const frames: Uint8Array[] = [];
  if (checked.ok) {
    checked.value.frames.forEach((b64, i) => {
      const bytes = new Uint8Array(Buffer.from(b64, "base64"));
      const bad = mediaSignatureProblem(bytes, "image/png");
      if (bad) problems.push(`compaction_frames[${i}]: ${bad}`);
      else frames.push(bytes);
    });
  }
  if (problems.length > 0) {
    // Any bad frame fails the hook: nothing of it may reach a checkpoint (PY-45).
    env.emit({
      type: "diagnostic",
      extension: g.name,
      generation: g.number,
      level: "warning",
      message: `invalid compaction_strategy result, no frames used: ${problems.slice(0, 4).join("; ")}`,
    });
    return null;
  }
  return { extension: g.name, frames };
}
