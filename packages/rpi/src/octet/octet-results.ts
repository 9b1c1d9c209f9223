/**
 * The octet answers of an rpi extension: the initialize result (its catalog and the protocol
 * selection) and tool and command results from the rpi invocation results.
 */
import {
  ErrorCode,
  REQUIRED_FEATURES,
  WireError,
  type CommandDefinition,
  type ContentPart,
  type ToolDefinition,
} from "@octet/protocol";
import type { ProtocolResult } from "../protocol/frames.js";
import type { RpiConnection } from "../host/rpi-connection.js";
import { lifecycleSubscriptions } from "./hook-mapping.js";
import { SESSION_ACTION_FEATURES } from "./session-actions.js";
import { toolDefinition } from "./late-tools.js";

export function initializeResult(
  c: RpiConnection,
  params: Record<string, unknown>,
  setProgress: (on: boolean) => void,
  /** The pi events that arrive through octet (not the session layer's): lifecycle subscriptions come from these. */
  wireEvents: readonly string[] = c.hooks(),
  session: {
    sessionActions: boolean;
    /** pi's setEditorText/getEditorText need the host's composer (the shell). */
    composer?: boolean;
    selected?: (features: readonly string[]) => void;
    /** Optional features to select when offered (dynamic_tools, shortcuts). */
    also?: readonly string[];
  } = { sessionActions: false },
): unknown {
  const api = params["api_version"];
  const protocol = params["protocol"] as
    | { version?: string; optional_features?: string[]; limits?: { max_concurrent_requests?: number } }
    | undefined;
  // pi's promptSnippet and promptGuidelines travel where the host takes prompt metadata (TDEF-09).
  const promptMetadata = api === "0.4" && (protocol?.optional_features ?? []).includes("tool_prompt_metadata_v1");
  const tools: ToolDefinition[] = c.tools().map((t) => toolDefinition(t, promptMetadata));
  // pi's registerCommand makes the description optional; octet requires one: fall back to the
  // name, as tools fall back to their label or name, rather than failing the whole load.
  const commands: CommandDefinition[] = c.commands().map((x) => ({
    name: x.name,
    description: x.description?.trim() || `/${x.name}`,
    usage: `/${x.name} [arguments]`,
  }));
  if (!protocol) return { api_version: api, tools, commands };
  const offered = new Set(protocol.optional_features ?? []);
  const features: string[] = [...REQUIRED_FEATURES];
  if (offered.has("request_progress")) features.push("request_progress");
  if (promptMetadata) features.push("tool_prompt_metadata_v1");
  const lifecycle = offered.has("lifecycle_events") ? lifecycleSubscriptions(wireEvents) : [];
  if (lifecycle.length > 0) features.push("lifecycle_events");
  // pi's session actions become Wave-1 requests (session-actions.ts); message_update needs the batches.
  if (api === "0.4") {
    for (const f of SESSION_ACTION_FEATURES)
      if (
        offered.has(f) &&
        (session.sessionActions || (f === "message_injection" && wireEvents.includes("message_update")))
      )
        features.push(f);
  }
  // pi's setEditorText/getEditorText (ui-mapping.ts), where the host has a composer (the shell).
  if (session.composer === true && offered.has("composer")) features.push("composer");
  for (const f of session.also ?? []) if (offered.has(f)) features.push(f);
  session.selected?.(features);
  setProgress(offered.has("request_progress") && api === "0.4");
  const selection: Record<string, unknown> = {
    version: protocol.version,
    features,
    limits: { max_concurrent_requests: protocol.limits?.max_concurrent_requests ?? 16 },
  };
  if (lifecycle.length > 0) selection["lifecycle_events"] = lifecycle;
  return { api_version: api, tools, commands, protocol: selection };
}

/** An AgentToolResult ({content, details, isError}) as an octet tool result. */
export function toOctetResult(
  value: unknown,
  isError: boolean,
): { content: ContentPart[]; is_error: boolean; metadata?: unknown } {
  const v = (value ?? {}) as { content?: unknown; details?: unknown; isError?: unknown };
  const content: ContentPart[] = [];
  for (const part of Array.isArray(v.content) ? v.content : []) {
    const p = (part ?? {}) as Record<string, unknown>;
    if (p["type"] === "text" && typeof p["text"] === "string") content.push({ type: "text", text: p["text"] });
    // Images travel in octet as verified artifacts; an rpi image has no artifact, so it is named, not lost silently.
    else if (p["type"] === "image")
      content.push({
        type: "text",
        text:
          `[image ${String(p["mimeType"] ?? "")}, ` +
          `${typeof p["data"] === "string" ? Math.floor((p["data"].length * 3) / 4) : 0} bytes: not shown]`,
      });
  }
  const out: { content: ContentPart[]; is_error: boolean; metadata?: unknown } = {
    content,
    is_error: isError || v.isError === true,
  };
  // pi's details are for renderers, not the model: octet's metadata is the same (no schema to meet).
  // An object travels as it is, so the agent saves it as the result's details where pi would (a
  // todo list rebuilt from its tool results reads exactly what it returned); anything else is wrapped.
  const d = v.details;
  if (d !== undefined && d !== null) out.metadata = typeof d === "object" && !Array.isArray(d) ? d : { details: d };
  return out;
}

export function toolOutcome(result: ProtocolResult): unknown {
  if (result.status === "success") return toOctetResult(result.value, false);
  if (result.status === "cancelled") throw new WireError(ErrorCode.RequestCancelled, "the tool call was cancelled");
  // A tool's failure is a result the model reads, not a transport error (pi: a throw is an error result).
  return { content: [{ type: "text", text: result.error.message }], is_error: true };
}

export function commandOutcome(result: ProtocolResult): unknown {
  if (result.status === "cancelled") throw new WireError(ErrorCode.RequestCancelled, "the command was cancelled");
  if (result.status === "error") throw new WireError(ErrorCode.InternalError, result.error.message);
  const v = result.value;
  return {
    text: typeof v === "string" ? v : v === null || v === undefined ? "" : JSON.stringify(v),
    notifications: [],
    context: [],
  };
}
