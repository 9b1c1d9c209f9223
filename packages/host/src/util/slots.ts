/**
 * A counting semaphore whose waiters can give up: the admission gate sized to the negotiated
 * max_concurrent_requests (FRAME-13). A waiter aborted before it got a slot never held one.
 */
export class Slots {
  #free: number;
  readonly #waiters: { grant: () => void; reject: (reason: unknown) => void }[] = [];

  constructor(permits: number) {
    this.#free = permits;
  }

  get free(): number {
    return this.#free;
  }

  /** Takes a slot if one is free right now. */
  tryAcquire(): boolean {
    if (this.#free <= 0) return false;
    this.#free--;
    return true;
  }

  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        grant: () => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
        reject,
      };
      const onAbort = (): void => {
        const i = this.#waiters.indexOf(waiter);
        if (i !== -1) this.#waiters.splice(i, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(waiter);
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next.grant();
    else this.#free++;
  }

  /** Fails every waiter (the generation ended). */
  rejectAll(reason: unknown): void {
    for (const w of this.#waiters.splice(0)) w.reject(reason);
  }
}
