/**
 * The interactive frontend (W 2.19, W 2.20, W 1.11, W 2.24b): the composer, runtime shortcuts
 * and host-mediated autocomplete. API 0.2 and 0.4, each behind its own negotiated feature.
 */
import {
  validateAutocompleteCompleteParams,
  validateAutocompleteRegisterParams,
  validateAutocompleteRegisterResult,
  validateComposerGetParams,
  validateComposerGetResult,
  validateComposerTextParams,
  validateShortcutRegisterParams,
  validateShortcutTriggerParams,
} from "../api/validate-frontend.js";
import { validateEmptyResult } from "../api/validate-session-entries.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

const composer = {
  direction: "child->host",
  kind: "request",
  feature: "composer",
  apiVersions: NEGOTIATED_VERSIONS,
} as const;

export const COMPOSER_GET = {
  ...composer,
  method: "composer/get",
  validateParams: validateComposerGetParams,
  validateResult: validateComposerGetResult,
} as const satisfies MethodSpec;

export const COMPOSER_SET = {
  ...composer,
  method: "composer/set",
  validateParams: validateComposerTextParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const COMPOSER_INSERT = {
  ...composer,
  method: "composer/insert",
  validateParams: validateComposerTextParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

/** Sent inside the initialize request scope (REV-01's one exception, WAVE1-24). */
export const SHORTCUT_REGISTER = {
  method: "shortcut/register",
  direction: "child->host",
  kind: "request",
  feature: "shortcuts",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateShortcutRegisterParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const SHORTCUT_TRIGGER = {
  method: "shortcut/trigger",
  direction: "host->child",
  kind: "notification",
  feature: "shortcuts",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateShortcutTriggerParams,
} as const satisfies MethodSpec;

export const AUTOCOMPLETE_REGISTER = {
  method: "ui/autocomplete/register",
  direction: "child->host",
  kind: "request",
  feature: "autocomplete",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateAutocompleteRegisterParams,
  validateResult: validateAutocompleteRegisterResult,
} as const satisfies MethodSpec;

/** Result: validateAutocompleteResult(value, request, editV1), checked against the exact request. */
export const AUTOCOMPLETE_COMPLETE = {
  method: "ui/autocomplete/complete",
  direction: "host->child",
  kind: "request",
  feature: "autocomplete",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateAutocompleteCompleteParams,
} as const satisfies MethodSpec;

export const FRONTEND_METHODS: readonly MethodSpec[] = [
  COMPOSER_GET,
  COMPOSER_SET,
  COMPOSER_INSERT,
  SHORTCUT_REGISTER,
  SHORTCUT_TRIGGER,
  AUTOCOMPLETE_REGISTER,
  AUTOCOMPLETE_COMPLETE,
];
