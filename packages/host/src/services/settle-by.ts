/**
 * An embedder's answer raced against a signal: the answer, or undefined as soon as `signal`
 * aborts, so an embedder service that ignores its signal never holds a child request past its
 * parent (CANCEL-10). A later answer or failure is dropped.
 */
export function settleBy<T>(answer: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = (): void => resolve(undefined);
    if (signal.aborted) return onAbort();
    signal.addEventListener("abort", onAbort, { once: true });
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
