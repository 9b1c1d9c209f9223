/**
 * Lifecycle event handlers (W 1.10, LIFE-04..10): registration by event name, the subscription
 * list sent in initialize, and delivery. Delivery is best-effort like the events themselves: a
 * handler runs outside every request, is never awaited (a slow one cannot hold up dispatch or
 * take a concurrency slot), and what it throws or rejects with goes to stderr only.
 */
import { LIFECYCLE_EVENTS, isPlainObject, type LifecycleEvent } from "@octet/protocol";
import type { LifecycleHandler, LifecycleParams } from "./types.js";

export class LifecycleHandlers {
  readonly #handlers = new Map<LifecycleEvent, LifecycleHandler[]>();
  /** The negotiated subscription; empty until initialize selected lifecycle_events. */
  #subscribed = new Set<string>();

  add(event: LifecycleEvent, handler: LifecycleHandler): void {
    if (!(LIFECYCLE_EVENTS as readonly string[]).includes(event)) {
      throw new TypeError(
        `unknown lifecycle event ${JSON.stringify(event)}; expected one of ${LIFECYCLE_EVENTS.join(", ")}`,
      );
    }
    if (typeof handler !== "function") throw new TypeError(`the handler for "${event}" must be a function`);
    const list = this.#handlers.get(event) ?? [];
    list.push(handler);
    this.#handlers.set(event, list);
  }

  /** Events with a handler, in the protocol's order: the subscription list of initialize. */
  get events(): LifecycleEvent[] {
    return LIFECYCLE_EVENTS.filter((e) => this.#handlers.has(e));
  }

  subscribe(events: readonly string[]): void {
    this.#subscribed = new Set(events);
  }

  /** Delivers a notification if it is a subscribed lifecycle event; true when it was one. */
  deliver(method: string, params: unknown): boolean {
    if (!this.#subscribed.has(method)) return false;
    if (!isPlainObject(params)) {
      process.stderr.write(`octet-extension: ignored ${method} without an object of params\n`);
      return true;
    }
    for (const handler of this.#handlers.get(method as LifecycleEvent) ?? []) {
      const report = (err: unknown): void => {
        const text = err instanceof Error ? (err.stack ?? err.message) : String(err);
        process.stderr.write(`octet-extension: the ${method} handler failed: ${text}\n`);
      };
      try {
        const outcome = handler({ ...params } as LifecycleParams);
        if (outcome instanceof Promise) outcome.catch(report);
      } catch (err) {
        report(err);
      }
    }
    return true;
  }
}
