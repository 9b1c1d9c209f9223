/**
 * Signals of reverse requests: an embedder's answer raced against a signal, and a signal that
 * aborts when either of two does, with the listener budget a child request needs.
 */
import { bounds } from "@octet/protocol";
import { getMaxListeners, setMaxListeners } from "node:events";

/**
 * An embedder's answer raced against a signal: the answer, or undefined as soon as `signal`
 * aborts, so an embedder service that ignores its signal never holds a child request past its
 * parent (CANCEL-10, INPUT-07). A later answer or failure is dropped.
 */
export function settleBy<T>(answer: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    // The answer is always observed, even when already aborted: a later rejection must not go unhandled.
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
    answer.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err);
      },
    );
  });
}

/**
 * A signal aborted when either input aborts, and a dispose() that removes its listeners (no
 * AbortSignal.any: on Node 20 it keeps every dependant alive as long as the inputs live).
 */
export function anySignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; dispose: () => void } {
  if (a.aborted) return { signal: a, dispose: () => {} };
  if (b.aborted) return { signal: b, dispose: () => {} };
  expectDependants(a);
  expectDependants(b);
  const c = new AbortController();
  const dispose = (): void => {
    a.removeEventListener("abort", onA);
    b.removeEventListener("abort", onB);
  };
  const onA = (): void => {
    dispose();
    c.abort(a.reason);
  };
  const onB = (): void => {
    dispose();
    c.abort(b.reason);
  };
  a.addEventListener("abort", onA, { once: true });
  b.addEventListener("abort", onB, { once: true });
  return { signal: c.signal, dispose };
}

/**
 * Each outstanding child request hangs one listener on its parent's (or the generation's) signal
 * until it settles, so up to MAX_OUTSTANDING_CHILD_REQUESTS of them on one signal is the design,
 * not a leak: Node's default of 10 would print a MaxListenersExceededWarning to the user's
 * terminal from the 11th (issue 13). The margin covers the host's own listeners on the signal.
 */
const EXPECTED_DEPENDANTS = bounds.MAX_OUTSTANDING_CHILD_REQUESTS + 16;

function expectDependants(signal: AbortSignal): void {
  if (getMaxListeners(signal) < EXPECTED_DEPENDANTS) setMaxListeners(EXPECTED_DEPENDANTS, signal);
}
