/**
 * The JSON-RPC engine shared by the host and the SDKs: correlation of outgoing requests,
 * deadlines, tombstones for requests given up on, dispatch of incoming requests and
 * notifications, and the single place where handler outcomes become wire responses.
 *
 * It owns no I/O: frames go out through a PeerTransport (which must write each frame whole and
 * never interleave two) and decoded envelopes come in through receive(). Concurrency limits,
 * cancellation policy and generation fencing belong to the layers above.
 */
import { MAX_CHILD_IDS_PER_GENERATION } from "../bounds.js";
import { ErrorCode, OctetError, WireError, toWireError } from "../errors.js";
import type { Envelope, JsonRpcId, Message, RequestMessage, NotificationMessage } from "../jsonrpc.js";
import { isErrorResponse } from "../jsonrpc.js";
import { encodeFrame, encodeRequestFrame } from "../jsonl/encode.js";
import { platformTimers, type TimerApi } from "../platform.js";
import { IdTable } from "./id-table.js";

/** A queued frame; withdraw() removes it if no byte of it was written yet and says so. */
export interface SendTicket {
  withdraw(): boolean;
}

export interface PeerTransport {
  send(frame: string): SendTicket;
  /**
   * Set when the other side takes messages as objects (an in-process stand-in, ForeignMessages):
   * each message is still encoded, so the frame bound and the JSON rules hold as on a pipe
   * (FRAME-09: refused before anything is handed over), but the message itself is handed here
   * instead of its frame, so the other side parses nothing. Read per message, so a transport may
   * set it once it knows its reader.
   */
  direct?: ((message: Message) => SendTicket) | null | undefined;
}

export type PeerDiagnostic =
  /** A reply to a request given up on; `errorCode` is set when the reply was an error. */
  | { kind: "late_response"; id: JsonRpcId; reason: "timeout" | "cancelled"; errorCode?: number }
  | { kind: "unknown_response"; id: JsonRpcId | null }
  | { kind: "error_response_without_id"; message: string }
  | { kind: "handler_failed"; method: string; message: string }
  | { kind: "response_too_large"; method: string; message: string };

export interface PeerOptions {
  transport: PeerTransport;
  /** Answers one incoming request; its value is the result, a thrown WireError the error. */
  onRequest?: (request: RequestMessage) => unknown;
  onNotification?: (notification: NotificationMessage) => void;
  onDiagnostic?: (diagnostic: PeerDiagnostic) => void;
  timers?: TimerApi;
}

export interface RequestOptions {
  /** Reject with request_timeout after this many milliseconds; none when absent. */
  timeoutMs?: number;
  /**
   * Told when the other side settles this request, as its response is read and before the
   * waiter runs ("answered"), or, once given up on after its frame was written, when the late
   * response comes ("late"). The layer above keeps no ledger of its own for either. `id` is the
   * request's, so one function can serve every request instead of a closure per call.
   */
  onSettled?: (how: "answered" | "late", id: number) => void;
  /**
   * The JSON text of `params` when the caller has it (spliced from parts it encoded once): sent
   * in place of encoding `params`, under the same frame bound. It must be the JSON of `params`.
   */
  paramsText?: string | undefined;
}

export interface OutgoingRequest {
  readonly id: number;
  readonly result: Promise<unknown>;
}

interface Pending {
  method: string;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  timer: unknown;
  ticket: SendTicket;
  onSettled: RequestOptions["onSettled"];
}

interface Tombstone {
  reason: "timeout" | "cancelled";
  /** Dropped once told: a second late response is only diagnosed. */
  onSettled: RequestOptions["onSettled"];
}

export class RpcPeer {
  readonly #transport: PeerTransport;
  readonly #onRequest: ((request: RequestMessage) => unknown) | undefined;
  readonly #onNotification: ((n: NotificationMessage) => void) | undefined;
  readonly #onDiagnostic: (d: PeerDiagnostic) => void;
  readonly #timers: TimerApi;
  /** Not a Map: see id-table.ts (a churned Map keeps every old entry alive after a full GC). */
  readonly #pending = new IdTable<Pending, number>();
  /** Ids given up on (timeout, cancel): late replies are diagnosed, never delivered. Bounded FIFO. */
  readonly #tombstones = new Map<number, Tombstone>();
  #nextId = 1;
  #closed: Error | null = null;

  constructor(options: PeerOptions) {
    this.#transport = options.transport;
    this.#onRequest = options.onRequest;
    this.#onNotification = options.onNotification;
    this.#onDiagnostic = options.onDiagnostic ?? (() => {});
    const timers = options.timers ?? platformTimers();
    if (!timers) throw new OctetError("protocol_violation", "RpcPeer needs timers on a platform without setTimeout");
    this.#timers = timers;
  }

  /** Requests awaiting a response. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Whether request `id` awaits a response (false once answered, given up, or never written). */
  isPending(id: number): boolean {
    return this.#pending.has(id);
  }

  get closed(): boolean {
    return this.#closed !== null;
  }

  /** Sends a request with the next numeric id (host ids are u64 numbers, FRAME-11). */
  request(method: string, params: unknown, options: RequestOptions = {}): OutgoingRequest {
    const id = this.#nextId++;
    const result = new Promise<unknown>((resolve, reject) => {
      if (this.#closed) {
        reject(this.#closed);
        return;
      }
      // One object for the frame and, to a direct transport, for the message itself.
      const message: Message =
        params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
      let frame: string;
      try {
        frame =
          options.paramsText === undefined ? encodeFrame(message) : encodeRequestFrame(id, method, options.paramsText);
      } catch (err) {
        reject(err);
        return;
      }
      const entry: Pending = {
        method,
        resolve,
        reject,
        timer: undefined,
        ticket: { withdraw: () => false },
        onSettled: options.onSettled,
      };
      this.#pending.set(id, entry);
      if (options.timeoutMs !== undefined) {
        entry.timer = this.#timers.setTimeout(() => {
          this.abandon(
            id,
            "timeout",
            new OctetError("request_timeout", `${method} (id ${id}) got no response within ${options.timeoutMs} ms`),
          );
        }, options.timeoutMs);
      }
      const direct = this.#transport.direct;
      try {
        entry.ticket = direct ? direct(message) : this.#transport.send(frame);
      } catch (err) {
        // Nothing was queued: drop the entry and its deadline, or it would stay pending forever.
        if (this.#pending.get(id) === entry) this.#pending.delete(id);
        if (entry.timer !== undefined) this.#timers.clearTimeout(entry.timer);
        reject(err);
      }
    });
    return { id, result };
  }

  /**
   * Gives up on an outgoing request: its waiter is rejected with `error` and the id tombstoned, so
   * a late response is diagnosed and dropped. Returns whether the frame was withdrawn before any
   * byte of it was written (then the peer never saw it), or null when the id was not pending.
   */
  abandon(id: number, reason: "timeout" | "cancelled", error: Error): { withdrawn: boolean } | null {
    const entry = this.#pending.get(id);
    if (!entry) return null;
    this.#pending.delete(id);
    if (entry.timer !== undefined) this.#timers.clearTimeout(entry.timer);
    const withdrawn = entry.ticket.withdraw();
    if (!withdrawn) this.#tombstone(id, { reason, onSettled: entry.onSettled });
    entry.reject(error);
    return { withdrawn };
  }

  /** Queues a notification; the ticket withdraws it while no byte of it was written. */
  notify(method: string, params: unknown): SendTicket {
    if (this.#closed) throw this.#closed;
    const message: Message = params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
    const frame = encodeFrame(message);
    const direct = this.#transport.direct;
    return direct ? direct(message) : this.#transport.send(frame);
  }

  /** Feeds one decoded, validated envelope from the other side. */
  receive(envelope: Envelope): void {
    if (this.#closed) return;
    switch (envelope.kind) {
      case "response":
        this.#settle(envelope.message);
        return;
      case "notification":
        this.#onNotification?.(envelope.message);
        return;
      case "request":
        this.#dispatch(envelope.message);
        return;
    }
  }

  /** Answers a request that could not be parsed into an envelope (id may be null). */
  replyError(id: JsonRpcId | null, code: number, message: string): void {
    if (this.#closed) return;
    this.#post({ jsonrpc: "2.0", id, error: { code, message } }, null);
  }

  /** Ends the peer: every pending request is rejected with `error`; later input is ignored. */
  close(error: Error): void {
    if (this.#closed) return;
    this.#closed = error;
    const entries = this.#pending.values();
    this.#pending.clear();
    for (const entry of entries) {
      if (entry.timer !== undefined) this.#timers.clearTimeout(entry.timer);
      entry.reject(error);
    }
  }

  #tombstone(id: number, tombstone: Tombstone): void {
    this.#tombstones.set(id, tombstone);
    if (this.#tombstones.size > MAX_CHILD_IDS_PER_GENERATION) {
      const oldest = this.#tombstones.keys().next();
      if (!oldest.done) this.#tombstones.delete(oldest.value);
    }
  }

  #settle(message: Envelope["message"] & { id: JsonRpcId | null }): void {
    const response = message as Extract<Envelope, { kind: "response" }>["message"];
    const id = response.id;
    if (id === null) {
      const text = isErrorResponse(response) ? response.error.message : "";
      this.#onDiagnostic({ kind: "error_response_without_id", message: text });
      return;
    }
    const entry = typeof id === "number" ? this.#pending.get(id) : undefined;
    if (!entry || typeof id !== "number") {
      const tomb = typeof id === "number" ? this.#tombstones.get(id) : undefined;
      if (tomb !== undefined && typeof id === "number") {
        const told = tomb.onSettled;
        tomb.onSettled = undefined;
        told?.("late", id);
        const late = { kind: "late_response", id, reason: tomb.reason } as const;
        this.#onDiagnostic(isErrorResponse(response) ? { ...late, errorCode: response.error.code } : late);
      } else this.#onDiagnostic({ kind: "unknown_response", id });
      return;
    }
    this.#pending.delete(id);
    if (entry.timer !== undefined) this.#timers.clearTimeout(entry.timer);
    entry.onSettled?.("answered", id);
    if (isErrorResponse(response))
      entry.reject(new WireError(response.error.code, response.error.message, response.error.data));
    else entry.resolve(response.result);
  }

  #dispatch(request: RequestMessage): void {
    const handler = this.#onRequest;
    if (!handler) {
      this.replyError(request.id, ErrorCode.MethodNotFound, `method not found: ${request.method}`);
      return;
    }
    let outcome: unknown;
    try {
      outcome = handler(request);
    } catch (err) {
      this.#replyFailure(request, err);
      return;
    }
    // A handler that answered with a value is replied to now: no promise per request on the fast path.
    if (!isThenable(outcome)) {
      this.#replyResult(request, outcome);
      return;
    }
    Promise.resolve(outcome).then(
      (result) => this.#replyResult(request, result),
      (err: unknown) => this.#replyFailure(request, err),
    );
  }

  #replyResult(request: RequestMessage, result: unknown): void {
    if (this.#closed) return;
    const reply: Message = { jsonrpc: "2.0", id: request.id, result: result === undefined ? null : result };
    let frame: string;
    try {
      frame = encodeFrame(reply);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.#onDiagnostic({ kind: "response_too_large", method: request.method, message });
      this.replyError(request.id, ErrorCode.InternalError, `result of ${request.method} could not be sent: ${message}`);
      return;
    }
    this.#post(reply, frame);
  }

  #replyFailure(request: RequestMessage, err: unknown): void {
    if (this.#closed) return;
    if (!(err instanceof WireError)) {
      this.#onDiagnostic({
        kind: "handler_failed",
        method: request.method,
        message: err instanceof Error ? err.message : String(err),
      });
    }
    const error = toWireError(err);
    let reply: Message = { jsonrpc: "2.0", id: request.id, error };
    let frame: string;
    try {
      frame = encodeFrame(reply);
    } catch {
      // The error's data could not be sent (too large or not JSON): send the code and message only.
      reply = { jsonrpc: "2.0", id: request.id, error: { code: error.code, message: error.message.slice(0, 4096) } };
      frame = encodeFrame(reply);
    }
    this.#post(reply, frame);
  }

  /**
   * A message whose frame was made (and so proved within the bound), or null to make it here: the
   * message itself to a direct transport, else its frame. A throw from the receiver is its own, not
   * an encoding failure.
   */
  #post(message: Message, frame: string | null): void {
    const text = frame ?? encodeFrame(message);
    const direct = this.#transport.direct;
    if (direct) direct(message);
    else this.#transport.send(text);
  }
}

/** Whether a handler's value is a promise (or any thenable) to wait for, not the answer itself. */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (value !== null &&
      (typeof value === "object" || typeof value === "function") &&
      typeof (value as { then?: unknown }).then === "function")
  );
}
