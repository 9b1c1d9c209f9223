/**
 * A one-second admission window: at most `max` events pass per window; the rest are counted so
 * the caller can report them once when the next window opens. The clock is injected for tests.
 */
export class RateWindow {
  readonly #max: number;
  readonly #now: () => number;
  #start = Number.NEGATIVE_INFINITY;
  #count = 0;
  #dropped = 0;

  constructor(max: number, now: () => number = Date.now) {
    this.#max = max;
    this.#now = now;
  }

  /**
   * Whether one more event may pass now, and how many were dropped in the window that just
   * closed (non-zero once, when a new window opens after drops).
   */
  admit(): { admitted: boolean; droppedBefore: number } {
    const now = this.#now();
    let droppedBefore = 0;
    if (now - this.#start >= 1000) {
      droppedBefore = this.#dropped;
      this.#start = now;
      this.#count = 0;
      this.#dropped = 0;
    }
    if (this.#count >= this.#max) {
      this.#dropped++;
      return { admitted: false, droppedBefore };
    }
    this.#count++;
    return { admitted: true, droppedBefore };
  }

  /** Events dropped in the current window so far (for a final summary). */
  get dropped(): number {
    return this.#dropped;
  }
}
