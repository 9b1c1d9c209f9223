/**
 * The cancellation of one host request the octet bridge serves ($/cancelRequest aborts it): the
 * part of an AbortSignal an RpiConnection reads (CancelSignal), without an AbortController's cost.
 * Creating an AbortController is an EventTarget's set-up, the bridge's largest single cost per
 * call in profiles (about 5% of the host thread), and nearly every call ends without a cancel.
 *
 * Contract: abort() once sets `aborted` and calls each listener registered and not removed, in
 * order, once; a listener added after the abort is not called (RequestTable reads `aborted` first).
 */
import type { CancelSignal } from "../host/connection-types.js";

export class Cancellation implements CancelSignal {
  #aborted = false;
  #listeners: (() => void)[] = [];

  get aborted(): boolean {
    return this.#aborted;
  }

  addEventListener(_type: "abort", listener: () => void): void {
    if (!this.#aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: "abort", listener: () => void): void {
    const at = this.#listeners.indexOf(listener);
    if (at !== -1) this.#listeners.splice(at, 1);
  }

  abort(): void {
    if (this.#aborted) return;
    this.#aborted = true;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}
