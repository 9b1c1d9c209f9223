/**
 * Lifecycle observations for API 0.2+ extensions (LIFE-04..12): the embedder reports session,
 * turn and tool starts and settlements; each ready generation that negotiated lifecycle_events
 * and subscribed to that method gets a best-effort notification through its writer (delivery
 * never blocks the host, LIFE-10). Session and turn events have a 250 ms delivery deadline: one
 * still queued behind an extension that is not reading is withdrawn and reported, not delivered
 * late; tool events wait in the bounded writer queue. Scopes started and not settled are
 * remembered, so a generation being stopped or replaced first receives their terminal events
 * (LIFE-12).
 */
import { OctetError, bounds, validateLifecycleEvent, type SendTicket } from "@octet/protocol";

export type LifecycleMethod =
  | "session/started"
  | "session/settled"
  | "turn/started"
  | "turn/settled"
  | "tool/started"
  | "tool/settled";

export interface LifecycleTarget {
  /** True if the generation negotiated lifecycle_events and subscribed to `method`. */
  subscribes(method: LifecycleMethod): boolean;
  /** Queues the notification; the ticket (when there is one) can withdraw it before it is written. */
  notify(method: LifecycleMethod, params: Record<string, unknown>): SendTicket | undefined | void;
  /** Told when a session/turn event was withdrawn at its deadline. */
  lifecycleDropped?(method: LifecycleMethod, afterMs: number): void;
}

/** Injectable timers, so the deadline is tested without waiting. */
export interface DeliveryTimers {
  setTimer(fn: () => void, ms: number): void;
}

const realTimers: DeliveryTimers = {
  setTimer: (fn, ms) => void setTimeout(fn, ms).unref(),
};

interface OpenScope {
  settled: LifecycleMethod;
  ids: Record<string, unknown>;
  startedAt: number;
}

export class LifecycleHub {
  /** Started scopes not yet settled, keyed by kind and ids, oldest first. */
  readonly #open = new Map<string, OpenScope>();
  readonly #timers: DeliveryTimers;

  constructor(timers: DeliveryTimers = realTimers) {
    this.#timers = timers;
  }

  /** Validates and fans out one observation; throws OctetError on a malformed event (an embedder bug). */
  emit(method: LifecycleMethod, params: Record<string, unknown>, targets: Iterable<LifecycleTarget>): void {
    const checked = validateLifecycleEvent(method, params);
    if (!checked.ok) throw new OctetError("invalid_result", `invalid ${method} event: ${checked.problems.join("; ")}`);
    // Exactly the validated shape goes out (LIFE-09): reason null when absent, no other members.
    const event = checked.value.params as unknown as Record<string, unknown>;
    this.#track(method, event);
    for (const t of targets) {
      if (!t.subscribes(method)) continue;
      try {
        this.#deliver(t, method, event);
      } catch {
        // Best effort: a generation that cannot take it does not hold up the others (LIFE-10).
      }
    }
  }

  /**
   * Sends `target` the terminal events of every scope still open (innermost first), with the
   * given outcome, before it is stopped or replaced (LIFE-11, LIFE-12). The scopes stay open for
   * the other generations.
   */
  settleOpen(target: LifecycleTarget, reason: string): void {
    const scopes = [...this.#open.values()].reverse();
    for (const s of scopes) {
      if (!target.subscribes(s.settled)) continue;
      try {
        this.#deliver(target, s.settled, {
          ...s.ids,
          outcome: "shutdown",
          duration_ms: Math.max(0, Date.now() - s.startedAt),
          reason,
        });
      } catch {
        // Best effort.
      }
    }
  }

  /** Session and turn events not written within the deadline are withdrawn (LIFE-10). */
  #deliver(target: LifecycleTarget, method: LifecycleMethod, params: Record<string, unknown>): void {
    const ticket = target.notify(method, params);
    if (!ticket || method.startsWith("tool/")) return;
    const ms = bounds.LIFECYCLE_DELIVERY_TIMEOUT_MS;
    this.#timers.setTimer(() => {
      if (ticket.withdraw()) target.lifecycleDropped?.(method, ms);
    }, ms);
  }

  #track(method: LifecycleMethod, params: Record<string, unknown>): void {
    const [kind, phase] = method.split("/") as [string, string];
    const ids: Record<string, unknown> = { session_id: params["session_id"] };
    if (kind !== "session") Object.assign(ids, { run_id: params["run_id"], turn_id: params["turn_id"] });
    if (kind === "tool") Object.assign(ids, { tool_call_id: params["tool_call_id"], tool_name: params["tool_name"] });
    const scope =
      kind === "tool"
        ? [ids["session_id"], ids["tool_call_id"]]
        : kind === "turn"
          ? [ids["session_id"], ids["turn_id"]]
          : [ids["session_id"]];
    const key = `${kind}:${JSON.stringify(scope)}`;
    if (phase === "started")
      this.#open.set(key, { settled: `${kind}/settled` as LifecycleMethod, ids, startedAt: Date.now() });
    else this.#open.delete(key);
  }
}
