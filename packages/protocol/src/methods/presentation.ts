/**
 * Presentation snapshots. No feature name: the host accepts them when the embedder binds the
 * service and the manifest declares contributes.presentation (the service offers no feature).
 */
import { validatePresentationUpdate } from "../api/validate-presentation.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

/** Params: validatePresentationUpdate(value, {declaredCommands}). */
export const PRESENTATION_UPDATE = {
  method: "presentation/update",
  direction: "child->host",
  kind: "notification",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validatePresentationUpdate,
} as const satisfies MethodSpec;

export const PRESENTATION_METHODS: readonly MethodSpec[] = [PRESENTATION_UPDATE];
