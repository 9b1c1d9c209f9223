/**
 * What an Agent reports while it works, in order: the CLI draws from these, `octet run --json`
 * prints them one per line, and an embedder subscribes to them. Snake-case members, as on the
 * wire, so the JSON form is the object itself.
 */
import type { AssistantMessage, Usage } from "@mariozechner/pi-ai";

/** How a run (one prompt and every model request and tool call it leads to) ended (LIFE-08). */
export type RunOutcome = "completed" | "failed" | "cancelled" | "denied" | "limit_reached";

export type AgentEvent =
  /** A prompt was admitted: its user entry is committed. */
  | { type: "run_start"; run_id: string; session_id: string; entry_id: string; prompt: string }
  /** before_prompt denied the prompt: nothing was committed, no model request was made. */
  | { type: "prompt_denied"; extension: string; reason: string }
  /** One model request (a logical turn, TURN-02) begins. */
  | { type: "turn_start"; run_id: string; turn_index: number; model: string }
  | { type: "text_delta"; run_id: string; turn_index: number; delta: string }
  | { type: "thinking_delta"; run_id: string; turn_index: number; delta: string }
  /** The model asked for a tool; `extension` is null for a built-in tool. */
  | {
      type: "tool_call";
      run_id: string;
      turn_index: number;
      tool_call_id: string;
      name: string;
      arguments: Record<string, unknown>;
      extension: string | null;
    }
  /** Progress of a running tool (an extension's $/progress message, or bash output so far). */
  | { type: "tool_progress"; run_id: string; tool_call_id: string; name: string; text: string }
  | {
      type: "tool_result";
      run_id: string;
      turn_index: number;
      tool_call_id: string;
      name: string;
      is_error: boolean;
      text: string;
      entry_id: string;
    }
  /** The model request ended and its assistant entry is committed. */
  | {
      type: "turn_end";
      run_id: string;
      turn_index: number;
      entry_id: string;
      stop_reason: AssistantMessage["stopReason"];
      usage: Usage;
      error: string | null;
    }
  | {
      type: "run_end";
      run_id: string;
      outcome: RunOutcome;
      /** The last assistant text of the run ("" when there was none). */
      text: string;
      turns: number;
      usage: Usage;
      error: string | null;
    }
  /** A hook's notification or a note from the agent (a renamed tool, a skipped contribution). */
  | { type: "notice"; level: "info" | "warning" | "error"; source: string; text: string }
  | { type: "compaction_start"; reason: "manual" | "threshold" | "overflow"; tokens_before: number }
  | {
      type: "compaction_end";
      entry_id: string | null;
      summary: string;
      error: string | null;
      /** The summarizer request's provider usage, once it settled with an answer. */
      usage?: Usage;
    };

export type AgentEventListener = (event: AgentEvent) => void;

export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

export function addUsage(into: Usage, u: Usage): void {
  into.input += u.input;
  into.output += u.output;
  into.cacheRead += u.cacheRead;
  into.cacheWrite += u.cacheWrite;
  into.totalTokens += u.totalTokens;
  into.cost.input += u.cost.input;
  into.cost.output += u.cost.output;
  into.cost.cacheRead += u.cost.cacheRead;
  into.cost.cacheWrite += u.cost.cacheWrite;
  into.cost.total += u.cost.total;
}
