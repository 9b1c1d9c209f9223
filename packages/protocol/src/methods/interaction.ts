/** The operation-scoped questions an extension asks the person through the host (REV-07): confirm, input. */
import { validateConfirmationParams } from "../api/validate-contributions.js";
import { validateInputParams, validateInputResult } from "../api/validate-input.js";
import { ALL_VERSIONS, NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

/**
 * Params: validateConfirmationParams(value, api). Result `{confirmed}`: no validator today (the
 * SDKs read `confirmed === true`).
 */
export const CONFIRMATION_REQUEST = {
  method: "confirmation/request",
  direction: "child->host",
  kind: "request",
  apiVersions: ALL_VERSIONS,
  validateParams: validateConfirmationParams,
} as const satisfies MethodSpec;

export const INPUT_REQUEST = {
  method: "input/request",
  direction: "child->host",
  kind: "request",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateInputParams,
  validateResult: validateInputResult,
} as const satisfies MethodSpec;

export const INTERACTION_METHODS: readonly MethodSpec[] = [CONFIRMATION_REQUEST, INPUT_REQUEST];
