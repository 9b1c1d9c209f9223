/**
 * What the model sees of a session path. With a compaction on the path (the latest one), the
 * summary comes first as a user message, then the entries from first_kept up to the compaction,
 * then everything after it. Only messages, custom_message and branch_summary entries and the
 * user's `!` commands (bash_execution, as pi's text of them) are context; a `!!` command,
 * custom, session_info, label and model_change entries are bookkeeping.
 */
import type { Message } from "@mariozechner/pi-ai";
import type { BashExecutionEntry, CompactionEntry, SessionEntry } from "./types.js";

/** The text the compaction summary is sent under. */
export const COMPACTION_SUMMARY_PREFIX = "The conversation before this point was summarized:\n\n";

/** The text a branch summary is sent under (pi's BRANCH_SUMMARY_PREFIX and suffix). */
export const BRANCH_SUMMARY_PREFIX =
  "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";

/** A user `!` command as the model reads it: pi's wording (bashExecutionToText), so prompts carry over. */
export function bashExecutionText(
  e: Pick<BashExecutionEntry, "command" | "output" | "exit_code" | "cancelled">,
): string {
  let text = `Ran \`${e.command}\`\n`;
  text += e.output !== "" ? `\`\`\`\n${e.output}\n\`\`\`` : "(no output)";
  if (e.cancelled) text += "\n\n(command cancelled)";
  else if (e.exit_code !== null && e.exit_code !== 0) text += `\n\nCommand exited with code ${e.exit_code}`;
  return text;
}

function toMessage(e: SessionEntry): Message | null {
  if (e.type === "message") return e.message;
  if (e.type === "branch_summary")
    return { role: "user", content: `${BRANCH_SUMMARY_PREFIX}${e.summary}</summary>`, timestamp: e.timestamp_unix_ms };
  if (e.type === "bash_execution")
    return e.exclude_from_context
      ? null
      : { role: "user", content: bashExecutionText(e), timestamp: e.timestamp_unix_ms };
  if (e.type === "custom_message") return { role: "user", content: e.content, timestamp: e.timestamp_unix_ms };
  return null;
}

export function buildContext(path: readonly SessionEntry[]): {
  messages: Message[];
  compaction: CompactionEntry | null;
} {
  let at = -1;
  for (let i = path.length - 1; i >= 0; i--) {
    if (path[i]?.type === "compaction") {
      at = i;
      break;
    }
  }
  const compaction = at >= 0 ? (path[at] as CompactionEntry) : null;
  let chosen: readonly SessionEntry[] = path;
  const messages: Message[] = [];
  if (compaction !== null) {
    messages.push({
      role: "user",
      content: `${COMPACTION_SUMMARY_PREFIX}${compaction.summary}`,
      timestamp: compaction.timestamp_unix_ms,
    });
    const kept = path.findIndex((e, i) => i < at && e.id === compaction.first_kept);
    // A first_kept off this path keeps nothing from before the compaction: the summary covers it.
    chosen = [...(kept >= 0 ? path.slice(kept, at) : []), ...path.slice(at + 1)];
  }
  // A tool result is only sent after the assistant message that made its call; one whose call
  // was cut off (by compaction or a branch) would be refused by the provider.
  const calls = new Set<string>();
  for (const e of chosen) {
    const m = toMessage(e);
    if (m === null) continue;
    if (m.role === "assistant") for (const p of m.content) if (p.type === "toolCall") calls.add(p.id);
    if (m.role === "toolResult" && !calls.has(m.toolCallId)) continue;
    messages.push(m);
  }
  return { messages, compaction };
}
