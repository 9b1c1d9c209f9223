/** policy_intents (and approvals, a member of the same request): the host's policy decision on an intent. */
import { validatePolicyParams, validatePolicyResult } from "../api/validate-policy.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

export const POLICY_EVALUATE = {
  method: "policy/evaluate",
  direction: "child->host",
  kind: "request",
  feature: "policy_intents",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validatePolicyParams,
  validateResult: validatePolicyResult,
} as const satisfies MethodSpec;

export const POLICY_METHODS: readonly MethodSpec[] = [POLICY_EVALUATE];
