/**
 * The two error families. WireError travels as a JSON-RPC error object: a numeric code plus a
 * contract token that is the first word of the message. Local failures that never reach the wire
 * are OctetError with a string code. Messages name the offending value and the limit.
 */

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RequestCancelled: -32800,
  /** No active owner or service, ownership failure, exhausted budget, invalid operation (ERR-05). */
  Unavailable: -32002,
  /** Secret unavailable (ERR-05). */
  SecretUnavailable: -32004,
  /** Lifecycle queue or worker exhaustion (ERR-05). */
  LifecycleExhausted: -32012,
} as const;
export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Extension-specific server errors must use this range (ERR-03). */
export const SERVER_ERROR_MIN = -32099;
export const SERVER_ERROR_MAX = -32000;

export function isServerErrorCode(code: number): boolean {
  return Number.isInteger(code) && code >= SERVER_ERROR_MIN && code <= SERVER_ERROR_MAX;
}

export interface WireErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export class WireError extends Error {
  override readonly name = "WireError";
  readonly code: number;
  readonly data: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
  toJSON(): WireErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Local error codes: never sent on the wire. */
export type OctetErrorCode =
  | "frame_too_large"
  | "frame_invalid"
  | "protocol_violation"
  | "manifest_invalid"
  | "manifest_unsupported_api"
  | "version_mismatch"
  | "spawn_failed"
  | "initialize_failed"
  | "initialize_timeout"
  | "transport_closed"
  | "request_timeout"
  | "request_cancelled"
  | "not_ready"
  /** Refused before any byte was written: safe to send again elsewhere. */
  | "not_sent"
  | "unknown_tool"
  | "unknown_command"
  | "tool_conflict"
  | "invalid_result"
  | "not_enabled"
  | "not_trusted"
  | "writer_stalled"
  | "reregistration_required"
  /** A call planned against a catalog epoch of a generation that was replaced. */
  | "stale_catalog"
  | "shutdown";

export class OctetError extends Error {
  override readonly name = "OctetError";
  readonly code: OctetErrorCode;
  constructor(code: OctetErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Maps anything thrown by a handler to the wire error object sent back (the single boundary). */
export function toWireError(err: unknown): WireErrorObject {
  if (err instanceof WireError) return err.toJSON();
  const message = err instanceof Error ? err.message : String(err);
  return { code: ErrorCode.InternalError, message: message === "" ? "Internal error" : message };
}
