/** session_control_v1 and session_compaction_v1 (W 2.21b, 2.21c): the active session, API 0.4 only. */
import {
  validateCompactParams,
  validateCompactResult,
  validateSwitchParams,
  validateWaitForIdleParams,
} from "../api/validate-session-control.js";
import { validateEmptyResult } from "../api/validate-session-entries.js";
import type { MethodSpec } from "./spec.js";

export const SESSION_WAIT_FOR_IDLE = {
  method: "session/wait_for_idle",
  direction: "child->host",
  kind: "request",
  feature: "session_control_v1",
  apiVersions: ["0.4"],
  validateParams: validateWaitForIdleParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const SESSION_SWITCH = {
  method: "session/switch",
  direction: "child->host",
  kind: "request",
  feature: "session_control_v1",
  apiVersions: ["0.4"],
  validateParams: validateSwitchParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const SESSION_COMPACT = {
  method: "session/compact",
  direction: "child->host",
  kind: "request",
  feature: "session_compaction_v1",
  apiVersions: ["0.4"],
  validateParams: validateCompactParams,
  validateResult: validateCompactResult,
} as const satisfies MethodSpec;

export const SESSION_CONTROL_METHODS: readonly MethodSpec[] = [SESSION_WAIT_FOR_IDLE, SESSION_SWITCH, SESSION_COMPACT];
