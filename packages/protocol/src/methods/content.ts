/**
 * The host's content requests of every API version: a tool call, a command, a hook, and the
 * context, status and render collections. hook/run also carries the API 0.4 advisory hooks,
 * each behind its own feature (advisory.ts); the method itself is core.
 */
import { validateContextContributions, validateStatusResult } from "../api/validate-contributions.js";
import {
  validateCommandExecuteParams,
  validateContextCollectParams,
  validateHookRunParams,
  validateStatusCollectParams,
  validateToolCallParams,
  validateToolRenderParams,
} from "../api/validate-params.js";
import {
  validateCommandResult,
  validateHookResult,
  validateRenderResult,
  validateToolResult,
} from "../api/validate-results.js";
import { ALL_VERSIONS, type MethodSpec } from "./spec.js";

/** Result: validateToolResult(value, api, tool?). */
export const TOOL_CALL = {
  method: "tool/call",
  direction: "host->child",
  kind: "request",
  apiVersions: ALL_VERSIONS,
  validateParams: validateToolCallParams,
  validateResult: validateToolResult,
} as const satisfies MethodSpec;

export const COMMAND_EXECUTE = {
  method: "command/execute",
  direction: "host->child",
  kind: "request",
  apiVersions: ALL_VERSIONS,
  validateParams: validateCommandExecuteParams,
  validateResult: validateCommandResult,
} as const satisfies MethodSpec;

/** The four hooks of every version; an advisory hook's params are validateAdvisoryHookParams. Result: (value, hook). */
export const HOOK_RUN = {
  method: "hook/run",
  direction: "host->child",
  kind: "request",
  apiVersions: ALL_VERSIONS,
  validateParams: validateHookRunParams,
  validateResult: validateHookResult,
} as const satisfies MethodSpec;

export const CONTEXT_COLLECT = {
  method: "context/collect",
  direction: "host->child",
  kind: "request",
  apiVersions: ALL_VERSIONS,
  validateParams: validateContextCollectParams,
  validateResult: validateContextContributions,
} as const satisfies MethodSpec;

/** Result: validateStatusResult(value, surface). */
export const STATUS_COLLECT = {
  method: "status/collect",
  direction: "host->child",
  kind: "request",
  apiVersions: ALL_VERSIONS,
  validateParams: validateStatusCollectParams,
  validateResult: validateStatusResult,
} as const satisfies MethodSpec;

export const TOOL_RENDER = {
  method: "tool/render",
  direction: "host->child",
  kind: "request",
  apiVersions: ALL_VERSIONS,
  validateParams: validateToolRenderParams,
  validateResult: validateRenderResult,
} as const satisfies MethodSpec;

export const CONTENT_METHODS: readonly MethodSpec[] = [
  TOOL_CALL,
  COMMAND_EXECUTE,
  HOOK_RUN,
  CONTEXT_COLLECT,
  STATUS_COLLECT,
  TOOL_RENDER,
];
