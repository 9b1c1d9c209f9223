/**
 * One host request while the SDK serves it: its id and method, the cancellation token, the
 * $/progress sequence, and whether it is still active (not yet answered). The scope is also what
 * the ambient helpers (ext.cancellation, ext.progress) find through AsyncLocalStorage, so code deep
 * inside a handler can reach its request without threading ctx through every call.
 *
 * What the scope does not own: sending (Link), the reverse requests (reverse-requests.ts) and
 * the meaning of the progress events (progress.ts).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { JsonRpcId } from "@octet/protocol";
import type { Link, ProgressScope } from "./link.js";
import { RequestProgress } from "./progress.js";
import type { Cancellation } from "./types.js";

export type { Link } from "./link.js";

export class RequestScope implements ProgressScope {
  readonly id: JsonRpcId;
  readonly method: string;
  readonly #link: Link;
  /** Created on first use, as the signal is. */
  #progress: RequestProgress | null = null;
  /** Created on first use of `signal`: most handlers never look at it, and each costs an allocation. */
  #controller: AbortController | null = null;
  #aborted = false;
  #reason: unknown = undefined;
  #sequence = 0;
  #active = true;
  /** Set while the request waits for a concurrency slot (Semaphore): leaves the queue on cancel. */
  withdraw: (() => void) | null = null;

  constructor(id: JsonRpcId, method: string, link: Link) {
    this.id = id;
    this.method = method;
    this.#link = link;
  }

  get progress(): RequestProgress {
    return (this.#progress ??= new RequestProgress(this, this.#link));
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  get abortReason(): unknown {
    return this.#reason;
  }

  /** Cancels the request: its signal (if anyone holds it) aborts with `reason`. */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    // The signal's abort listeners run inside this request's scope, so ext.cancellation and
    // ext.progress in a listener (and in what it starts) see the request that was cancelled,
    // not the $/cancelRequest notification's empty context.
    const controller = this.#controller;
    if (controller) requestStorage.run(this, () => controller.abort(reason));
    this.withdraw?.();
  }

  /** Semaphore's view: a cancelled request never takes a slot. */
  get withdrawn(): boolean {
    return this.#aborted;
  }

  /** False once the SDK has decided the response: nothing may be sent for the request after it. */
  get active(): boolean {
    return this.#active;
  }

  settle(): void {
    this.#active = false;
  }

  /** The next $/progress sequence: 1, 2, 3... strictly increasing per request (PROG-03). */
  nextSequence(): number {
    return ++this.#sequence;
  }

  throwIfCancelled(): void {
    if (this.#aborted) throw this.#reason;
  }
}

/** The request whose handler (or anything it started) is running. */
export const requestStorage = new AsyncLocalStorage<RequestScope>();

/** ext.cancellation: the current request's token, found through AsyncLocalStorage. */
export const ambientCancellation: Cancellation = {
  get cancelled(): boolean {
    return requestStorage.getStore()?.aborted ?? false;
  },
  get signal(): AbortSignal | undefined {
    return requestStorage.getStore()?.signal;
  },
  throwIfCancelled(): void {
    requestStorage.getStore()?.throwIfCancelled();
  },
};
