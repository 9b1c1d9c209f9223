/** request_progress: $/progress events of a running host request (PROG-*). */
import { validateProgressParams } from "../api/validate-progress.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

/** Params: validateProgressParams(value, options) with the negotiated decoration and the API version. */
export const PROGRESS = {
  method: "$/progress",
  direction: "child->host",
  kind: "notification",
  feature: "request_progress",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateProgressParams,
} as const satisfies MethodSpec;

export const PROGRESS_METHODS: readonly MethodSpec[] = [PROGRESS];
