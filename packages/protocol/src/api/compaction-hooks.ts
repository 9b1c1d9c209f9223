/**
 * The native compaction hooks of API 0.4 (W 1.11, WAVE1-40; W 2.21c, SCOMP-14):
 * session_before_compact and session_compact travel as ordinary hook/run, declared in
 * contributes.hooks, with session_entries negotiated, awaited one after another like the
 * model-turn hooks (turn-hooks.ts). They are not the advisory lifecycle notifications.
 *
 * - session_before_compact sees the prepared local compaction (the cut, the size, the
 *   instructions) before the summarizer is asked; session_operation {action:"cancel"} vetoes it
 *   (the compaction is refused, nothing is committed).
 * - session_compact observes the compaction entry actually committed; it may only continue. Its
 *   failure leaves the entry in place (the checkpoint) and is never retried or rolled back.
 *
 * Anything else is refused, as for the model-turn hooks: a deny, replace_compaction (we have no
 * replacement path), a non-empty context, or a member an ordinary hook result does not have.
 */
import { member, readInteger, readObject, readOneOf, readString, refuse } from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import type { ExecutionContext, ExtensionNotification } from "./types.js";
import { checkOperationHookResult } from "./operation-hook-result.js";
import { checkContext } from "./validate-params.js";

export const COMPACTION_HOOKS = ["session_before_compact", "session_compact"] as const;
export type CompactionHook = (typeof COMPACTION_HOOKS)[number];

export function isCompactionHook(name: unknown): name is CompactionHook {
  return typeof name === "string" && (COMPACTION_HOOKS as readonly string[]).includes(name);
}

export interface BeforeCompactPayload {
  kind: "session_before_compact";
  session_id: string;
  /** The entry from which the recent part is kept verbatim. */
  first_kept: string;
  /** The context's size before compaction (estimated tokens). */
  tokens_before: number;
  custom_instructions: string | null;
  timestamp_ms: number;
}

export interface AfterCompactPayload {
  kind: "session_compact";
  session_id: string;
  /** The committed compaction entry, as the session file holds it. */
  compaction_entry: {
    id: string;
    parent: string | null;
    timestamp_unix_ms: number;
    summary: string;
    first_kept: string;
    tokens_before: number;
  };
  timestamp_ms: number;
}

export type CompactionHookPayload = BeforeCompactPayload | AfterCompactPayload;

export interface CompactionHookParams {
  hook: CompactionHook;
  payload: CompactionHookPayload;
  context: ExecutionContext;
}

export interface CompactionHookResult {
  notifications: ExtensionNotification[];
  /** session_before_compact only: the hook vetoed the compaction. */
  cancel: boolean;
}

/** hook/run params of a compaction hook, as the SDK reads them: the payload's fixed members checked. */
export function validateCompactionHookParams(value: unknown): Checked<CompactionHookParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const hook = readOneOf(p, "hook", member(obj, "hook"), COMPACTION_HOOKS);
  const payload = readObject(p, "payload", member(obj, "payload"));
  const context = checkContext(p, member(obj, "context"));
  if (payload !== undefined && hook !== undefined) {
    if (member(payload, "kind") !== hook) p.add("payload.kind", `expected ${JSON.stringify(hook)}`);
    readString(p, "payload.session_id", member(payload, "session_id"), { nonBlank: true });
    readInteger(p, "payload.timestamp_ms", member(payload, "timestamp_ms"), 0);
    if (hook === "session_before_compact") {
      readString(p, "payload.first_kept", member(payload, "first_kept"), { nonBlank: true });
      readInteger(p, "payload.tokens_before", member(payload, "tokens_before"), 0);
      const instructions = member(payload, "custom_instructions");
      if (instructions !== null) readString(p, "payload.custom_instructions", instructions);
    } else {
      const entry = readObject(p, "payload.compaction_entry", member(payload, "compaction_entry"));
      if (entry !== undefined) {
        readString(p, "payload.compaction_entry.id", member(entry, "id"), { nonBlank: true });
        readString(p, "payload.compaction_entry.summary", member(entry, "summary"));
        readString(p, "payload.compaction_entry.first_kept", member(entry, "first_kept"), { nonBlank: true });
      }
    }
  }
  if (!p.ok || hook === undefined || payload === undefined || context === undefined) return refuse(p);
  return { ok: true, value: { hook, payload: payload as unknown as CompactionHookPayload, context } };
}

/** A compaction hook's result: continue (or, before, cancel), no context, no other effect. */
export function validateCompactionHookResult(value: unknown, hook: CompactionHook): Checked<CompactionHookResult> {
  return checkOperationHookResult(value, hook, hook === "session_before_compact");
}
