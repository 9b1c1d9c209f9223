/** A counting semaphore with FIFO waiters: the SDK's bound on concurrently running handlers. */
export class Semaphore {
  #free: number;
  readonly #waiters: (() => void)[] = [];

  constructor(permits: number) {
    this.#free = permits;
  }

  /** Takes a permit if one is free, without a promise (the fast path of a request). */
  tryAcquire(): boolean {
    if (this.#free === 0) return false;
    this.#free--;
    return true;
  }

  /**
   * Resolves true with a permit, or false without one when the waiter is withdrawn first (the
   * request was cancelled while it waited: it leaves the queue). A waiter that can be withdrawn
   * passes a hook holder: while it waits, `withdrawable.withdraw` leaves the queue; no signal or
   * listener is allocated per waiter (64 calls in flight queue 48 of them on the default limit).
   */
  acquire(withdrawable?: Withdrawable): Promise<boolean> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(true);
    }
    if (withdrawable?.withdrawn) return Promise.resolve(false);
    return new Promise((resolve) => {
      const admit = (): void => {
        if (withdrawable) withdrawable.withdraw = null;
        resolve(true);
      };
      if (withdrawable) {
        withdrawable.withdraw = () => {
          withdrawable.withdraw = null;
          const i = this.#waiters.indexOf(admit);
          if (i !== -1) this.#waiters.splice(i, 1);
          resolve(false);
        };
      }
      this.#waiters.push(admit);
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }
}

/** A waiter that may leave the queue: the owner calls `withdraw` (set while it waits) on cancel. */
export interface Withdrawable {
  readonly withdrawn: boolean;
  withdraw: (() => void) | null;
}
