/**
 * The session part of an rpi invocation context (frames.ts SessionContext): the embedder's
 * session layer's state (ForeignSessionLayer.state) with its entries as a delta against what this
 * instance was already sent, so a long session is not copied into every invocation. The delta is
 * bounded: at most MAX_DELTA_BYTES of entries per invocation (the rest follows with the next
 * ones), and an entry over MAX_ENTRY_BYTES is sent as a stub that names its size, since the
 * whole context must fit a quarter of the frame limit (invocation-context.ts).
 */
import type { ForeignSessionState } from "@octet/protocol";
import type { SessionContext } from "../protocol/frames.js";

/** Entry bytes per invocation context with 1 MiB frames: half the context's quarter-frame bound. */
export const MAX_DELTA_BYTES = 128 * 1024;
/** One entry past this is mirrored as a stub (its id, parent, type and size), with 1 MiB frames. */
export const MAX_ENTRY_BYTES = 32 * 1024;
/**
 * The bounds for a frame limit: an eighth of a frame per delta, a quarter of that per entry, and
 * half a delta of models (about 300 models of pi-ai's catalog per invocation; the models with a
 * key come first, so those are there from the first invocation).
 */
export function mirrorBounds(maxFrameBytes: number): { delta: number; entry: number; models: number } {
  const delta = Math.min(MAX_DELTA_BYTES, Math.floor(maxFrameBytes / 8));
  return { delta, entry: Math.min(MAX_ENTRY_BYTES, Math.floor(delta / 4)), models: Math.floor(delta / 2) };
}

type ModelItem = NonNullable<ForeignSessionState["models"]>["list"][number];

export class SessionMirror {
  /** What this instance was sent: the session id and how many of its entries. */
  #sent: { id: string; count: number } | null = null;
  #last: { key: string; context: SessionContext } | null = null;
  readonly #bounds: { delta: number; entry: number; models: number };
  /** The model list this instance is being sent, its version and how many of it were sent. */
  #models: { list: readonly ModelItem[]; version: number; count: number } | null = null;

  constructor(bounds = mirrorBounds(8 * MAX_DELTA_BYTES)) {
    this.#bounds = bounds;
  }

  /** The next chunk of the model registry, or undefined when all of it was sent. */
  #modelsDelta(state: ForeignSessionState): SessionContext["models"] {
    const list = state.models?.list;
    if (!list) return undefined;
    if (this.#models?.list !== list) this.#models = { list, version: (this.#models?.version ?? 0) + 1, count: 0 };
    const sent = this.#models;
    if (sent.count >= list.length && sent.count > 0) return undefined;
    const items: ModelItem[] = [];
    let bytes = 0;
    for (let i = sent.count; i < list.length; i++) {
      const size = JSON.stringify(list[i]).length;
      if (items.length > 0 && bytes + size > this.#bounds.models) break;
      items.push(list[i]!);
      bytes += size;
    }
    const from = sent.count;
    sent.count += items.length;
    return { version: sent.version, from, items };
  }

  /** The session context for the next invocation, or null without a session. */
  next(state: ForeignSessionState | null): SessionContext | null {
    if (!state) return null;
    const sent = this.#sent;
    const from = sent && sent.id === state.id && sent.count <= state.entries.length ? sent.count : 0;
    const usage = state.contextUsage;
    const fields = {
      id: state.id,
      file: state.file,
      name: state.name,
      leafId: state.leafId,
      idle: state.idle,
      pendingMessages: state.pendingMessages,
      systemPrompt: state.systemPrompt,
      contextUsage: usage,
      ...(state.thinkingLevel !== undefined ? { thinkingLevel: state.thinkingLevel } : {}),
    };
    const models = this.#modelsDelta(state);
    // Nothing new and nothing changed: the same object, so the connection encodes it once.
    const key = JSON.stringify({ ...fields, from });
    if (models === undefined && from === state.entries.length && this.#last?.key === key) return this.#last.context;
    const items: Record<string, unknown>[] = [];
    let bytes = 0;
    for (let i = from; i < state.entries.length; i++) {
      let entry = state.entries[i]!;
      let size = JSON.stringify(entry).length;
      if (size > this.#bounds.entry) {
        entry = stub(entry, size, this.#bounds.entry);
        size = JSON.stringify(entry).length;
      }
      if (items.length > 0 && bytes + size > this.#bounds.delta) break;
      items.push(entry);
      bytes += size;
    }
    // Counted as sent now: a context that never reached the extension is sent again from an
    // earlier point later at worst, which the extension's mirror takes (it cuts to `from`).
    this.#sent = { id: state.id, count: from + items.length };
    const context: SessionContext = { ...fields, entries: { from, items }, ...(models ? { models } : {}) };
    if (items.length === 0 && models === undefined) this.#last = { key, context };
    return context;
  }
}

/** An entry too large to mirror: what identifies it, and why its content is missing. */
function stub(entry: Record<string, unknown>, size: number, bound: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ["type", "id", "parentId", "timestamp", "customType"]) if (k in entry) out[k] = entry[k];
  out["octetOmitted"] = `this entry is ${size} bytes as JSON, over the ${bound}-byte mirror bound`;
  return out;
}
