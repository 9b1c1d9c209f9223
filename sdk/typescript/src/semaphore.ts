/** A counting semaphore with FIFO waiters: the SDK's bound on concurrently running handlers. */
export class Semaphore {
  #free: number;
  readonly #waiters: (() => void)[] = [];

  constructor(permits: number) {
    this.#free = permits;
  }

  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }
}
