/** dynamic_tools: an extension changes its tool catalog at run time (CAT-*). */
import {
  validateCatalogMutationResult,
  validateToolsRegisterParams,
  validateToolsUnregisterParams,
} from "../api/validate-catalog.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

/** Params: validateToolsRegisterParams(value, api, negotiated features). */
export const TOOLS_REGISTER = {
  method: "tools/register",
  direction: "child->host",
  kind: "request",
  feature: "dynamic_tools",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateToolsRegisterParams,
  validateResult: validateCatalogMutationResult,
} as const satisfies MethodSpec;

export const TOOLS_UNREGISTER = {
  method: "tools/unregister",
  direction: "child->host",
  kind: "request",
  feature: "dynamic_tools",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateToolsUnregisterParams,
  validateResult: validateCatalogMutationResult,
} as const satisfies MethodSpec;

export const DYNAMIC_TOOL_METHODS: readonly MethodSpec[] = [TOOLS_REGISTER, TOOLS_UNREGISTER];
