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
import { runSessionOperationHook, takesSessionOperationHook } from "../session-operation-hooks.js";

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
  return takesSessionOperationHook(g, hook);
}

export async function runCompactionHook(
  gens: readonly Generation[],
  hook: CompactionHook,
  payload: CompactionHookPayload,
  options: CompactionHookOptions,
): Promise<CompactionHookOutcome> {
  const { ran, notifications, stoppedBy } = await runSessionOperationHook(gens, {
    hook,
    payload,
    signal: options.signal,
    timeoutMs: options.timeoutMs ?? COMPACTION_HOOK_DEFAULT_TIMEOUT_MS,
    validate: (raw) => validateCompactionHookResult(raw, hook),
    fail: (extension, reason) => new CompactionHookError(extension, hook, reason),
    // A before-hook's cancel is a veto: the later hooks are not asked.
    stop: (r) => r.cancel,
  });
  return { ran, notifications, vetoedBy: stoppedBy };
}
