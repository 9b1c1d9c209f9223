/**
 * Many deadlines on one timer: each deadline is an entry of a map, and one timer is armed for the
 * earliest. A timer per request (a setTimeout and a clearTimeout for every call, each with its
 * own closure) was a visible part of a small call's cost at tens of thousands of calls per
 * second; here adding and removing a deadline is a map operation.
 *
 * The timer keeps the process alive exactly while some deadline is pending, as a timer per
 * deadline did: it is unref'd when the last one is removed, not cleared, so a steady stream of
 * calls does not arm and clear a timer per call.
 *
 * The entries are an IdTable, not a Map: a Map churned by every call keeps all its old entries
 * alive through young collections once a full collection has run (see @octet/protocol id-table).
 */
import { IdTable } from "@octet/protocol";

/** setTimeout may fire up to a millisecond before its delay by the monotonic clock; not a miss. */
const EARLY_MS = 1;

/** Keyed by request id; `fire(id)` runs for each deadline that passes. */
export class Deadlines {
  /** The monotonic time each deadline passes at. */
  readonly #due = new IdTable<number, number>();
  #timer: ReturnType<typeof setTimeout> | null = null;
  #armedAt = Number.POSITIVE_INFINITY;

  /** `fire` is one function for every deadline: a closure per deadline was a per-call allocation. */
  constructor(private readonly fire: (key: number) => void) {}

  /** Calls fire(key) once `ms` milliseconds from now unless `key` is deleted first. */
  add(key: number, ms: number): void {
    const at = performance.now() + ms;
    this.#due.set(key, at);
    if (at < this.#armedAt) this.#arm(at);
    else this.#timer?.ref();
  }

  delete(key: number): void {
    if (this.#due.delete(key) && this.#due.size === 0) this.#timer?.unref();
  }

  #arm(at: number): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#armedAt = at;
    this.#timer = setTimeout(this.#expire, Math.max(0, at - performance.now()));
  }

  readonly #expire = (): void => {
    this.#timer = null;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now() + EARLY_MS;
    const fired: number[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [key, at] of this.#due.entries()) {
      if (at <= now) {
        this.#due.delete(key);
        fired.push(key);
      } else if (at < next) next = at;
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
    for (const key of fired) this.fire(key);
  };
}
