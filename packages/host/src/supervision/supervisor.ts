/**
 * One extension's watcher: after its generation ended unexpectedly it asks the pure policy
 * (restart-policy.ts) what to do, waits the jittered delay, and asks the host to restart through
 * the same candidate-first, lock-serialized path a manual reload takes (SUP-02, SUP-08). It owns
 * no process and never talks to the extension: it acts only on ends the generation reports, so a
 * live process is never heartbeated (SUP-11).
 *
 * States: "watching" (a generation is ready), "backoff" (a restart is scheduled), "restarting"
 * (a candidate is starting), "parked" (no more automatic restarts until a manual reload,
 * SUP-09), "stopped" (the host shut down: nothing is scheduled again, SUP-07). Every change is
 * reported through `emit`.
 */
import { OctetError } from "@octet/protocol";
import { DEFAULT_RESTART_POLICY, decideRestart, type RestartBudget, type RestartPolicy } from "./restart-policy.js";

export type SupervisionState = "watching" | "backoff" | "restarting" | "parked" | "stopped";

/** Time and chance, injectable so tests neither wait for backoff nor depend on luck. */
export interface SupervisorClock {
  now(): number;
  /** Runs `fn` after `ms`; returns a function that cancels it. */
  setTimer(fn: () => void, ms: number): () => void;
  /** A number in [0, 1). */
  random(): number;
}

export const systemClock: SupervisorClock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const timer = setTimeout(fn, ms);
    // A scheduled restart alone does not keep the embedding process alive; shutdown() cancels it.
    timer.unref();
    return () => clearTimeout(timer);
  },
  random: () => Math.random(),
};

export type SupervisorEvent =
  | { action: "restart_scheduled"; attempt: number; delayMs: number; reason: string }
  | { action: "restarting"; attempt: number }
  | { action: "restarted"; attempt: number }
  | { action: "restart_failed"; attempt: number; reason: string }
  | { action: "parked"; reason: string }
  | { action: "revived" };

export interface SupervisorSnapshot {
  state: SupervisionState;
  /** Automatic restarts that produced a ready generation, over the extension's life in this host. */
  restarts: number;
  /** Attempts counted against the current budget (reset after 30 s continuously ready). */
  attempts: number;
  /** When the scheduled restart fires (the clock's ms), while in backoff. */
  nextRestartAt: number | null;
  parkedReason: string | null;
}

export interface SupervisorOptions {
  clock?: SupervisorClock;
  policy?: RestartPolicy;
  /** Starts a replacement through the reload lock; rejects when the candidate did not become ready. */
  restart: () => Promise<void>;
  /** Whether an error of restart() is one no retry can fix (manifest, version, re-registration). */
  isPermanent: (error: unknown) => boolean;
  emit: (event: SupervisorEvent) => void;
}

export class Supervisor {
  readonly #o: SupervisorOptions;
  readonly #clock: SupervisorClock;
  readonly #policy: RestartPolicy;
  #state: SupervisionState = "watching";
  #budget: RestartBudget = { attempts: 0 };
  #restarts = 0;
  #readySince: number | null = null;
  #cancelTimer: (() => void) | null = null;
  #nextRestartAt: number | null = null;
  #parkedReason: string | null = null;
  /** The attempt in progress (its number), so a late outcome of a cancelled attempt is ignored. */
  #running: number | null = null;

  constructor(options: SupervisorOptions) {
    this.#o = options;
    this.#clock = options.clock ?? systemClock;
    this.#policy = options.policy ?? DEFAULT_RESTART_POLICY;
  }

  get snapshot(): SupervisorSnapshot {
    return {
      state: this.#state,
      restarts: this.#restarts,
      attempts: this.#budget.attempts,
      nextRestartAt: this.#nextRestartAt,
      parkedReason: this.#parkedReason,
    };
  }

  /** A generation of this extension became the active, ready one (initial start, restart or reload). */
  ready(): void {
    if (this.#state === "stopped") return;
    if (this.#state === "restarting" && this.#running !== null) {
      this.#restarts++;
      this.#o.emit({ action: "restarted", attempt: this.#running });
    }
    this.#running = null;
    // A ready generation needs no restart: drop one still scheduled (a manual reload won a race).
    this.#clearTimer();
    this.#readySince = this.#clock.now();
    this.#state = "watching";
  }

  /**
   * The active generation ended without being asked to (crash, violation, unsettled cancel,
   * transport failure): SUP-01. Ignored unless a generation was being watched.
   */
  ended(reason: string): void {
    if (this.#state !== "watching") return;
    const readySince = this.#readySince;
    this.#readySince = null;
    this.#decide(reason, readySince, undefined);
  }

  /**
   * A manual reload is about to run: a scheduled restart is dropped (the reload replaces it) and
   * a parked watcher will be revived if the reload succeeds (SUP-09).
   */
  preempt(): void {
    if (this.#state !== "backoff") return;
    // A restart already under way is left to finish: the reload queues behind it (SUP-08).
    this.#clearTimer();
    this.#state = "restarting";
  }

  /** A manual reload produced a ready generation: a fresh budget, watching again (SUP-09). */
  revived(): void {
    if (this.#state === "stopped") return;
    const wasParked = this.#state === "parked";
    this.#budget = { attempts: 0 };
    this.#parkedReason = null;
    this.ready();
    if (wasParked) this.#o.emit({ action: "revived" });
  }

  /** A manual reload failed and nothing of this extension runs: park with its reason. */
  park(reason: string): void {
    if (this.#state === "stopped") return;
    this.#clearTimer();
    this.#running = null;
    this.#parkWith(reason);
  }

  /** Explicit shutdown: nothing is scheduled again (SUP-07). */
  stop(): void {
    this.#clearTimer();
    this.#running = null;
    this.#state = "stopped";
  }

  #decide(reason: string, readySince: number | null, permanent: string | undefined): void {
    const decision = decideRestart(
      this.#budget,
      { now: this.#clock.now(), readySince, permanent },
      () => this.#clock.random(),
      this.#policy,
    );
    this.#budget = decision.budget;
    if (decision.action === "park") {
      this.#parkWith(permanent !== undefined ? decision.reason : `${decision.reason}; last failure: ${reason}`);
      return;
    }
    const { attempt, delayMs } = decision;
    this.#state = "backoff";
    this.#nextRestartAt = this.#clock.now() + delayMs;
    this.#o.emit({ action: "restart_scheduled", attempt, delayMs, reason });
    this.#cancelTimer = this.#clock.setTimer(() => void this.#attempt(attempt), delayMs);
  }

  async #attempt(attempt: number): Promise<void> {
    this.#cancelTimer = null;
    this.#nextRestartAt = null;
    if (this.#state !== "backoff") return;
    this.#state = "restarting";
    this.#running = attempt;
    this.#o.emit({ action: "restarting", attempt });
    try {
      await this.#o.restart();
    } catch (err) {
      if (this.#running !== attempt || this.#state !== "restarting") return;
      this.#running = null;
      const reason = err instanceof Error ? err.message : String(err);
      this.#o.emit({ action: "restart_failed", attempt, reason });
      // A candidate that never became ready was not ready for any time: no budget reset.
      this.#decide(reason, null, this.#o.isPermanent(err) ? reason : undefined);
      return;
    }
    // The host reports the swap with ready() as it happens; this covers a restart() that did not.
    if (this.#running === attempt && this.#state === "restarting") this.ready();
  }

  #parkWith(reason: string): void {
    this.#state = "parked";
    this.#parkedReason = reason;
    this.#o.emit({ action: "parked", reason });
  }

  #clearTimer(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = null;
    this.#nextRestartAt = null;
  }
}

/** The errors that park at once (SUP-06): permanent by their code. */
export function isPermanentRestartError(error: unknown): boolean {
  return (
    error instanceof OctetError &&
    (error.code === "reregistration_required" ||
      error.code === "manifest_invalid" ||
      error.code === "version_mismatch" ||
      error.code === "manifest_unsupported_api")
  );
}
