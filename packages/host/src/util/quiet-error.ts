/**
 * Errors that are control flow, built without a stack trace: a request cancelled, timed out or
 * refused a slot, and the subject added to an error on its way to the caller. Their stack would
 * only show the timer or abort dispatch that made them (or the catch that wraps them; the cause
 * keeps its own), and capturing one was about a fifth of the host's CPU in a cancellation storm
 * of 200 calls (issue 19). `err.stack` is then the name and message alone.
 */
import { OctetError, type OctetErrorCode } from "@octet/protocol";

export function quietError(code: OctetErrorCode, message: string, options?: { cause?: unknown }): OctetError {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    return new OctetError(code, message, options);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
