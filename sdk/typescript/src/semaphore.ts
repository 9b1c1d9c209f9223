/** A counting semaphore with FIFO waiters: the SDK's bound on concurrently running handlers. */
export class Semaphore {
  #free: number;
  readonly #waiters: (() => void)[] = [];

  constructor(permits: number) {
    this.#free = permits;
  }

  /**
   * Resolves true with a permit, or false without one when `abortable()`'s signal aborts first
   * (the waiter leaves the queue). `abortable` is called only when the caller has to wait: a
   * request scope's signal costs an allocation most requests never need.
   */
  acquire(abortable?: () => AbortSignal): Promise<boolean> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(true);
    }
    const signal = abortable?.();
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const admit = (): void => {
        signal?.removeEventListener("abort", leave);
        resolve(true);
      };
      const leave = (): void => {
        const i = this.#waiters.indexOf(admit);
        if (i !== -1) this.#waiters.splice(i, 1);
        resolve(false);
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.#waiters.push(admit);
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }
}
