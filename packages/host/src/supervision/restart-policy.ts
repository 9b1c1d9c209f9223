/**
 * The restart policy as a pure function (SUP-03..06): given what the supervisor remembers and
 * one failure, decide whether to restart (and after how long) or park. The clock and the random
 * source are parameters, so the policy is tested without waiting and without chance.
 *
 * - An unexpected end of a generation that had been continuously ready for 30 s first resets the
 *   budget (SUP-05): a crash loop that initializes every time still parks, because a successful
 *   initialize alone never resets it.
 * - Each restart attempt uses the next step of full jitter: uniform in
 *   [0, min(30 s, 250 ms x 2^attempt)] with attempt 0, 1, 2, ... (SUP-03).
 * - A failure once eight attempts were made parks the extension (SUP-04): the first generation
 *   plus eight restarts, so at most nine spawns per budget.
 * - A permanent error (manifest, version, re-registration required) parks at once (SUP-06).
 */
import { bounds } from "@octet/protocol";

export interface RestartBudget {
  /** Restart attempts made since the budget was last reset. */
  attempts: number;
}

export interface Failure {
  /** When the failure was observed (ms, the injected clock). */
  now: number;
  /** When the failed generation became ready, if it did; null for a restart that never got ready. */
  readySince: number | null;
  /** Set for errors no restart can fix: the extension parks at once with this reason. */
  permanent?: string | undefined;
}

export type RestartDecision =
  | { action: "restart"; delayMs: number; attempt: number; budget: RestartBudget }
  | { action: "park"; reason: string; budget: RestartBudget };

export interface RestartPolicy {
  baseMs: number;
  capMs: number;
  maxAttempts: number;
  resetAfterReadyMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  baseMs: bounds.RESTART_BACKOFF_BASE_MS,
  capMs: bounds.RESTART_BACKOFF_CAP_MS,
  maxAttempts: bounds.MAX_RESTART_ATTEMPTS,
  resetAfterReadyMs: bounds.RESTART_BUDGET_RESET_MS,
};

/** The largest delay of attempt `attempt` (0-based): min(cap, base x 2^attempt). */
export function backoffCeiling(attempt: number, policy: RestartPolicy = DEFAULT_RESTART_POLICY): number {
  // 2^attempt overflows to Infinity for large attempts; min() keeps the cap.
  return Math.min(policy.capMs, policy.baseMs * 2 ** attempt);
}

/** `random` returns a number in [0, 1) (Math.random's contract). */
export function decideRestart(
  budget: RestartBudget,
  failure: Failure,
  random: () => number,
  policy: RestartPolicy = DEFAULT_RESTART_POLICY,
): RestartDecision {
  const wasReadyLongEnough =
    failure.readySince !== null && failure.now - failure.readySince >= policy.resetAfterReadyMs;
  const attempts = wasReadyLongEnough ? 0 : budget.attempts;
  if (failure.permanent !== undefined) {
    return { action: "park", reason: failure.permanent, budget: { attempts } };
  }
  if (attempts >= policy.maxAttempts) {
    return { action: "park", reason: `${policy.maxAttempts} restart attempts failed`, budget: { attempts } };
  }
  const r = random();
  // Clamp a misbehaving random source into [0, 1) rather than trusting it with the delay.
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1 - Number.EPSILON) : 0;
  return {
    action: "restart",
    delayMs: Math.floor(unit * (backoffCeiling(attempts, policy) + 1)),
    attempt: attempts,
    budget: { attempts: attempts + 1 },
  };
}
