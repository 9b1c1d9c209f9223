/**
 * model_turn_start and model_turn_end (W 1.4b, TURN-01..14), as the embedder runs them: an
 * ordinary hook/run to every ready generation that declared the hook in contributes.hooks, speaks
 * API 0.4 and negotiated session_entries (TURN-01), one after another in discovery order, each
 * awaited under the caller's signal and one deadline shared by all (TURN-12).
 *
 * Unlike the legacy hooks, a failure here is not "continue": a failed request, a refused result
 * (TURN-11) or a cancellation throws TurnHookError naming the extension, and the caller stops
 * the run (TURN-12). Nothing is retried (TURN-13). A payload over the frame bound fails when it
 * is encoded, before anything is written; it is never cut (TURN-14).
 */
import { validateTurnHookResult, type ExtensionNotification, type TurnHook, type TurnPayload } from "@octet/protocol";
import type { RequestTarget as Generation } from "../target.js";
import { runSessionOperationHook, takesSessionOperationHook } from "../session-operation-hooks.js";

/** A callback's wait when the caller gives no deadline. */
export const TURN_HOOK_DEFAULT_TIMEOUT_MS = 30_000;

export interface TurnHookOptions {
  signal?: AbortSignal | undefined;
  /** One deadline for every callback of this call, in ms. Default 30 s. */
  timeoutMs?: number | undefined;
}

export interface TurnHookOutcome {
  /** The extensions asked, in the order they were asked. */
  ran: string[];
  notifications: (ExtensionNotification & { extension: string })[];
}

/** A model-turn callback failed or was refused; the run it belongs to stops. */
export class TurnHookError extends Error {
  override readonly name = "TurnHookError";
  readonly extension: string;
  readonly hook: TurnHook;
  constructor(extension: string, hook: TurnHook, reason: string) {
    super(`${hook} of extension ${extension} failed: ${reason}`);
    this.extension = extension;
    this.hook = hook;
  }
}

/** Whether `g` gets `hook` (TURN-01). */
export function takesTurnHook(g: Generation, hook: TurnHook): boolean {
  return takesSessionOperationHook(g, hook);
}

export async function runTurnHook(
  gens: readonly Generation[],
  hook: TurnHook,
  payload: TurnPayload,
  options: TurnHookOptions,
): Promise<TurnHookOutcome> {
  const { ran, notifications } = await runSessionOperationHook(gens, {
    hook,
    payload,
    signal: options.signal,
    timeoutMs: options.timeoutMs ?? TURN_HOOK_DEFAULT_TIMEOUT_MS,
    validate: (raw) => validateTurnHookResult(raw, hook),
    fail: (extension, reason) => new TurnHookError(extension, hook, reason),
  });
  return { ran, notifications };
}
