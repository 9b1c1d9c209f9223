/**
 * What extensions put into the agent's session besides their tools (W 2.22, W 2.23, W 1.11):
 * messages they inject (a custom_message entry with the role they gave, committed at once when
 * idle, else before the running prompt's next model request, where no tool call waits for its
 * result), user messages queued behind the running prompt (FIFO, at most 16), the model's active
 * tool set, and the model's text streamed to them as message/updated batches.
 */
import type { ExtensionHost } from "@octet/host";
import type { InjectedRole } from "@octet/protocol";
import type { NewEntry } from "../session/index.js";
import type { AgentEventListener } from "./events.js";
import { AgentError } from "../agent-error.js";

/** User messages waiting behind the running prompt; one more is refused (queue_full). */
export const MAX_QUEUED_USER_MESSAGES = 16;

/** The entry type of an injected message (custom_message.entry_type). */
export const INJECTED_ENTRY_TYPE = "injected_message";

export interface InjectedMessage {
  role: InjectedRole;
  text: string;
  /** The extension that sent it, recorded in the entry. */
  extension?: string;
}

/** The entry an injected message becomes: in context, shown by a frontend. */
export function injectedEntry(m: InjectedMessage): NewEntry {
  return {
    type: "custom_message",
    entry_type: INJECTED_ENTRY_TYPE,
    content: m.text,
    display: true,
    role: m.role,
    ...(m.extension !== undefined ? { extension: m.extension } : {}),
  };
}

/**
 * The model's text as message/updated batches: each model request's text is one message, its id
 * `<run_id>:<turn_index>`, settled when the request's answer is committed (turn_end) or the run
 * ends without one (run_end). The host coalesces the deltas; this only names the messages.
 */
export function messageStream(host: () => ExtensionHost | null): AgentEventListener {
  const open = new Map<string, ExtensionHost>();
  const settle = (id: string): void => {
    const h = open.get(id);
    open.delete(id);
    h?.messageSettled(id);
  };
  return (e) => {
    if (e.type === "text_delta") {
      const id = `${e.run_id}:${e.turn_index}`;
      const h = open.get(id) ?? host();
      if (!h) return;
      open.set(id, h);
      h.messageDelta(id, e.delta);
    } else if (e.type === "turn_end") settle(`${e.run_id}:${e.turn_index}`);
    else if (e.type === "run_end") for (const id of [...open.keys()]) if (id.startsWith(`${e.run_id}:`)) settle(id);
  };
}

/** The active tool set of `names` (tools/set_active), or AgentError "unknown_tool" naming the unknown ones. */
export function checkedActiveTools(names: readonly string[], known: readonly string[]): ReadonlySet<string> {
  const all = new Set(known);
  const unknown = names.filter((n) => !all.has(n));
  if (unknown.length > 0)
    throw new AgentError(
      "unknown_tool",
      `no tool is named ${unknown
        .slice(0, 8)
        .map((n) => JSON.stringify(n.slice(0, 128)))
        .join(", ")} (known: ${known.slice(0, 32).join(", ")})`,
    );
  return new Set(names);
}

/** Aborting `outer` aborts `inner`; returns the unlink. */
export function link(outer: AbortSignal | undefined, inner: AbortController): () => void {
  if (!outer) return () => {};
  const on = (): void => inner.abort(outer.reason);
  if (outer.aborted) on();
  outer.addEventListener("abort", on, { once: true });
  return () => outer.removeEventListener("abort", on);
}

/**
 * Agent.whenIdle: waits out the work in progress until `pending()` answers null (idle); rejects
 * when `signal` aborts.
 */
export async function untilIdle(pending: () => Promise<unknown> | null, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  if (pending() === null) return;
  let off = (): void => {};
  const aborted = new Promise<never>((_, reject) => {
    const on = (): void => reject(signal?.reason);
    signal?.addEventListener("abort", on, { once: true });
    off = () => signal?.removeEventListener("abort", on);
  });
  try {
    for (let work = pending(); work !== null; work = pending()) {
      await Promise.race([work.catch(() => undefined), aborted]);
      // The run's own finally clears #running after its promise settles: let it run first.
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    off();
  }
}
