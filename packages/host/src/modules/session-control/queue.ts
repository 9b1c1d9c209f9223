/**
 * The one ordered, bounded queue of active-session operations (W 2.21b, SCTL-07/08/10): every
 * session/wait_for_idle, session/switch and session/compact of every extension runs here, one at
 * a time, in arrival order, so an idle wait cannot overtake an earlier switch or compaction and
 * nothing is answered before its operation ran. An operation whose caller went away while it
 * waited (its signal aborted: the request was cancelled, its parent settled, its generation
 * ended) is dropped before it starts; once started it is driven to its end and not rolled back.
 */
import { ErrorCode, WireError, bounds } from "@octet/protocol";

interface Item {
  run: () => Promise<unknown>;
  signal: AbortSignal;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
  method: string;
}

export class ControlQueue {
  readonly #items: Item[] = [];
  readonly #limit: number;
  #running = false;

  constructor(limit = bounds.MAX_SESSION_CONTROL_QUEUE) {
    this.#limit = limit;
  }

  /** Operations waiting or running. */
  get size(): number {
    return this.#items.length + (this.#running ? 1 : 0);
  }

  /** Runs `run` after every operation admitted before it; -32012 when the queue is full. */
  submit<T>(method: string, signal: AbortSignal, run: () => Promise<T>): Promise<T> {
    if (this.size >= this.#limit)
      return Promise.reject(
        new WireError(
          ErrorCode.LifecycleExhausted,
          `lifecycle_exhausted ${method} refused: ${this.size} active-session operations are queued, the ` +
            `limit is ${this.#limit}; retry once some have finished`,
        ),
      );
    return new Promise<T>((resolve, reject) => {
      const item: Item = { run, signal, resolve: resolve as (v: unknown) => void, reject, method };
      this.#items.push(item);
      // A queued operation whose caller left is taken out at once: it must not hold a place.
      signal.addEventListener(
        "abort",
        () => {
          const at = this.#items.indexOf(item);
          if (at < 0) return;
          this.#items.splice(at, 1);
          reject(cancelled(method, signal));
        },
        { once: true },
      );
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#running) return;
    const item = this.#items.shift();
    if (item === undefined) return;
    if (item.signal.aborted) {
      item.reject(cancelled(item.method, item.signal));
      this.#pump();
      return;
    }
    this.#running = true;
    void item
      .run()
      .then(item.resolve, item.reject)
      .finally(() => {
        this.#running = false;
        this.#pump();
      });
  }
}

function cancelled(method: string, signal: AbortSignal): WireError {
  const why = signal.reason instanceof Error ? signal.reason.message : "cancelled";
  return new WireError(ErrorCode.RequestCancelled, `request_cancelled ${method} was not run: ${why.slice(0, 256)}`);
}
