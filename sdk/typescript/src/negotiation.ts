/**
 * The extension's side of API 0.2/0.4 feature negotiation (W 1.1, INIT-13..28, TDEF-09..14):
 * given the host's offer and what the author registered, the protocol member of the initialize
 * result and the catalog as it may be sent. Pure, so every rule is testable without a process.
 *
 * Rules: the required features always; an optional feature only when the host offered it and
 * the SDK can use it (never one that was not offered, INIT-19/20); lifecycle_events only with a
 * registered handler, subscribing exactly the handled events; tool_prompt_metadata_v1 only on API
 * 0.4 with a tool that declares prompt metadata. Without that feature the metadata is left out of
 * the catalog (it is presentation only, TDEF-14 forbids it there), rather than failing the start.
 */
import {
  REQUIRED_FEATURES,
  isPlainObject,
  type ApiVersion,
  type LifecycleEvent,
  type ToolDefinition,
} from "@octet/protocol";

export interface NegotiationInput {
  api: ApiVersion;
  /** The extension's own limit (maxConcurrentRequests). */
  maxConcurrent: number;
  /** Events with at least one registered handler, in LIFECYCLE_EVENTS order. */
  lifecycleEvents: readonly LifecycleEvent[];
  tools: readonly ToolDefinition[];
  /** The author asked for dynamic tools (ExtensionOptions.dynamicTools). */
  dynamicTools?: boolean;
  /** API 0.4 advisory hooks with a registered handler (compaction_strategy, cache_warming_decision). */
  advisoryHooks?: readonly string[];
  /** ext.shortcut() / ext.autocomplete() were used (frontend.ts). */
  shortcuts?: boolean;
  autocomplete?: boolean;
}

export interface Negotiated {
  /** initialize.result.protocol. */
  protocol: Record<string, unknown>;
  features: ReadonlySet<string>;
  maxConcurrent: number;
  /** The tool definitions to send (prompt metadata removed unless negotiated). */
  tools: ToolDefinition[];
  /** Tools whose prompt metadata was left out because the host did not offer the feature. */
  strippedPromptMetadata: string[];
}

export function negotiate(offer: unknown, input: NegotiationInput): Negotiated {
  const protocol = isPlainObject(offer) ? offer : {};
  const offered = new Set([...strings(protocol["required_features"]), ...strings(protocol["optional_features"])]);
  const features: string[] = [...REQUIRED_FEATURES];
  const select = (name: string, wanted: boolean): boolean => {
    const take = wanted && offered.has(name);
    if (take) features.push(name);
    return take;
  };
  const progress = select("request_progress", true);
  select("progress_decoration", progress);
  // ctx.publishArtifact uses it; a host offers it only with an artifacts service bound.
  select("artifacts", true);
  const lifecycle = select("lifecycle_events", input.lifecycleEvents.length > 0);
  const withMetadata = input.tools.filter(hasPromptMetadata);
  const promptMetadata = select("tool_prompt_metadata_v1", input.api === "0.4" && withMetadata.length > 0);
  select("dynamic_tools", input.dynamicTools === true);
  // The host offers each advisory hook only to a manifest declaring it (INIT-43); take it when handled.
  for (const hook of input.advisoryHooks ?? []) select(hook, input.api === "0.4");
  // ext.policy and ext.secrets: selecting an offered host service grants nothing by itself, and
  // the host offers each only with the service (and, for secrets, the manifest's names) behind it.
  select("approvals", select("policy_intents", true));
  select("secrets", true);
  // ctx.session: offered only with a session writer bound; it also gates the model-turn hooks (W 1.4b).
  select("session_entries", true);
  // ctx.session.sendMessage / sendUserMessage and the message/updated stream; ctx.tools.setActive.
  select("message_injection", true);
  select("active_tools", true);
  // ctx.sessionControl (W 2.21b, 2.21c): compaction only with control, as INIT-34 requires.
  select("session_compaction_v1", select("session_control_v1", input.api === "0.4"));
  // ctx.terminal: offered only with a frontend that owns a terminal (W 2.24).
  select("terminal_handoff", true);
  // ctx.composer always when offered; shortcuts and autocomplete only with something registered.
  select("composer", true);
  select("shortcuts", input.shortcuts === true);
  select("autocomplete_edit_v1", select("autocomplete", input.autocomplete === true) && input.api === "0.4");

  const limits = isPlainObject(protocol["limits"]) ? protocol["limits"] : {};
  const cap = limits["max_concurrent_requests"];
  const hostCap = typeof cap === "number" && Number.isFinite(cap) && cap >= 1 ? Math.floor(cap) : input.maxConcurrent;
  const maxConcurrent = Math.max(1, Math.min(input.maxConcurrent, hostCap));

  const result: Record<string, unknown> = {
    version: input.api,
    features,
    limits: { max_concurrent_requests: maxConcurrent },
  };
  if (lifecycle) result["lifecycle_events"] = [...input.lifecycleEvents];
  return {
    protocol: result,
    features: new Set(features),
    maxConcurrent,
    tools: promptMetadata ? [...input.tools] : input.tools.map(withoutPromptMetadata),
    strippedPromptMetadata: promptMetadata ? [] : withMetadata.map((t) => t.name),
  };
}

export function hasPromptMetadata(tool: ToolDefinition): boolean {
  return tool.prompt_snippet !== undefined || tool.prompt_guidelines !== undefined;
}

function withoutPromptMetadata(tool: ToolDefinition): ToolDefinition {
  if (!hasPromptMetadata(tool)) return tool;
  const { prompt_snippet: _snippet, prompt_guidelines: _guidelines, ...rest } = tool;
  return rest;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}
