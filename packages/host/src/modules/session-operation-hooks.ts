/**
 * The one dispatch of the awaited session-operation hooks (W 1.4b, W 1.11: model_turn_start /
 * model_turn_end and session_before_compact / session_compact): an ordinary hook/run to every
 * ready generation that declared the hook in contributes.hooks, speaks API 0.4 and negotiated
 * session_entries, one after another in discovery order, each awaited under the caller's signal
 * and one deadline shared by all. A failed request, a refused result or a cancellation throws the
 * caller's error naming the extension; nothing is retried. `stop` ends the walk on an answer (a
 * compaction veto) and reports who answered so.
 */
import type { Checked, ExtensionNotification } from "@octet/protocol";
import type { RequestTarget as Generation } from "./target.js";

/** Whether `g` gets `hook`: declared, API 0.4, session_entries negotiated. */
export function takesSessionOperationHook(g: Generation, hook: string): boolean {
  return g.api === "0.4" && g.spec.manifest.contributes.hooks.includes(hook) && g.features.includes("session_entries");
}

export interface SessionOperationRun<R extends { notifications: readonly ExtensionNotification[] }> {
  hook: string;
  payload: { kind: string };
  signal?: AbortSignal | undefined;
  /** The shared deadline, in ms. */
  timeoutMs: number;
  validate(raw: unknown): Checked<R>;
  /** The error that names the extension and why (TurnHookError, CompactionHookError). */
  fail(extension: string, reason: string): Error;
  /** True when this answer ends the walk (the later hooks are not asked). */
  stop?(result: R): boolean;
}

export async function runSessionOperationHook<R extends { notifications: readonly ExtensionNotification[] }>(
  gens: readonly Generation[],
  o: SessionOperationRun<R>,
): Promise<{
  ran: string[];
  notifications: (ExtensionNotification & { extension: string })[];
  stoppedBy: string | null;
}> {
  const { hook, payload } = o;
  if (payload.kind !== hook) throw new TypeError(`payload.kind ${JSON.stringify(payload.kind)} is not ${hook}`);
  const outcome = { ran: [] as string[], notifications: [] as (ExtensionNotification & { extension: string })[] };
  const until = Date.now() + o.timeoutMs;
  for (const g of gens) {
    if (!takesSessionOperationHook(g, hook)) continue;
    if (o.signal?.aborted) throw o.fail(g.name, "cancelled before it was sent");
    const left = until - Date.now();
    if (left <= 0) throw o.fail(g.name, "the deadline passed before it was sent");
    outcome.ran.push(g.name);
    let raw: unknown;
    try {
      raw = await g.request(
        "hook/run",
        { hook, payload, context: g.context(true) },
        { timeoutMs: left, signal: o.signal },
      );
    } catch (err) {
      throw o.fail(g.name, err instanceof Error ? err.message : String(err));
    }
    const checked = o.validate(raw);
    if (!checked.ok) throw o.fail(g.name, `refused result: ${checked.problems.join("; ")}`);
    outcome.notifications.push(...checked.value.notifications.map((n) => ({ ...n, extension: g.name })));
    if (o.stop?.(checked.value)) return { ...outcome, stoppedBy: g.name };
  }
  return { ...outcome, stoppedBy: null };
}
