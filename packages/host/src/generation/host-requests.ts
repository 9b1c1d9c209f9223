/**
 * The host's requests to one generation: admission through the negotiated semaphore
 * (FRAME-13), deadlines, cancellation (CANCEL-01..08), the table of active requests that
 * parents reverse requests and progress (REV-07, PROG-02), and what a parent's settlement means
 * for its children (CANCEL-10).
 *
 * Cancellation, on API 0.2+: a frame not yet written is withdrawn and nothing is sent; a written
 * one is followed by exactly one $/cancelRequest, the waiter is dropped, the id tombstoned, and
 * the extension has the grace period to settle it (a late reply releases its slot); if it does
 * not, onGraceExpired() lets the generation terminate itself. API 0.1 gets no $/cancelRequest: the
 * waiter is dropped and a late reply ignored. Nothing is ever replayed (CANCEL-08).
 */
import {
  IdTable,
  OctetError,
  bounds,
  validateProgressParams,
  type ContentPart,
  type ProgressEvent,
  type RpcPeer,
} from "@octet/protocol";
import type { DiagnosticLevel } from "../events.js";
import { Slots } from "../util/slots.js";
import { Deadlines } from "../util/deadlines.js";
import { quietError } from "../util/quiet-error.js";
import type { ActiveParent } from "../modules/module.js";

/** The abort reason of a settled parent; one shared instance, since building an Error per call is costly. */
const PARENT_SETTLED = new OctetError("request_cancelled", "parent_settled");
/** Why a slot wait ended, never seen by a caller: abort() without a reason builds a DOMException. */
const GATE_CLOSED = new OctetError("request_cancelled", "the wait for a slot ended");

export type CancelReason = "user" | "timeout" | "parent_settled" | "shutdown" | "reload";

export interface HostRequestOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Receives this request's accepted $/progress events, output already cut to 8 KiB chunks. */
  onProgress?: ((event: ProgressEvent) => void) | undefined;
  /** The embedder confirmed this request already: its first confirmation/request is answered yes (MENU-13). */
  preApproveFirstConfirmation?: boolean | undefined;
  /** The JSON text of params, when the caller spliced it from parts encoded once (RequestOptions.paramsText). */
  paramsText?: string | undefined;
}

export interface HostRequestsOptions {
  peer: RpcPeer;
  /** API 0.2+ with request_cancellation negotiated: cancellation is announced. */
  cancellation: boolean;
  /** The negotiated max_concurrent_requests, or null for API 0.1 (no limit on the wire). */
  maxConcurrent: number | null;
  progress: { enabled: boolean; decoration: boolean; partialResult: boolean; api: "0.1" | "0.2" | "0.4" };
  graceMs?: number;
  /** The extension did not settle a cancelled request within the grace period. */
  onGraceExpired: (id: number, method: string) => void;
  /** The artifacts feature was negotiated: without it a partial result's media parts are refused (PROG-12, CALL-18). */
  artifacts?: boolean;
  /** With artifacts: why a partial result's media parts do not resolve, or null (PROG-12, CALL-18, CALL-19). */
  checkMedia?: (parts: readonly ContentPart[]) => string | null;
  diagnose: (level: DiagnosticLevel, message: string) => void;
}

interface Active {
  method: string;
  /** For hook/run: the hook it runs (model-turn hooks parent session/append_entry, TURN-08). */
  hook: string | undefined;
  /** Created only when a reverse request asks for this parent's signal: most calls never need one. */
  controller: AbortController | null;
  onProgress: ((event: ProgressEvent) => void) | undefined;
  lastSequence: number;
  /** One confirmation the embedder already answered yes for (MENU-13). */
  preApproved: boolean;
  /** The caller's whole timeout, for the deadline's message. */
  timeoutMs: number;
  /** Cancelled already (by the caller, the deadline): a second cancel does nothing. */
  cancelled: boolean;
  /** Its bookkeeping ended (#finish): every way a request ends comes there, once. */
  finished: boolean;
  /** The caller's signal and the listener this request added to it, when it gave one. */
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

export class HostRequests {
  readonly #o: HostRequestsOptions;
  readonly #slots: Slots | null;
  readonly #active = new IdTable<Active, number>();
  /** The response deadline of each request written (one timer for all, util/deadlines.ts). */
  readonly #deadlines = new Deadlines((id) => this.#expired(id));
  /**
   * What the peer calls when the extension settles a request: one function for all of them,
   * since per-call closures (this one, the deadline's, the cancel's) were a visible part of a
   * small call's allocation (issue 19).
   */
  readonly #settled = (how: "answered" | "late", id: number): void =>
    how === "answered" ? this.#responded(id) : this.#lateResponse(id);
  /** Cancelled requests whose frame was written: their slot is held until they settle. */
  readonly #graces = new Map<number, { timer: ReturnType<typeof setTimeout>; method: string }>();
  #closed: Error | null = null;
  readonly #idleWaiters: (() => void)[] = [];
  /** Set when draining starts: no new request may be written, also not one waiting for a slot. */
  #refusing: OctetError | null = null;

  constructor(options: HostRequestsOptions) {
    this.#o = options;
    this.#slots = options.maxConcurrent === null ? null : new Slots(options.maxConcurrent);
  }

  readonly #cancelledIds = new Set<number>();
  /** Requests in flight, including cancelled ones the extension has not settled yet. */
  get inFlight(): number {
    return this.#active.size + this.#graces.size;
  }

  /**
   * Whether the host cancelled request `id` (a known cancellation tombstone, W 2.21b/c): the last
   * MAX_CHILD_IDS_PER_GENERATION cancelled ids are remembered, so an owner-only call naming one is refused.
   */
  wasCancelled(id: number): boolean {
    return this.#cancelledIds.has(id);
  }

  active(id: number): ActiveParent | undefined {
    const a = this.#active.get(id);
    if (!a) return undefined;
    return {
      method: a.method,
      ...(a.hook !== undefined ? { hook: a.hook } : {}),
      signal: (a.controller ??= new AbortController()).signal,
      takeApproval: () => {
        const approved = a.preApproved;
        a.preApproved = false;
        return approved;
      },
    };
  }

  /**
   * Draining: from now on nothing new is written (SHUT-08). Requests still waiting for a slot are
   * refused with code not_sent ("nothing was sent"), so the caller may safely try elsewhere.
   */
  stopAdmitting(reason: string): void {
    if (this.#refusing) return;
    this.#refusing = new OctetError("not_sent", `not sent: ${reason}`);
    this.#slots?.rejectAll(this.#refusing);
  }

  /**
   * Sends a request and returns the peer's own promise for its answer: no async layer of its own,
   * since each layer's frame, promise and closures stayed alive as long as the call (about a
   * fifth of what a call in flight holds, issue 19). The table's bookkeeping ends in #finish,
   * reached from every way a request can end: answered, cancelled, timed out, cancelAll, close.
   */
  send(method: string, params: unknown, options: HostRequestOptions): Promise<unknown> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (this.#refusing) return Promise.reject(this.#refusing);
    const { signal, timeoutMs } = options;
    if (signal?.aborted)
      return Promise.reject(quietError("request_cancelled", `${method} was cancelled before it was sent`));
    // The deadline covers the wait for a slot too (CALL-24): a caller's timeout is the whole call.
    const until = Date.now() + timeoutMs;
    // A free slot is taken at once; only a caller that must wait pays for the abortable wait.
    if (this.#slots && !this.#slots.tryAcquire())
      return this.#sendAfterSlot(this.#slots, method, params, options, until);
    return this.#write(method, params, options, until);
  }

  async #sendAfterSlot(
    slots: Slots,
    method: string,
    params: unknown,
    options: HostRequestOptions,
    until: number,
  ): Promise<unknown> {
    await this.#admit(slots, method, options.timeoutMs, options.signal);
    return this.#write(method, params, options, until);
  }

  /** Writes a request that holds a slot (if there are slots); the slot is released by #finish. */
  #write(method: string, params: unknown, options: HostRequestOptions, until: number): Promise<unknown> {
    if (this.#refusing) {
      this.#slots?.release();
      return Promise.reject(this.#refusing);
    }
    const { signal, timeoutMs } = options;
    const left = until - Date.now();
    if (left <= 0) {
      this.#slots?.release();
      const message = `${method} got no free request slot within ${timeoutMs} ms; nothing was sent`;
      return Promise.reject(quietError("request_timeout", message));
    }
    // The peer says when the extension settles it (as the response is read, or late after a
    // cancel): this table follows the peer's, it is not a second ledger kept from the wire.
    const peer = this.#o.peer;
    const outgoing = peer.request(method, params, { onSettled: this.#settled, paramsText: options.paramsText });
    const id = outgoing.id;
    if (!peer.isPending(id)) {
      // Refused before it was written (an unencodable or oversized frame, a closed peer): the
      // promise is already rejected and nothing was sent.
      this.#slots?.release();
      return outgoing.result;
    }
    const entry: Active = {
      method,
      hook: method === "hook/run" ? hookOf(params) : undefined,
      controller: null,
      onProgress: options.onProgress,
      lastSequence: -1,
      preApproved: options.preApproveFirstConfirmation === true,
      timeoutMs,
      cancelled: false,
      finished: false,
      signal: undefined,
      onAbort: undefined,
    };
    this.#active.set(id, entry);
    this.#deadlines.add(id, left);
    if (signal) {
      entry.signal = signal;
      entry.onAbort = () =>
        this.#cancel(id, entry, "user", quietError("request_cancelled", `${method} (id ${id}) was cancelled`));
      signal.addEventListener("abort", entry.onAbort, { once: true });
    }
    return outgoing.result;
  }

  /**
   * The end of request `id` in this table, once whichever way it ended: its deadline and abort
   * listener go, the parent's unresolved reverse requests are cancelled (CANCEL-10), idle()
   * waiters are told, and its slot is freed unless a cancelled request's grace still holds it.
   */
  #finish(id: number, a: Active, releaseSlot: boolean): void {
    if (a.finished) return;
    a.finished = true;
    this.#deadlines.delete(id);
    if (a.onAbort) a.signal?.removeEventListener("abort", a.onAbort);
    this.#active.delete(id);
    if (this.#idleWaiters.length > 0) queueMicrotask(() => this.#checkIdle());
    a.controller?.abort(PARENT_SETTLED);
    if (releaseSlot) this.#slots?.release();
  }

  /** The response deadline of request `id` passed. */
  #expired(id: number): void {
    const a = this.#active.get(id);
    if (!a) return;
    const message = `${a.method} (id ${id}) got no response within ${a.timeoutMs} ms`;
    this.#cancel(id, a, "timeout", quietError("request_timeout", message));
  }

  /**
   * Gives up on request `id` once: its waiter is rejected with `error`; a frame not yet written is
   * withdrawn (CANCEL-02), a written one is followed by $/cancelRequest and the grace period.
   */
  #cancel(id: number, a: Active, reason: CancelReason, error: OctetError): void {
    if (a.cancelled) return;
    a.cancelled = true;
    this.#cancelledIds.add(id);
    if (this.#cancelledIds.size > bounds.MAX_CHILD_IDS_PER_GENERATION)
      this.#cancelledIds.delete(this.#cancelledIds.values().next().value as number);
    const peer = this.#o.peer;
    const r = peer.abandon(id, "cancelled", error);
    // Never written (CANCEL-02: the extension never saw it), already settled, or API 0.1 (no
    // cancellation on the wire): the slot is free now.
    if (!r || r.withdrawn || !this.#o.cancellation) return this.#finish(id, a, true);
    // Exactly one notification after the complete frame (CANCEL-03), then the grace period, which
    // holds the slot until the extension settles the request or the grace expires.
    peer.notify("$/cancelRequest", { id, reason });
    const timer = setTimeout(() => this.#graceExpired(id), this.#o.graceMs ?? bounds.CANCEL_GRACE_MS);
    this.#graces.set(id, { timer, method: a.method });
    this.#finish(id, a, false);
  }

  /**
   * Waits for a slot of the semaphore (FRAME-13) until the caller cancels or its deadline passes;
   * a request that gives up here was never written, so nothing at all is sent (CANCEL-02).
   */
  async #admit(slots: Slots, method: string, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const gate = new AbortController();
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      gate.abort(GATE_CLOSED);
    }, timeoutMs);
    const onAbort = (): void => gate.abort(GATE_CLOSED);
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await slots.acquire(gate.signal);
    } catch {
      if (this.#closed) throw this.#closed;
      if (this.#refusing) throw this.#refusing;
      if (expired)
        throw quietError(
          "request_timeout",
          `${method} got no free request slot within ${timeoutMs} ms (max_concurrent_requests ` +
            `${this.#o.maxConcurrent}); nothing was sent`,
        );
      throw quietError(
        "request_cancelled",
        `${method} was cancelled while waiting for a free request slot; nothing was sent`,
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Cancels every active request (draining deadline, reload, shutdown). */
  cancelAll(reason: CancelReason): void {
    for (const id of this.#active.keys()) {
      const a = this.#active.get(id);
      if (!a) continue;
      const r = this.#o.peer.abandon(
        id,
        "cancelled",
        quietError("request_cancelled", `${a.method} (id ${id}) was cancelled: ${reason}`),
      );
      if (r && !r.withdrawn && this.#o.cancellation && !this.#o.peer.closed) {
        this.#o.peer.notify("$/cancelRequest", { id, reason });
      }
      this.#finish(id, a, true);
    }
  }

  /** Resolves when nothing is in flight, or after `ms`. */
  idle(ms: number): Promise<void> {
    if (this.inFlight === 0 || this.#closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        const i = this.#idleWaiters.indexOf(done);
        if (i !== -1) this.#idleWaiters.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#idleWaiters.push(done);
    });
  }

  /** Wakes idle() waiters once nothing is in flight (or the generation closed). */
  #checkIdle(): void {
    if ((this.inFlight > 0 && !this.#closed) || this.#idleWaiters.length === 0) return;
    for (const w of [...this.#idleWaiters]) w();
  }

  /**
   * A response to `id` arrived. Told by the peer as the frame is read, before the waiter runs, so
   * a $/progress or reverse request that follows the response in the same read already finds the
   * request settled (PROG-04, REV-08) and its pending children are cancelled at once (CANCEL-10).
   */
  #responded(id: number): void {
    const a = this.#active.get(id);
    if (!a) return;
    this.#finish(id, a, true);
    this.#checkIdle();
  }

  /** A reply arrived for a tombstoned id: the cancelled request is settled after all. */
  #lateResponse(id: number): void {
    const g = this.#graces.get(id);
    if (!g) return;
    clearTimeout(g.timer);
    this.#graces.delete(id);
    this.#checkIdle();
    this.#slots?.release();
  }

  /** A $/progress notification from the extension (PROG-01..12). */
  progress(params: unknown): void {
    const p = this.#o.progress;
    if (!p.enabled) return this.#o.diagnose("warning", "ignored $/progress: request_progress was not negotiated");
    const checked = validateProgressParams(params, {
      decoration: p.decoration,
      partialResult: p.partialResult,
      api: p.api,
    });
    if (!checked.ok) return this.#o.diagnose("warning", `ignored invalid $/progress: ${checked.problems.join("; ")}`);
    const { request_id: id, sequence, event } = checked.value;
    const a = this.#active.get(id);
    if (!a) return this.#o.diagnose("warning", `ignored $/progress for inactive request ${id}`);
    if (sequence <= a.lastSequence)
      return this.#o.diagnose(
        "warning",
        `ignored $/progress for request ${id}: sequence ${sequence} does not increase (last ${a.lastSequence})`,
      );
    if (event.type === "partial_result" && a.method !== "tool/call")
      return this.#o.diagnose(
        "warning",
        `ignored partial_result for ${a.method} request ${id}: only tool/call has partial results`,
      );
    if (event.type === "partial_result" && this.#o.artifacts !== true) {
      // No artifact can be verified without the feature (the final result's rule, PROG-12).
      const media = event.result.content.find((part) => part.type !== "text");
      if (media)
        return this.#o.diagnose(
          "warning",
          `ignored partial_result for request ${id}: content part of type "${media.type}" needs the artifacts ` +
            `feature, which was not negotiated`,
        );
    }
    if (
      event.type === "partial_result" &&
      this.#o.artifacts === true &&
      event.result.content.some((part) => part.type !== "text")
    ) {
      const problem = this.#o.checkMedia ? this.#o.checkMedia(event.result.content) : "no artifacts service is bound";
      if (problem !== null) return this.#o.diagnose("warning", `ignored partial_result for request ${id}: ${problem}`);
    }
    a.lastSequence = sequence;
    if (!a.onProgress) return;
    for (const piece of chunkOutput(event)) {
      try {
        a.onProgress(piece);
      } catch {
        // The embedder's progress sink must not break the request.
      }
    }
  }

  close(error: Error): void {
    this.#closed = error;
    for (const g of this.#graces.values()) clearTimeout(g.timer);
    this.#graces.clear();
    this.#checkIdle();
    this.#slots?.rejectAll(error);
    // The peer has rejected every waiter; the table lets go of them too.
    for (const [id, a] of this.#active.entries()) {
      a.controller?.abort(error);
      this.#finish(id, a, true);
    }
  }

  #graceExpired(id: number): void {
    const g = this.#graces.get(id);
    if (!g) return;
    this.#graces.delete(id);
    this.#checkIdle();
    this.#o.onGraceExpired(id, g.method);
  }
}

/** Output progress is delivered in chunks of at most 8 KiB of data (PROG-07). */
export function chunkOutput(event: ProgressEvent): ProgressEvent[] {
  if (event.type !== "output") return [event];
  const max = bounds.PROGRESS_OUTPUT_CHUNK_BYTES;
  const bytes = event.encoding === "base64" ? Buffer.from(event.data, "base64") : Buffer.from(event.data, "utf8");
  if (bytes.length <= max) return [event];
  const out: ProgressEvent[] = [];
  let at = 0;
  while (at < bytes.length) {
    let end = Math.min(at + max, bytes.length);
    // Never split a UTF-8 character: back up to a lead byte.
    if (event.encoding === "utf8") while (end < bytes.length && end > at && (bytes[end]! & 0xc0) === 0x80) end--;
    const piece = bytes.subarray(at, end);
    out.push({ ...event, data: event.encoding === "base64" ? piece.toString("base64") : piece.toString("utf8") });
    at = end;
  }
  return out;
}

function hookOf(params: unknown): string | undefined {
  const hook = typeof params === "object" && params !== null ? (params as { hook?: unknown }).hook : undefined;
  return typeof hook === "string" ? hook : undefined;
}
