/**
 * What an extension pushes to the host unasked, on every API version: a notification and context
 * and status contributions, each gated by the manifest's declarations (not by a feature).
 */
import {
  validateContextContribution,
  validateNotification,
  validateStatusContribution,
} from "../api/validate-contributions.js";
import { ALL_VERSIONS, type MethodSpec } from "./spec.js";

export const NOTIFICATION = {
  method: "notification",
  direction: "child->host",
  kind: "notification",
  apiVersions: ALL_VERSIONS,
  validateParams: validateNotification,
} as const satisfies MethodSpec;

export const CONTEXT_CONTRIBUTION = {
  method: "context/contribution",
  direction: "child->host",
  kind: "notification",
  apiVersions: ALL_VERSIONS,
  validateParams: validateContextContribution,
} as const satisfies MethodSpec;

export const STATUS_CONTRIBUTION = {
  method: "status/contribution",
  direction: "child->host",
  kind: "notification",
  apiVersions: ALL_VERSIONS,
  validateParams: validateStatusContribution,
} as const satisfies MethodSpec;

export const CONTRIBUTION_METHODS: readonly MethodSpec[] = [NOTIFICATION, CONTEXT_CONTRIBUTION, STATUS_CONTRIBUTION];
