/**
 * The optional features the host binds without an embedder service (INIT-29): progress (with
 * decoration, whose bounds are defined, INIT-47), lifecycle events (emitLifecycle),
 * runtime_commands (a fixed per-generation command list), and on API 0.4 prompt metadata. Their
 * messages ($/progress, lifecycle notifications) are the generation's own, not a module's.
 */
import { isNegotiated, type ApiVersion } from "@octet/protocol";
import { defineModule } from "../module.js";

export function offeredOptionalFeatures(api: ApiVersion): string[] {
  const features = ["request_progress", "progress_decoration", "lifecycle_events", "runtime_commands"];
  if (api === "0.4") features.push("tool_prompt_metadata_v1");
  return features;
}

export const coreModule = defineModule<true>({
  feature: "core",
  offer: (_m, api) => (isNegotiated(api) ? offeredOptionalFeatures(api) : null),
  open: () => null,
  childRequests: [],
  childNotifications: [],
});
