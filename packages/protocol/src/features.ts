/**
 * Protocol feature names of the negotiated wire (API 0.2/0.4): which exist, which are required,
 * which the base offer lists, which depend on another, and the lifecycle event names. Owns the
 * vocabulary only; deciding what a host offers (a bound service behind each name) is the host's.
 */

/** Features every API 0.2/0.4 initialize must select (INIT-14, INIT-18). */
export const REQUIRED_FEATURES = ["request_cancellation", "content_parts"] as const;

/** The base optional features of an API 0.2 offer; conditional ones are appended per host (INIT-15). */
export const BASE_OPTIONAL_FEATURES = [
  "request_progress",
  "artifacts",
  "lifecycle_events",
  "policy_intents",
  "dynamic_tools",
  "runtime_commands",
] as const;

/**
 * Every feature name the text uses (INIT-47): the host recognizes exactly these strings. The
 * Wave-1 names come from INIT-44, the hook-gated API 0.4 names from INIT-43, and the *_v1 names
 * from the sections that define them. Recognizing a name offers nothing by itself.
 */
export const KNOWN_FEATURES = [
  ...REQUIRED_FEATURES,
  ...BASE_OPTIONAL_FEATURES,
  "progress_decoration",
  "approvals",
  "secrets",
  "provider_credentials",
  "agent_sessions",
  // Wave-1 (INIT-44).
  "composer",
  "shortcuts",
  "session_entries",
  "message_injection",
  "active_tools",
  "terminal_handoff",
  "autocomplete",
  // Declared but unoffered until specified (INIT-47).
  "editor_handoff",
  "remote_ui",
  // API 0.4, offered only with the matching hook declared (INIT-43).
  "compaction_strategy",
  "cache_warming_decision",
  // The *_v1 names.
  "tool_prompt_metadata_v1",
  "tool_composition_v1",
  "session_control_v1",
  "session_compaction_v1",
  "agent_model_selection_v1",
  "agent_session_events_v1",
  "agent_session_lifetime_v1",
  "autocomplete_edit_v1",
  "resource_refs_v1",
  "bulk_objects_v1",
  "octet_diagnostics_v1",
  "operation_descriptors_v1",
] as const;
export type FeatureName = (typeof KNOWN_FEATURES)[number];

const KNOWN = new Set<string>(KNOWN_FEATURES);

export function isKnownFeature(name: unknown): name is FeatureName {
  return typeof name === "string" && KNOWN.has(name);
}

/**
 * Features that may only be selected together with another one; selecting the first without the
 * second rejects initialization. Offering is a separate host rule; this table is what the
 * response must satisfy whatever was offered.
 */
export const FEATURE_DEPENDENCIES: ReadonlyArray<readonly [feature: FeatureName, requires: FeatureName]> = [
  ["session_compaction_v1", "session_control_v1"], // INIT-34
  ["agent_model_selection_v1", "agent_sessions"], // INIT-37
  ["agent_session_events_v1", "agent_sessions"], // INIT-38
  ["agent_session_lifetime_v1", "agent_sessions"], // INIT-38
  ["approvals", "policy_intents"], // INIT-39
  ["autocomplete_edit_v1", "autocomplete"], // INIT-42
];

/** The six lifecycle notifications an extension may subscribe to (INIT-24, INIT-25). */
export const LIFECYCLE_EVENTS = [
  "session/started",
  "session/settled",
  "turn/started",
  "turn/settled",
  "tool/started",
  "tool/settled",
] as const;
export type LifecycleEvent = (typeof LIFECYCLE_EVENTS)[number];
