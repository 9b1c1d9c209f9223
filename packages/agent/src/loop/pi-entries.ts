/**
 * octet's session entries in pi's SessionEntry shapes (camelCase fields, `parentId`, ISO
 * timestamps), for what pi extensions read: ctx.sessionManager (pi-session-view.ts) and the
 * entries of pi's compaction events (compaction.ts).
 */
import type { SessionEntry } from "../session/index.js";

/** One octet session entry as pi's SessionEntry. */
export function piEntry(e: SessionEntry): Record<string, unknown> {
  const base = { id: e.id, parentId: e.parent_id, timestamp: new Date(e.timestamp_unix_ms).toISOString() };
  switch (e.type) {
    case "message":
      return { type: "message", ...base, message: e.message };
    case "bash_execution":
      // pi keeps a `!` command as a message entry with its own role (BashExecutionMessage).
      return {
        type: "message",
        ...base,
        message: {
          role: "bashExecution",
          command: e.command,
          output: e.output,
          exitCode: e.exit_code ?? undefined,
          cancelled: e.cancelled,
          truncated: e.truncated,
          timestamp: e.timestamp_unix_ms,
          excludeFromContext: e.exclude_from_context,
        },
      };
    case "compaction":
      return {
        type: "compaction",
        ...base,
        summary: e.summary,
        firstKeptEntryId: e.first_kept,
        tokensBefore: e.tokens_before,
        ...(e.details !== undefined ? { details: e.details } : {}),
      };
    case "custom":
      return { type: "custom", ...base, customType: e.entry_type, data: e.data };
    case "custom_message":
      return {
        type: "custom_message",
        ...base,
        customType: e.entry_type,
        content: e.content,
        display: e.display,
        ...(e.details !== undefined ? { details: e.details } : {}),
      };
    case "session_info":
      return { type: "session_info", ...base, name: e.name };
    case "label":
      return { type: "label", ...base, targetId: e.target_id, label: e.label };
    case "model_change":
      return { type: "model_change", ...base, provider: e.provider, modelId: e.model_id };
  }
}
