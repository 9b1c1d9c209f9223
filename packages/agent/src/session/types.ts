/**
 * The shapes of a session file: one header line, then entries that form a tree through
 * parent_id. Field names are ours (snake_case, unix-ms timestamps); the layout follows pi's
 * session format where it fits. `message` holds pi-ai's Message unchanged, so a request can be
 * rebuilt from the file without translation.
 */
import type { Message } from "@mariozechner/pi-ai";

export type { Message };

/** The file format version written in every header; a reader refuses any other. */
export const SESSION_VERSION = 1;

/** Line 1 of a session file. Not part of the tree. */
export interface SessionHeader {
  type: "session";
  version: typeof SESSION_VERSION;
  /** A UUID; `octet --resume` takes it or a unique prefix of it. */
  id: string;
  timestamp_unix_ms: number;
  /** The absolute workspace path the session belongs to. */
  cwd: string;
  /** The session file this one was started from (a new session or a fork: pi's parentSession). */
  parent_session?: string;
}

/** Plain JSON: what `custom.data` and `compaction.details` may hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Fields every entry has; assigned by SessionFile.append, never by the caller. */
export interface EntryBase {
  /** 12 lowercase hex digits, unique in the file. */
  id: string;
  /** The entry this one follows; null for the first entry (a root). */
  parent_id: string | null;
  timestamp_unix_ms: number;
}

/** A user message, an assistant message (content, usage, stopReason, model) or a tool result. */
export interface MessageEntry extends EntryBase {
  type: "message";
  message: Message;
}

/** Everything before `first_kept` is replaced in context by `summary`. */
export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  /** The id of the first entry still sent as it is. */
  first_kept: string;
  tokens_before: number;
  details?: { [key: string]: JsonValue };
}

/** Extension state. Never sent to the model. */
export interface CustomEntry extends EntryBase {
  type: "custom";
  entry_type: string;
  data: JsonValue;
  extension?: string;
}

/** A message an extension places in the conversation; sent to the model as a user message. */
export interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  entry_type: string;
  content: string;
  /** Whether a frontend shows it in the transcript. */
  display: boolean;
  extension?: string;
  /** The role an extension gave it (session/send_message); it is still sent to the model as user text. */
  role?: "assistant" | "system";
  /** What a pi extension attached for its renderer (pi's CustomMessage.details); never sent to the model. */
  details?: JsonValue;
}

/** Names the session; an empty name clears it. The latest one in the file wins. */
export interface SessionInfoEntry extends EntryBase {
  type: "session_info";
  name: string;
}

/** Labels an earlier entry; an empty label clears it. */
export interface LabelEntry extends EntryBase {
  type: "label";
  target_id: string;
  label: string;
}

/** The model used from this point on. */
export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  model_id: string;
}

/**
 * Where a tree navigation left a branch (pi's BranchSummaryEntry): the summary of the abandoned
 * branch, placed at the new position and sent to the model as a user message.
 */
export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  /** The entry the navigation went to ("root" when it went before the first entry). */
  from_id: string;
  summary: string;
  details?: JsonValue;
  /** True when a pi extension's session_before_tree gave the summary (pi's fromHook). */
  from_extension?: boolean;
}

/**
 * A command the user ran with `!` or `!!` in the shell (pi's bashExecution message): in the model's
 * context as a user message saying what ran and what it printed, unless exclude_from_context (`!!`).
 */
export interface BashExecutionEntry extends EntryBase {
  type: "bash_execution";
  command: string;
  /** The tail the run kept (or what an extension's user_bash answer gave). */
  output: string;
  /** null when it was cancelled, timed out or killed by a signal. */
  exit_code: number | null;
  cancelled: boolean;
  /** Output was dropped before `output`. */
  truncated: boolean;
  exclude_from_context: boolean;
}

export type SessionEntry =
  | MessageEntry
  | BranchSummaryEntry
  | BashExecutionEntry
  | CompactionEntry
  | CustomEntry
  | CustomMessageEntry
  | SessionInfoEntry
  | LabelEntry
  | ModelChangeEntry;

export type SessionEntryType = SessionEntry["type"];

type WithoutBase<T> = T extends EntryBase ? Omit<T, keyof EntryBase> : never;

/** What a caller passes to append(): an entry without id, parent_id and timestamp. */
export type NewEntry = WithoutBase<SessionEntry>;

/** One row of `octet sessions list`. */
export interface SessionSummary {
  id: string;
  path: string;
  workspace: string;
  /** The latest session_info name, or null when unnamed. */
  name: string | null;
  created_unix_ms: number;
  modified_unix_ms: number;
  /** Entries loaded from the file (torn or corrupt lines not counted). */
  entries: number;
  /** The text of the first user message, at most 100 characters; null when there is none. */
  first_prompt: string | null;
}
