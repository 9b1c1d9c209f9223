/** Errors of the agent itself (not of an extension, not of the provider), with a code to branch on. */
export type AgentErrorCode =
  | "busy"
  | "closed"
  | "queue_full"
  | "unknown_tool"
  | "nothing_to_compact"
  /** An extension's hook cancelled the operation (pi's session_before_* `{cancel: true}`). */
  | "cancelled_by_extension"
  | "compaction_vetoed"
  | "compaction_hook_failed"
  /** A fork or tree navigation named an entry the session does not have, or one it cannot start from. */
  | "unknown_entry"
  | "invalid_entry"
  /** A thinking level that is not one of pi's (off, minimal, low, medium, high, xhigh). */
  | "invalid_thinking_level";

export class AgentError extends Error {
  override readonly name = "AgentError";
  readonly code: AgentErrorCode;
  constructor(code: AgentErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
