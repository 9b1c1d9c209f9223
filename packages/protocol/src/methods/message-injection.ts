/**
 * message_injection (W 2.22, W 1.11) and active_tools (W 2.23): an extension places messages in
 * the foreground session and sets the model's active tools; the host streams the model's text to
 * it in coalesced message/updated batches, each message ended by message/settled. Both
 * notifications are gated on message_injection (WAVE1-07: the text names no feature for them).
 */
import { validateEmptyResult } from "../api/validate-session-entries.js";
import {
  validateMessageSettled,
  validateMessageUpdated,
  validateSendMessageParams,
  validateSendUserMessageParams,
  validateSetActiveToolsParams,
} from "../api/validate-message-injection.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

export const SESSION_SEND_MESSAGE = {
  method: "session/send_message",
  direction: "child->host",
  kind: "request",
  feature: "message_injection",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateSendMessageParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const SESSION_SEND_USER_MESSAGE = {
  method: "session/send_user_message",
  direction: "child->host",
  kind: "request",
  feature: "message_injection",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateSendUserMessageParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const MESSAGE_UPDATED = {
  method: "message/updated",
  direction: "host->child",
  kind: "notification",
  feature: "message_injection",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateMessageUpdated,
} as const satisfies MethodSpec;

export const MESSAGE_SETTLED = {
  method: "message/settled",
  direction: "host->child",
  kind: "notification",
  feature: "message_injection",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateMessageSettled,
} as const satisfies MethodSpec;

export const TOOLS_SET_ACTIVE = {
  method: "tools/set_active",
  direction: "child->host",
  kind: "request",
  feature: "active_tools",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateSetActiveToolsParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const MESSAGE_INJECTION_METHODS: readonly MethodSpec[] = [
  SESSION_SEND_MESSAGE,
  SESSION_SEND_USER_MESSAGE,
  MESSAGE_UPDATED,
  MESSAGE_SETTLED,
  TOOLS_SET_ACTIVE,
];
