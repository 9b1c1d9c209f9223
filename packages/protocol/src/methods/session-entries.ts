/** session_entries (W 2.21): an extension's entries, the session's name and entry labels. */
import {
  validateAppendEntryParams,
  validateAppendEntryResult,
  validateEmptyResult,
  validateSetLabelParams,
  validateSetNameParams,
} from "../api/validate-session-entries.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

export const SESSION_APPEND_ENTRY = {
  method: "session/append_entry",
  direction: "child->host",
  kind: "request",
  feature: "session_entries",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateAppendEntryParams,
  validateResult: validateAppendEntryResult,
} as const satisfies MethodSpec;

export const SESSION_SET_NAME = {
  method: "session/set_name",
  direction: "child->host",
  kind: "request",
  feature: "session_entries",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateSetNameParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const SESSION_SET_LABEL = {
  method: "session/set_label",
  direction: "child->host",
  kind: "request",
  feature: "session_entries",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateSetLabelParams,
  validateResult: validateEmptyResult,
} as const satisfies MethodSpec;

export const SESSION_ENTRY_METHODS: readonly MethodSpec[] = [SESSION_APPEND_ENTRY, SESSION_SET_NAME, SESSION_SET_LABEL];
