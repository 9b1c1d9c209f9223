/**
 * One tool call of the model, from request to committed-ready result, with every extension
 * touchpoint in the reference's order: tool/started, before_tool_call (a deny becomes an error
 * result the model reads, HOOK-06), the call itself (a built-in tool after the approval gate, or
 * an extension's tool with the catalog snapshot the model saw, CALL-04), after_tool_call
 * (observed, never changes the result), tool/settled. Whatever happens, the model gets exactly
 * one result per call, so the session never holds a call without its result.
 */
import type { ImageContent, TextContent, ToolCall, ToolResultMessage } from "@mariozechner/pi-ai";
import type { CatalogSnapshot, ExtensionHost, ToolCallOutcome } from "@octet/host";
import { OctetError, type ProgressEvent } from "@octet/protocol";
import type { BuiltinTool, ToolApproval } from "../tools/index.js";
import type { AgentEvent } from "./events.js";
import type { PlacedContext } from "./request.js";
import type { PiEvents } from "./pi-events.js";

export interface ToolRunScope {
  host: ExtensionHost | null;
  catalog: CatalogSnapshot | null;
  builtins: ReadonlyMap<string, BuiltinTool>;
  approval: ToolApproval;
  workspace: string;
  signal: AbortSignal;
  /** Whether the model takes images in tool results (its input includes "image"). */
  images: boolean;
  ids: { session_id: string; run_id: string; turn_id: string };
  turnIndex: number;
  emit: (event: AgentEvent) => void;
  /** Context that hooks returned: it joins the run's context for the following requests. */
  addContext: (c: PlacedContext[]) => void;
  lifecycle: (method: "tool/started" | "tool/settled", params: Record<string, unknown>) => void;
  /** pi's tool events for the pi extensions that take them (pi-events.ts); absent: none. */
  pi?: PiEvents | null;
}

type Settled = "completed" | "failed" | "cancelled";

export async function runToolCall(call: ToolCall, s: ToolRunScope): Promise<ToolResultMessage> {
  const started = Date.now();
  const builtin = s.builtins.get(call.name);
  const extension = builtin ? null : (s.catalog?.entry(call.name)?.extension ?? null);
  let args = call.arguments ?? {};
  s.emit({
    type: "tool_call",
    run_id: s.ids.run_id,
    turn_index: s.turnIndex,
    tool_call_id: call.id,
    name: call.name,
    arguments: args,
    extension,
  });
  const toolIds = { ...s.ids, tool_call_id: call.id, tool_name: call.name };
  s.lifecycle("tool/started", toolIds);
  const pi = s.pi ?? null;
  if (pi?.takes("tool_execution_start"))
    await pi.observe("tool_execution_start", { toolCallId: call.id, toolName: call.name, args }, s.signal);
  let outcome: Settled = "failed";
  let result: ToolOutput;
  try {
    // pi's tool_call: a block is the model's error result; arguments a hook edited are the call's.
    const gate = pi?.takes("tool_call") ? await pi.toolCall(call.id, call.name, args, s.signal) : null;
    if (gate) args = gate.input;
    result = gate?.blocked ? errorResult(gate.blocked) : await callTool(call, args, builtin, extension, s);
    if (pi?.takes("tool_result") && !s.signal.aborted) result = await rewritten(pi, call, args, result, s.signal);
    outcome = s.signal.aborted ? "cancelled" : result.isError ? "failed" : "completed";
  } catch (err) {
    outcome = s.signal.aborted ? "cancelled" : "failed";
    result = errorResult(s.signal.aborted ? `cancelled: ${messageOf(err)}` : messageOf(err));
  }
  if (pi?.takes("tool_execution_end"))
    await pi.observe(
      "tool_execution_end",
      { toolCallId: call.id, toolName: call.name, result, isError: result.isError },
      s.signal,
    );
  const text = textOf(result.content);
  if (s.host && !s.signal.aborted) {
    const observed = await settle(
      s.host.runHook(
        "after_tool_call",
        { name: call.name, arguments: args, output: text, is_error: result.isError },
        { signal: s.signal },
      ),
    );
    if (observed) takeHookEffects(observed, s);
  }
  s.lifecycle("tool/settled", {
    ...toolIds,
    outcome,
    duration_ms: Date.now() - started,
    reason: outcome === "completed" ? null : text.slice(0, 1024),
  });
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: result.content,
    isError: result.isError,
    ...(result.details ? { details: result.details } : {}),
    timestamp: Date.now(),
  };
}

type ToolOutput = { content: (TextContent | ImageContent)[]; isError: boolean; details?: Record<string, unknown> };

/**
 * The result after pi's tool_result event: content, details and isError as the hooks left them.
 * Only text and image parts are taken (what the model can read); anything else keeps the original.
 */
async function rewritten(
  pi: PiEvents,
  call: ToolCall,
  input: Record<string, unknown>,
  result: ToolOutput,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const r = await pi.toolResult(
    {
      toolCallId: call.id,
      toolName: call.name,
      input,
      content: result.content,
      details: result.details,
      isError: result.isError,
    },
    signal,
  );
  if (r === null) return result;
  const parts = r.content.filter(
    (p): p is TextContent | ImageContent =>
      typeof p === "object" &&
      p !== null &&
      (((p as TextContent).type === "text" && typeof (p as TextContent).text === "string") ||
        ((p as ImageContent).type === "image" && typeof (p as ImageContent).data === "string")),
  );
  const details =
    typeof r.details === "object" && r.details !== null && !Array.isArray(r.details)
      ? (r.details as Record<string, unknown>)
      : undefined;
  return {
    content: parts.length === r.content.length ? parts : result.content,
    isError: r.isError,
    ...(details ? { details } : {}),
  };
}

async function callTool(
  call: ToolCall,
  args: Record<string, unknown>,
  builtin: BuiltinTool | undefined,
  extension: string | null,
  s: ToolRunScope,
): Promise<ToolOutput> {
  if (!builtin && extension === null) {
    const names = [...s.builtins.keys(), ...(s.catalog?.tools().map((t) => t.name) ?? [])];
    return errorResult(`unknown tool "${call.name}" (available: ${names.join(", ") || "none"})`);
  }
  if (s.host) {
    // Checked against the schema the model saw before any hook runs (issue 13.2): a bad argument
    // is the model's to fix, so it comes back as the result.
    const hook = await s.host.runHook(
      "before_tool_call",
      { name: call.name, arguments: args },
      { signal: s.signal, ...(s.catalog ? { catalog: s.catalog } : {}) },
    );
    takeHookEffects(hook, s);
    if (hook.denied)
      return errorResult(`the call was denied by extension ${hook.denied.extension}: ${hook.denied.reason}`);
  }
  if (builtin) {
    const refusal = await s.approval.check(builtin, args, s.signal);
    if (refusal !== null) return errorResult(refusal);
    return builtin.execute(args, {
      workspace: s.workspace,
      signal: s.signal,
      onUpdate: (text) =>
        s.emit({ type: "tool_progress", run_id: s.ids.run_id, tool_call_id: call.id, name: call.name, text }),
    });
  }
  const outcome = await s.host!.callTool(call.name, args, {
    signal: s.signal,
    ...(s.catalog ? { catalog: s.catalog } : {}),
    onProgress: (p) => {
      const text = progressText(p);
      if (text !== "")
        s.emit({ type: "tool_progress", run_id: s.ids.run_id, tool_call_id: call.id, name: call.name, text });
    },
  });
  // An extension's metadata is for renderers, not the model, as pi's details are: saved with the result.
  const m = outcome.metadata;
  const details = typeof m === "object" && m !== null && !Array.isArray(m) ? (m as Record<string, unknown>) : null;
  return { content: contentOf(outcome, s.images), isError: outcome.is_error, ...(details ? { details } : {}) };
}

/** An extension's result as the model reads it: text parts, and images when the model takes them. */
function contentOf(outcome: ToolCallOutcome, images: boolean): (TextContent | ImageContent)[] {
  const out: (TextContent | ImageContent)[] = [];
  outcome.parts.forEach((part, i) => {
    if (part.type === "text") out.push({ type: "text", text: part.text });
    else {
      const media = outcome.media?.find((m) => m.part === i);
      if (part.type === "image" && images && media)
        out.push({ type: "image", data: Buffer.from(media.bytes).toString("base64"), mimeType: media.mime_type });
      // What the model cannot take is described, not dropped silently.
      else
        out.push({
          type: "text",
          text: `[${part.type} ${part.mime_type}${part.type === "image" && part.alt ? `: ${part.alt}` : ""}${
            part.type === "audio" && part.transcript ? `: ${part.transcript}` : ""
          }]`,
        });
    }
  });
  if (out.length === 0) out.push({ type: "text", text: outcome.text });
  return out;
}

/** One line for the frontend; base64 output and partial results are for renderers, not this line. */
function progressText(p: ProgressEvent): string {
  switch (p.type) {
    case "status":
      return p.current !== undefined && p.total !== undefined
        ? `${p.message} (${p.current}/${p.total}${p.unit ? ` ${p.unit}` : ""})`
        : p.message;
    case "output":
      return p.encoding === "utf8" ? p.data : "";
    case "decoration":
      return p.detail ? `${p.label}: ${p.detail}` : p.label;
    default:
      return "";
  }
}

function takeHookEffects(
  hook: {
    context: PlacedContext[];
    notifications: { extension: string; level: string; title: string; message?: string }[];
  },
  s: ToolRunScope,
): void {
  if (hook.context.length > 0) s.addContext(hook.context);
  for (const n of hook.notifications) s.emit(noticeOf(n));
}

export function noticeOf(n: { extension: string; level: string; title: string; message?: string }): AgentEvent {
  const level = n.level === "error" ? "error" : n.level === "warning" ? "warning" : "info";
  return { type: "notice", level, source: n.extension, text: n.message ? `${n.title} — ${n.message}` : n.title };
}

/** A hook that fails is already diagnosed by the host (HOOK-10); the call goes on without it. */
async function settle<T>(p: Promise<T>): Promise<T | null> {
  try {
    return await p;
  } catch {
    return null;
  }
}

function errorResult(text: string): { content: TextContent[]; isError: true } {
  return { content: [{ type: "text", text }], isError: true };
}

export function textOf(content: readonly (TextContent | ImageContent)[]): string {
  return content
    .filter((c): c is TextContent => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

function messageOf(err: unknown): string {
  if (err instanceof OctetError) return err.message;
  return err instanceof Error ? err.message : String(err);
}
