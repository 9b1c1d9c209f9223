/** The session methods every API version carries: initialize, shutdown, and cancellation (0.2+). */
import { validateInitializeResult } from "../api/validate-initialize.js";
import { validateCancelParams } from "../api/validate-cancel.js";
import { ALL_VERSIONS, NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

/**
 * Params: no validator today (the host builds them; the SDKs read the fields they need).
 * Result: validateInitializeResult(value, the host's expectation).
 */
export const INITIALIZE = {
  method: "initialize",
  direction: "host->child",
  kind: "request",
  apiVersions: ALL_VERSIONS,
  validateResult: validateInitializeResult,
} as const satisfies MethodSpec;

/** Params `{}` and result `{}`: nothing to validate. */
export const SHUTDOWN = {
  method: "shutdown",
  direction: "host->child",
  kind: "request",
  apiVersions: ALL_VERSIONS,
} as const satisfies MethodSpec;

/** request_cancellation is required (INIT-14), so a negotiated wire always has it (CANCEL-01). */
export const CANCEL_REQUEST = {
  method: "$/cancelRequest",
  direction: "both",
  kind: "notification",
  feature: "request_cancellation",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateCancelParams,
} as const satisfies MethodSpec;

export const CORE_METHODS: readonly MethodSpec[] = [INITIALIZE, SHUTDOWN, CANCEL_REQUEST];
