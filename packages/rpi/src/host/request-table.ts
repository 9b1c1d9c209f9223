/**
 * The host's own requests to an rpi extension (initialize, invoke) while they await an answer:
 * their ids, timeouts, cancellation and its grace (RPI-25, RPI-29, RPI-33).
 *
 * Contract: every request settles exactly once: with the extension's answer, "cancelled" when its
 * signal aborts (the extension is sent a `cancel` and given CANCEL_ANSWER_MS to answer first), an
 * error on timeout (a `cancel` is sent and the instance kept), or an error when the instance ends.
 * A late answer to a request given up is recognised (wasGivenUp) so it can be dropped quietly.
 */
import { IdTable } from "@octet/protocol";
import type { HostRequest, ProtocolResult } from "../protocol/frames.js";
import type { CancelSignal } from "./connection-types.js";

/** How long a cancelled invocation may take to answer before the host answers "cancelled" itself. */
const CANCEL_ANSWER_MS = 1000;
/** Bounded: only recent give-ups need a quiet late answer. */
const MAX_GIVEN_UP = 1024;

/** How one request is sent and settled; `context`: the invocation context encoded, spliced in as it is. */
export interface RequestOptions {
  timeoutMs?: number;
  budgetMs?: number;
  what?: string;
  tag?: unknown;
  context?: string;
  signal?: CancelSignal | undefined;
  onUpdate?: ((v: unknown) => void) | undefined;
}

export interface PendingRequest {
  resolve(result: ProtocolResult): void;
  onUpdate?: ((value: unknown) => void) | undefined;
  tag?: unknown;
}

/** How the table reaches the extension; both throw when the frame cannot be sent. */
export interface RequestWire {
  request(id: string, request: HostRequest, o: RequestOptions): void;
  cancel(id: string): void;
}

export class RequestTable {
  /**
   * Keyed by each id's sequence number: an IdTable, not a Map, because a Map churned by every
   * call keeps its old entries alive through young collections (@octet/protocol id-table).
   */
  readonly #pending = new IdTable<PendingRequest, number>();
  readonly #givenUp = new Set<string>();
  readonly #prefix: string;
  #nextId = 1;

  constructor(
    generation: number,
    private readonly wire: RequestWire,
  ) {
    this.#prefix = `req-${generation}-`;
  }

  /** The id of the next request: `req-<generation>-<n>`, so an answer names its generation. */
  nextId(): string {
    return `${this.#prefix}${this.#nextId++}`;
  }

  get(id: string): PendingRequest | undefined {
    const n = this.#sequence(id);
    return n === -1 ? undefined : this.#pending.get(n);
  }

  /** n of an id `req-<generation>-<n>` this table made, or -1 for any other string. */
  #sequence(id: string): number {
    if (!id.startsWith(this.#prefix)) return -1;
    const n = Number(id.slice(this.#prefix.length));
    return Number.isSafeInteger(n) && n > 0 && `${this.#prefix}${n}` === id ? n : -1;
  }

  /** True for a request the host stopped waiting for (cancelled or timed out): its answer is late. */
  wasGivenUp(id: string): boolean {
    return this.#givenUp.has(id);
  }

  /** Sends the request under `id` (from nextId) and resolves with how it settled. */
  open(id: string, request: HostRequest, o: RequestOptions): Promise<ProtocolResult> {
    const n = this.#sequence(id);
    if (n === -1) throw new Error(`request id ${JSON.stringify(id)} was not made by this table's nextId()`);
    return new Promise<ProtocolResult>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = (): void => settleLater({ status: "cancelled" }, "cancel");
      const settle = (result: ProtocolResult): void => {
        if (!this.#pending.delete(n)) return;
        clearTimeout(timer);
        o.signal?.removeEventListener("abort", onAbort);
        resolve(result);
      };
      // Cancel or timeout: tell the extension, give it a moment to answer, then answer for it.
      const settleLater = (fallback: ProtocolResult, why: string): void => {
        clearTimeout(timer);
        if (!this.#pending.has(n)) return;
        try {
          this.wire.cancel(id);
        } catch {
          // Closed: the pending entry is settled by closeAll.
        }
        this.#givenUp.add(id);
        if (this.#givenUp.size > MAX_GIVEN_UP) this.#givenUp.delete(this.#givenUp.values().next().value as string);
        if (why === "timeout") return settle(fallback);
        timer = setTimeout(() => settle(fallback), CANCEL_ANSWER_MS);
      };
      this.#pending.set(n, { resolve: settle, onUpdate: o.onUpdate, tag: o.tag });
      o.signal?.addEventListener("abort", onAbort, { once: true });
      if (o.timeoutMs !== undefined) {
        const ms = o.timeoutMs;
        const message = `no response within ${ms} ms (${o.what ?? "request"} timeout); the extension was sent a cancel`;
        timer = setTimeout(() => settleLater({ status: "error", error: { code: "timeout", message } }, "timeout"), ms);
      }
      try {
        this.wire.request(id, request, o);
      } catch (err) {
        settle({
          status: "error",
          error: { code: "frame_too_large", message: err instanceof Error ? err.message : String(err) },
        });
      }
    });
  }

  /** The instance ended: every open request answers with `reason`. */
  closeAll(reason: string): void {
    // Each resolve is the request's own settle: it removes the entry and clears its timer (a
    // timer left behind would hold the embedding process open for up to the invocation timeout).
    for (const p of this.#pending.values()) {
      p.resolve({
        status: "error",
        error: { code: "closed", message: `the extension ended before answering: ${reason}` },
      });
    }
  }
}
