/** terminal_handoff (W 2.24): the foreground terminal lent to an extension and taken back. */
import { validateTerminalGrant, validateTerminalGrantLost, validateTerminalParams } from "../api/validate-terminal.js";
import { validateEmptyResult } from "../api/validate-session-entries.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

export const TERMINAL_ACQUIRE = {
  method: "terminal/acquire",
  direction: "child->host",
  kind: "request",
  feature: "terminal_handoff",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateTerminalParams,
  validateResult: validateTerminalGrant,
} as const satisfies MethodSpec;

export const TERMINAL_RELEASE = {
  method: "terminal/release",
  direction: "child->host",
  kind: "request",
  feature: "terminal_handoff",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateTerminalParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

/** Sent to the holder when the host takes the terminal back without being asked (TERM-07). */
export const TERMINAL_GRANT_LOST = {
  method: "terminal/grant-lost",
  direction: "host->child",
  kind: "notification",
  feature: "terminal_handoff",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateTerminalGrantLost,
} as const satisfies MethodSpec;

export const TERMINAL_METHODS: readonly MethodSpec[] = [TERMINAL_ACQUIRE, TERMINAL_RELEASE, TERMINAL_GRANT_LOST];
