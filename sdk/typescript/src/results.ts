/**
 * Turns what a handler returned into the wire result of its method and API version. Kept apart
 * from dispatch so the mapping is testable without a process.
 */
import type {
  ApiVersion,
  CommandResult,
  ContentPart,
  ContextContribution,
  ExtensionNotification,
  HookResult,
  RenderSegment,
  StatusContribution,
  ToolRenderResult,
  UiSurface,
} from "@octet/protocol";
import { DIAGNOSTICS_METADATA_KEY, resultDiagnostics, withProjection } from "./diagnostics.js";
import type {
  CommandReturn,
  ContextInput,
  HookReturn,
  NotificationInput,
  RenderReturn,
  StatusReturn,
  ToolReturn,
} from "./types.js";

export function toToolResult(value: ToolReturn, api: ApiVersion): Record<string, unknown> {
  const obj = typeof value === "string" ? { content: value } : value;
  if (obj === null || typeof obj !== "object")
    throw new TypeError(
      `a tool handler must return a string or { content }, got ${obj === null ? "null" : typeof obj}`,
    );
  const isError = obj.isError === true;
  // Before the 0.1 branch: diagnostics there are refused rather than silently dropped.
  const diagnostics = resultDiagnostics(obj, api);
  if (api === "0.1") {
    const text = typeof obj.content === "string" ? obj.content : textOf(obj.content);
    const out: Record<string, unknown> = { content: text, is_error: isError };
    if (obj.metadata !== undefined) out["metadata"] = obj.metadata;
    return out;
  }
  let parts: ContentPart[] = typeof obj.content === "string" ? [{ type: "text", text: obj.content }] : obj.content;
  let metadata = obj.metadata;
  if (diagnostics !== null) {
    metadata = { ...(metadata as Record<string, unknown> | undefined), [DIAGNOSTICS_METADATA_KEY]: diagnostics };
    parts = withProjection(parts, diagnostics);
  }
  const out: Record<string, unknown> = { content: parts, is_error: isError };
  if (obj.structuredContent !== undefined) out["structured_content"] = obj.structuredContent;
  if (metadata !== undefined) out["metadata"] = metadata;
  return out;
}

function textOf(parts: ContentPart[]): string {
  return parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
}

export function toNotification(n: NotificationInput): ExtensionNotification {
  return { level: n.level ?? "info", title: n.title, message: n.message };
}

export function toContext(c: ContextInput): ContextContribution {
  return { label: c.label, content: c.content, placement: c.placement ?? "prompt_suffix" };
}

export function toCommandResult(value: CommandReturn): CommandResult {
  if (typeof value === "string") return { text: value, notifications: [], context: [] };
  return {
    text: value.text,
    notifications: (value.notifications ?? []).map(toNotification),
    context: (value.context ?? []).map(toContext),
  };
}

export function toHookResult(value: HookReturn): HookResult {
  const v = value ?? {};
  return {
    disposition: v.deny !== undefined ? { action: "deny", reason: v.deny } : { action: "continue" },
    context: (v.context ?? []).map(toContext),
    notifications: (v.notifications ?? []).map(toNotification),
  };
}

/** A model-turn hook's result: the ordinary envelope, plus session_operation when the author set one. */
export function toTurnHookResult(value: HookReturn): HookResult & { session_operation?: { action: string } } {
  const result: HookResult & { session_operation?: { action: string } } = toHookResult(value);
  if (value && value.sessionOperation !== undefined) result.session_operation = value.sessionOperation;
  return result;
}

export function toStatusResult(value: StatusReturn, surface: UiSurface): StatusContribution | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return { surface, text: value, style_role: null, priority: 0 };
  return { surface, text: value.text, style_role: value.styleRole ?? null, priority: value.priority ?? 0 };
}

export function toRenderResult(value: RenderReturn): ToolRenderResult {
  const segments: RenderSegment[] = typeof value === "string" ? [{ text: value, style_role: null }] : value;
  return { segments };
}
