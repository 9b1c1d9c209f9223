/**
 * message/updated batches as pi's message_update events (W 1.11, WAVE1-08): each batch the host
 * sends is forwarded once, in arrival order, as one message_update; never split, re-buffered or
 * reordered, and never one round trip per delta. The event carries pi's shape: the assistant
 * message so far (the batches' text joined) and the batch as a text_delta. An SDK-shaped batch
 * (an array under `deltas`, or its alias `updates`) is taken too; one of more than 1,024 deltas
 * is refused as bounds_exceeded and no event is sent. message/settled forgets the message.
 */

/** The most deltas one SDK-shaped batch may carry (W 1.11). */
export const MAX_BATCH_DELTAS = 1024;
/** Messages whose text is kept at once; the oldest is dropped past this (a message never settled). */
const MAX_OPEN_MESSAGES = 16;

export type MessageUpdate = { data: Record<string, unknown> } | { refused: string } | null;

export class MessageUpdates {
  readonly #text = new Map<string, string>();

  /** The message_update data for a message/updated or message/settled notification; null for others. */
  take(method: string, params: unknown): MessageUpdate {
    const p = (typeof params === "object" && params !== null ? params : {}) as Record<string, unknown>;
    const id = typeof p["message_id"] === "string" ? p["message_id"] : null;
    if (method === "message/settled") {
      if (id !== null) this.#text.delete(id);
      return null;
    }
    if (method !== "message/updated" || id === null) return null;
    const list = Array.isArray(p["deltas"]) ? p["deltas"] : Array.isArray(p["updates"]) ? p["updates"] : null;
    let delta: string;
    let count: number;
    if (list !== null) {
      if (list.length > MAX_BATCH_DELTAS)
        return {
          refused:
            `bounds_exceeded message/updated: ${list.length} deltas in one batch, over the limit of ` +
            `${MAX_BATCH_DELTAS}`,
        };
      delta = list.map((d) => (typeof d === "string" ? d : "")).join("");
      count = list.length;
    } else {
      delta = typeof p["delta"] === "string" ? p["delta"] : "";
      count = typeof p["deltas"] === "number" ? p["deltas"] : 1;
    }
    const text = (this.#text.get(id) ?? "") + delta;
    this.#text.delete(id);
    this.#text.set(id, text);
    if (this.#text.size > MAX_OPEN_MESSAGES) this.#text.delete(this.#text.keys().next().value as string);
    return {
      data: {
        message: { role: "assistant", content: [{ type: "text", text }] },
        assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta },
        messageId: id,
        deltas: count,
      },
    };
  }
}
