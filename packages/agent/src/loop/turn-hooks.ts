/**
 * The run's side of model_turn_start / model_turn_end (W 1.4b, TURN-01..14): the payloads built
 * from committed session facts, and the two calls run.ts makes. The host decides who gets them
 * (TURN-01) and refuses anything but continue (TURN-11); a failure throws and stops the run.
 *
 * The native Entry projection (TURN-06, TURN-07; a GAP the text leaves open, ours):
 *   {id, parent, timestamp_unix_ms, value: {type: "message", Assistant: {content, model, protocol}}}
 *   content: text -> {Text}, thinking -> {Thinking}, tool call -> {ToolCall: {id, name, arguments}}
 *   protocol: pi-ai's api in snake case, "openai-completions" as the text's "open_ai_chat"
 *   a tool result -> {..., value: {type: "message", User: {content: [{ToolResult: {tool_call_id,
 *   content: [{Text}], is_error}}]}}}, one entry per result, as the session stores them.
 * Nothing is invented: no usage, stop reason, response id or provider field. Signatures
 * (textSignature, thinkingSignature, thoughtSignature) are provider replay tokens, not content,
 * and are left out. Content the projection cannot carry (an image in a tool result, redacted
 * thinking whose only content is an opaque token) is refused with an error naming it, never dropped.
 */
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import type { ExtensionHost } from "@octet/host";
import type { NativeEntry } from "@octet/protocol";
import type { SessionEntry } from "../session/index.js";
import type { AgentEvent } from "./events.js";
import { noticeOf } from "./tool-runner.js";

export interface TurnHooks {
  /** Awaited before the turn's model request is prepared (TURN-04). */
  start(at: { run_id: string; turn_index: number }, signal: AbortSignal): Promise<void>;
  /** Awaited after the assistant entry and all its tool-result entries are committed (TURN-05). */
  end(
    at: { run_id: string; turn_index: number },
    assistant: SessionEntry,
    toolResults: readonly SessionEntry[],
    signal: AbortSignal,
  ): Promise<void>;
}

/** The run's turn hooks over `host`; notifications the callbacks return become notices. */
export function hostTurnHooks(host: ExtensionHost, emit: (e: AgentEvent) => void): TurnHooks {
  return {
    async start(at, signal) {
      if (!host.takesTurnHook("model_turn_start")) return;
      const payload = { kind: "model_turn_start" as const, ...at, timestamp_ms: Date.now() };
      const r = await host.runTurnHook("model_turn_start", payload, { signal });
      for (const n of r.notifications) emit(noticeOf(n));
    },
    async end(at, assistant, toolResults, signal) {
      // The projection refuses what it cannot carry; with nobody to receive it, nothing is refused.
      if (!host.takesTurnHook("model_turn_end")) return;
      const payload = {
        kind: "model_turn_end" as const,
        ...at,
        timestamp_ms: Date.now(),
        assistant_entry: nativeEntry(assistant),
        tool_result_entries: toolResults.map(nativeEntry),
      };
      const r = await host.runTurnHook("model_turn_end", payload, { signal });
      for (const n of r.notifications) emit(noticeOf(n));
    },
  };
}

/** A committed message entry as a native Entry serialization; throws for what it cannot project. */
export function nativeEntry(entry: SessionEntry): NativeEntry {
  if (entry.type !== "message") throw new Error(`entry ${entry.id} is a ${entry.type} entry, not a message`);
  const base = { id: entry.id, parent: entry.parent_id, timestamp_unix_ms: entry.timestamp_unix_ms };
  const m = entry.message;
  if (m.role === "assistant") return { ...base, value: { type: "message", Assistant: assistantValue(entry.id, m) } };
  if (m.role === "toolResult") return { ...base, value: { type: "message", User: toolResultValue(entry.id, m) } };
  throw new Error(`entry ${entry.id} is a ${m.role} message; a model turn reports assistant and tool results only`);
}

function assistantValue(id: string, m: AssistantMessage): Record<string, unknown> {
  const content = m.content.map((c, i) => {
    if (c.type === "text") return { Text: c.text };
    if (c.type === "toolCall") return { ToolCall: { id: c.id, name: c.name, arguments: c.arguments } };
    if (c.redacted === true)
      throw new Error(
        `entry ${id} content[${i}] is redacted thinking (an opaque provider token): it cannot be projected ` +
          "into a native entry, and is not dropped",
      );
    return { Thinking: c.thinking };
  });
  return { content, model: m.model, protocol: protocolOf(m.api) };
}

function toolResultValue(id: string, m: ToolResultMessage): Record<string, unknown> {
  const content = m.content.map((c, i) => {
    if (c.type === "text") return { Text: c.text };
    throw new Error(
      `entry ${id} content[${i}] is an image (${c.mimeType}): a native tool-result entry carries text only, ` +
        "so the entry is refused rather than sent without it",
    );
  });
  return { content: [{ ToolResult: { tool_call_id: m.toolCallId, content, is_error: m.isError } }] };
}

/** pi-ai's api name as a native protocol name: the text's example says "open_ai_chat" for chat completions. */
function protocolOf(api: string): string {
  if (api === "openai-completions") return "open_ai_chat";
  return api.replace(/[^A-Za-z0-9]+/g, "_").toLowerCase();
}
