/**
 * message/updated coalescing (W 1.11, WAVE1-04/05): the model's text deltas of one message are
 * gathered into one batch {message_id, delta, deltas} that is sent when it holds 4096 bytes, 64
 * deltas, or 50 ms after its first delta, whichever comes first; message/settled {message_id}
 * (WAVE1-07's default) follows the last batch. A delta that would carry a batch past 4096 bytes
 * first sends the batch before it, so a batch is over 4096 bytes only when one delta alone is.
 * One batcher per host: every extension that negotiated the feature gets the same batches.
 */
import {
  MESSAGE_BATCH_BYTES,
  MESSAGE_BATCH_DELTAS,
  MESSAGE_BATCH_MS,
  utf8ByteLength,
  validateMessageSettled,
} from "@octet/protocol";

/** Injectable timers, so the 50 ms rule is tested without waiting. */
export interface BatchTimers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: BatchTimers = {
  set: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export type BatchSink = (method: "message/updated" | "message/settled", params: Record<string, unknown>) => void;

interface Pending {
  text: string;
  bytes: number;
  deltas: number;
  timer: unknown;
}

export class MessageBatcher {
  readonly #send: BatchSink;
  readonly #timers: BatchTimers;
  readonly #open = new Map<string, Pending>();

  constructor(send: BatchSink, timers: BatchTimers = realTimers) {
    this.#send = send;
    this.#timers = timers;
  }

  /** One text delta of message `id`. Throws TypeError for an id over 256 bytes or empty (an embedder bug). */
  delta(id: string, text: string): void {
    checkId(id);
    if (text === "") return;
    const size = utf8ByteLength(text);
    let p = this.#open.get(id);
    if (p && p.deltas > 0 && p.bytes + size > MESSAGE_BATCH_BYTES) this.#flush(id, p);
    if (!p) {
      p = { text: "", bytes: 0, deltas: 0, timer: null };
      this.#open.set(id, p);
    }
    const pending = p;
    if (pending.deltas === 0) pending.timer = this.#timers.set(() => this.#flush(id, pending), MESSAGE_BATCH_MS);
    pending.text += text;
    pending.bytes += size;
    pending.deltas += 1;
    if (pending.bytes >= MESSAGE_BATCH_BYTES || pending.deltas >= MESSAGE_BATCH_DELTAS) this.#flush(id, pending);
  }

  /** The message ended: its last batch, then message/settled. A message never opened settles too. */
  settle(id: string): void {
    checkId(id);
    const p = this.#open.get(id);
    if (p) this.#flush(id, p);
    this.#open.delete(id);
    this.#send("message/settled", { message_id: id });
  }

  /** Settles every open message (the host is shutting down or the embedder lost the stream). */
  settleAll(): void {
    for (const id of [...this.#open.keys()]) this.settle(id);
  }

  #flush(id: string, p: Pending): void {
    if (p.timer !== null) this.#timers.clear(p.timer);
    p.timer = null;
    if (p.deltas === 0) return;
    const batch = { message_id: id, delta: p.text, deltas: p.deltas };
    p.text = "";
    p.bytes = 0;
    p.deltas = 0;
    this.#send("message/updated", batch);
  }
}

function checkId(id: string): void {
  const checked = validateMessageSettled({ message_id: id });
  if (!checked.ok) throw new TypeError(`message id refused: ${checked.problems.join("; ")}`);
}
