/**
 * The host side of the conformance contract (CONTRACT.md): what every conformance extension
 * registers, per API version, and the standard frames a transcript builds on: the initialize
 * params a host would send for that extension, and the execution contexts of host requests.
 * Transcripts refer to these as the "initialize" step and the "$context" / "$owner_context" /
 * "$host" template values, so a change of the contract is made here once.
 */
import type { Json } from "./pattern.js";

export type ApiVersion = "0.1" | "0.2" | "0.4";
export const API_VERSIONS: readonly ApiVersion[] = ["0.1", "0.2", "0.4"];

/** The environment variable that tells a conformance extension which API version to speak. */
export const API_ENV = "OCTET_CONFORMANCE_API";

export const WORKSPACE = "/tmp/octet-conformance";

/** Tools of the contract, in registration order. */
export function contractTools(api: ApiVersion): string[] {
  const base = ["echo", "fail", "wire_error", "slow", "progress", "confirm", "contribute", "print"];
  if (api === "0.1") return base;
  const negotiated = [...base, "input", "structured"];
  // API 0.4 session services (CONTRACT.md): registered always, usable only when the host offers them.
  return api === "0.4"
    ? [...negotiated, "compose", "entry", "inject", "activate", "idle", "compact", "terminal", "oversize"]
    : negotiated;
}
export const CONTRACT_COMMANDS = ["greet"];
export const CONTRACT_HOOKS = ["before_prompt", "after_response", "before_tool_call", "after_tool_call"];
export const REQUIRED_FEATURES = ["request_cancellation", "content_parts"];

/** The optional features the standard initialize offers: what the transcripts exercise, no more. */
export function defaultOptionalFeatures(api: ApiVersion): string[] {
  return api === "0.4"
    ? ["request_progress", "lifecycle_events", "tool_prompt_metadata_v1"]
    : ["request_progress", "lifecycle_events"];
}

export const HOST_STATE = {
  session_id: "conformance-session",
  session_name: null,
  model: "conformance-model",
  reasoning: null,
  active_skills: [],
} as const;

export const RESOURCE_OWNER = {
  session_id: "conformance-session",
  extension_instance_id: "conformance-instance-1",
  process_generation: 1,
} as const;

/** The initialize params a host sends this contract's extension (API 0.1 without protocol). */
export function initializeParams(api: ApiVersion): Record<string, Json> {
  const params: Record<string, Json> = {
    api_version: api,
    octet_version: "0.1.0",
    extension: {
      name: "conformance",
      version: "0.1.0",
      manifest_path: `${WORKSPACE}/conformance/extension.toml`,
      source: "explicit",
    },
    workspace: WORKSPACE,
    capabilities: { filesystem: "none", process: false, network: false },
    contributes: {
      tools: contractTools(api),
      commands: CONTRACT_COMMANDS,
      hooks: CONTRACT_HOOKS,
      ui: ["status", "header", "footer"],
      context: true,
      tool_renderers: ["echo"],
      notifications: true,
      confirmations: true,
    },
    host: { ...HOST_STATE, active_skills: [] },
  };
  if (api !== "0.1") {
    params["protocol"] = {
      version: api,
      required_features: REQUIRED_FEATURES,
      optional_features: defaultOptionalFeatures(api),
      limits: { max_concurrent_requests: 64 },
    };
  }
  return params;
}

/** Named template values: "$context" (process-scoped), "$owner_context" (model tool / command), "$host". */
export function templateValues(api: ApiVersion): Map<string, Json> {
  const host: Json = { ...HOST_STATE, active_skills: [] };
  const owner: Record<string, Json> = { workspace: WORKSPACE, execution_scope: null, host };
  if (api !== "0.1") owner["resource_owner"] = { ...RESOURCE_OWNER };
  return new Map<string, Json>([
    ["context", { workspace: WORKSPACE, execution_scope: null, host: {} }],
    ["owner_context", owner],
    ["host", host],
  ]);
}
export const TEMPLATE_VALUE_NAMES: ReadonlySet<string> = new Set(["context", "owner_context", "host"]);

/**
 * Overrides merged into the standard initialize params: objects merge member by member, other
 * values replace, and "$absent" removes the member.
 */
export function mergeParams(base: Json, override: unknown): Json | undefined {
  if (override === "$absent") return undefined;
  if (!isObject(override) || !isObject(base)) return override as Json;
  const out: Record<string, Json> = { ...base };
  for (const [k, v] of Object.entries(override)) {
    const merged = mergeParams(out[k] ?? null, v);
    if (merged === undefined) delete out[k];
    else out[k] = merged;
  }
  return out;
}

function isObject(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
