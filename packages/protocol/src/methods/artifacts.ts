/** artifacts: an extension publishes a file or bytes as an artifact of its running request. */
import { validateArtifactPublishParams, validateArtifactPublishResult } from "../api/validate-artifact.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

export const ARTIFACT_PUBLISH = {
  method: "artifact/publish",
  direction: "child->host",
  kind: "request",
  feature: "artifacts",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateArtifactPublishParams,
  validateResult: validateArtifactPublishResult,
} as const satisfies MethodSpec;

export const ARTIFACT_METHODS: readonly MethodSpec[] = [ARTIFACT_PUBLISH];
