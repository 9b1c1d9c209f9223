/**
 * octet's session entries in pi's SessionEntry shapes (camelCase fields, `parentId`, ISO
 * timestamps), for what pi extensions read: ctx.sessionManager (pi-session-view.ts) and the
 * entries of pi's compaction events (compaction.ts).
 */
import type { JsonValue, MessageEntry, NewEntry, SessionEntry } from "../session/index.js";
import { checkNewEntry } from "../session/bounds.js";

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
    case "branch_summary":
      return {
        type: "branch_summary",
        ...base,
        fromId: e.from_id,
        summary: e.summary,
        ...(e.details !== undefined ? { details: e.details } : {}),
        ...(e.from_extension !== undefined ? { fromHook: e.from_extension } : {}),
      };
    case "model_change":
      return { type: "model_change", ...base, provider: e.provider, modelId: e.model_id };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * What a pi extension's newSession setup wrote (pi's SessionEntry shapes, ids and parents as the
 * recorder gave them) as octet entries for the new session, checked as an append checks them.
 * Throws naming the entry whose type octet has no entry for, or whose fields break a bound.
 */
export function entriesFromPi(items: readonly unknown[], now: number): SessionEntry[] {
  const out: SessionEntry[] = [];
  const ids = new Set<string>();
  let parent: string | null = null;
  for (const [i, item] of items.entries()) {
    if (!isObject(item) || typeof item["id"] !== "string") throw new Error(`setup entry ${i} has no id`);
    const str = (k: string): string => (typeof item[k] === "string" ? (item[k] as string) : "");
    let entry: NewEntry;
    switch (item["type"]) {
      case "message":
        entry = { type: "message", message: item["message"] as MessageEntry["message"] };
        break;
      case "custom":
        entry = { type: "custom", entry_type: str("customType"), data: (item["data"] ?? null) as JsonValue };
        break;
      case "custom_message":
        entry = {
          type: "custom_message",
          entry_type: str("customType"),
          content: typeof item["content"] === "string" ? item["content"] : piText(item["content"]),
          display: item["display"] !== false,
          ...(item["details"] !== undefined ? { details: item["details"] as JsonValue } : {}),
        };
        break;
      case "session_info":
        entry = { type: "session_info", name: str("name") };
        break;
      case "label":
        entry = { type: "label", target_id: str("targetId"), label: str("label") };
        break;
      case "model_change":
        entry = { type: "model_change", provider: str("provider"), model_id: str("modelId") };
        break;
      default:
        throw new Error(`setup entry ${i}: octet sessions have no ${JSON.stringify(item["type"])} entry`);
    }
    checkNewEntry(entry, (id) => ids.has(id));
    const id = item["id"];
    out.push({ ...entry, id, parent_id: parent, timestamp_unix_ms: now } as SessionEntry);
    ids.add(id);
    parent = id;
  }
  return out;
}

function piText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .filter((p) => isObject(p) && p["type"] === "text" && typeof p["text"] === "string")
    .map((p) => (p as { text: string }).text)
    .join("\n");
}
