/** Durable sessions: one append-only JSONL file per session, entries forming a tree. */
export { SessionFile } from "./session-file.js";
export { SessionLockedError } from "./lock.js";
export type { LockInfo } from "./lock.js";
export { listSessions, latestSession, findSession, MIN_ID_PREFIX } from "./list.js";
export { buildContext, BRANCH_SUMMARY_PREFIX, COMPACTION_SUMMARY_PREFIX } from "./context.js";
export { workspaceDirName, MAX_WORKSPACE_DIR_BYTES } from "./paths.js";
export {
  MAX_ENTRY_TYPE_BYTES,
  MAX_CUSTOM_DATA_BYTES,
  MAX_DATA_DEPTH,
  MAX_NAME_BYTES,
  MAX_LABEL_BYTES,
  MAX_ENTRY_ID_BYTES,
  MAX_LINE_BYTES,
} from "./bounds.js";
export { SESSION_VERSION } from "./types.js";
export type {
  Message,
  SessionHeader,
  JsonValue,
  EntryBase,
  MessageEntry,
  BashExecutionEntry,
  CompactionEntry,
  BranchSummaryEntry,
  CustomEntry,
  CustomMessageEntry,
  SessionInfoEntry,
  LabelEntry,
  ModelChangeEntry,
  SessionEntry,
  SessionEntryType,
  NewEntry,
  SessionSummary,
} from "./types.js";
