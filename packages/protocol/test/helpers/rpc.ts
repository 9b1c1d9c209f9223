/**
 * In-memory doubles for RpcPeer tests: a transport that records frames and can hold them unwritten
 * (so withdraw() is observable), a manual clock for deadlines, and small helpers to feed the peer
 * envelopes that went through the real envelope validator.
 */
import assert from "node:assert/strict";
import { parseEnvelope, type Envelope } from "../../src/jsonrpc.js";
import type { PeerTransport, SendTicket } from "../../src/rpc/peer.js";
import type { TimerApi } from "../../src/platform.js";

interface Held {
  frame: string;
  withdrawn: boolean;
}

/**
 * Frames are "written" at once unless hold is true; held frames wait in a queue until flush()
 * writes them, and only those can be withdrawn (a written frame's withdraw() returns false).
 */
export class MemoryTransport implements PeerTransport {
  hold = false;
  readonly written: string[] = [];
  readonly #queue: Held[] = [];

  send(frame: string): SendTicket {
    assert.ok(frame.endsWith("\n") && frame.indexOf("\n") === frame.length - 1, "a frame is one LF-terminated line");
    if (!this.hold) {
      this.written.push(frame);
      return { withdraw: () => false };
    }
    const held: Held = { frame, withdrawn: false };
    this.#queue.push(held);
    return {
      withdraw: () => {
        const i = this.#queue.indexOf(held);
        if (i === -1) return false;
        this.#queue.splice(i, 1);
        held.withdrawn = true;
        return true;
      },
    };
  }

  /** Writes every held frame, in order. */
  flush(): void {
    for (const h of this.#queue.splice(0)) this.written.push(h.frame);
  }

  get heldCount(): number {
    return this.#queue.length;
  }

  /** The written frames, parsed. */
  messages(): Record<string, unknown>[] {
    return this.written.map((f) => JSON.parse(f) as Record<string, unknown>);
  }

  last(): Record<string, unknown> {
    const all = this.messages();
    const m = all[all.length - 1];
    assert.ok(m, "expected a written frame");
    return m;
  }
}

/** A manual clock: timers fire only from advance(), in deadline order. */
export class FakeTimers implements TimerApi {
  now = 0;
  #next = 1;
  readonly #timers = new Map<number, { at: number; fn: () => void }>();

  setTimeout(fn: () => void, ms: number): unknown {
    const handle = this.#next++;
    this.#timers.set(handle, { at: this.now + ms, fn });
    return handle;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  get active(): number {
    return this.#timers.size;
  }

  advance(ms: number): void {
    const until = this.now + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.#timers) if (entry[1].at <= until && (!due || entry[1].at < due[1].at)) due = entry;
      if (!due) break;
      this.#timers.delete(due[0]);
      this.now = due[1].at;
      due[1].fn();
    }
    this.now = until;
  }
}

/** Runs a message through the real envelope validator, as the reader would. */
export function envelope(message: Record<string, unknown>): Envelope {
  const parsed = parseEnvelope(JSON.parse(JSON.stringify(message)));
  if (!parsed.ok) assert.fail(`test envelope refused: ${parsed.reason}`);
  return parsed.envelope;
}

export type Outcome = { settled: number; value?: unknown; error?: unknown };

/** Records how a promise settles (and how often its handlers ran). */
export function track(promise: Promise<unknown>): Outcome {
  const o: Outcome = { settled: 0 };
  promise.then(
    (value) => {
      o.settled++;
      o.value = value;
    },
    (error: unknown) => {
      o.settled++;
      o.error = error;
    },
  );
  return o;
}

/** Lets queued promise reactions run (one macrotask turn; not a timed wait). */
export function turn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
