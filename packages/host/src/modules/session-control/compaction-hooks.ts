/**
 * session_before_compact and session_compact (W 1.11 WAVE1-40, W 2.21c SCOMP-14), as the embedder
 * runs them around a compaction: an ordinary hook/run to every ready generation that declared the
 * hook in contributes.hooks, speaks API 0.4 and negotiated session_entries, one after another in
 * discovery order, each awaited under the caller's signal and one deadline shared by all.
 *
 * A failed request, a refused result or a cancellation throws CompactionHookError naming the
 * extension; nothing is retried. A before-hook's cancel is a veto, reported as `vetoedBy` (the
 * later hooks are not asked). What the caller does with an after-hook failure (keep the committed
 * entry, never retry) is the caller's: this only reports it.
 */
import {
  validateCompactionHookResult,
  type CompactionHook,
  type CompactionHookPayload,
  type ExtensionNotification,
} from "@octet/protocol";
import type { RequestTarget as Generation } from "../target.js";

/** A callback's wait when the caller gives no deadline. */
export const COMPACTION_HOOK_DEFAULT_TIMEOUT_MS = 30_000;

export interface CompactionHookOptions {
  signal?: AbortSignal | undefined;
  /** One deadline for every callback of this call, in ms. Default 30 s. */
  timeoutMs?: number | undefined;
}

export interface CompactionHookOutcome {
  /** The extensions asked, in the order they were asked. */
  ran: string[];
  notifications: (ExtensionNotification & { extension: string })[];
  /** session_before_compact: the extension that vetoed the compaction, or null. */
  vetoedBy: string | null;
}

/** A compaction callback failed or was refused. */
export class CompactionHookError extends Error {
  override readonly name = "CompactionHookError";
  readonly extension: string;
  readonly hook: CompactionHook;
  constructor(extension: string, hook: CompactionHook, reason: string) {
    super(`${hook} of extension ${extension} failed: ${reason}`);
    this.extension = extension;
    this.hook = hook;
  }
}

/** Whether `g` gets `hook`: declared, API 0.4, session_entries negotiated. */
export function takesCompactionHook(g: Generation, hook: CompactionHook): boolean {
  return g.api === "0.4" && g.spec.manifest.contributes.hooks.includes(hook) && g.features.includes("session_entries");
}

export async function runCompactionHook(
  gens: readonly Generation[],
  hook: CompactionHook,
  payload: CompactionHookPayload,
  options: CompactionHookOptions,
): Promise<CompactionHookOutcome> {
  if (payload.kind !== hook) throw new TypeError(`payload.kind ${JSON.stringify(payload.kind)} is not ${hook}`);
  const outcome: CompactionHookOutcome = { ran: [], notifications: [], vetoedBy: null };
  const until = Date.now() + (options.timeoutMs ?? COMPACTION_HOOK_DEFAULT_TIMEOUT_MS);
  for (const g of gens) {
    if (!takesCompactionHook(g, hook)) continue;
    if (options.signal?.aborted) throw new CompactionHookError(g.name, hook, "cancelled before it was sent");
    const left = until - Date.now();
    if (left <= 0) throw new CompactionHookError(g.name, hook, "the deadline passed before it was sent");
    outcome.ran.push(g.name);
    let raw: unknown;
    try {
      raw = await g.request(
        "hook/run",
        { hook, payload, context: g.context(true) },
        { timeoutMs: left, signal: options.signal },
      );
    } catch (err) {
      throw new CompactionHookError(g.name, hook, err instanceof Error ? err.message : String(err));
    }
    const checked = validateCompactionHookResult(raw, hook);
    if (!checked.ok) throw new CompactionHookError(g.name, hook, `refused result: ${checked.problems.join("; ")}`);
    outcome.notifications.push(...checked.value.notifications.map((n) => ({ ...n, extension: g.name })));
    if (checked.value.cancel) {
      outcome.vetoedBy = g.name;
      break;
    }
  }
  return outcome;
}
