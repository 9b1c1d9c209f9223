/**
 * The native model-turn hooks of API 0.4 (W 1.4b, TURN-01..14): model_turn_start and
 * model_turn_end travel as ordinary hook/run, with their own payloads and a narrowed result.
 *
 * The result is the ordinary envelope, optionally with session_operation {action:"continue"}
 * (TURN-10). Everything else an ordinary hook may say is refused here (TURN-11): a deny, a
 * session_operation other than continue (cancel, replace_compaction), a non-empty context, and
 * any member an ordinary hook result does not have (an unrelated effect). The caller stops the
 * run on a refusal (TURN-12); nothing is coerced into a continue.
 */
import { member, readArray, readInteger, readObject, readOneOf, readString, refuse } from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import type { ExecutionContext, ExtensionNotification } from "./types.js";
import { checkOperationHookResult } from "./operation-hook-result.js";
import { checkContext } from "./validate-params.js";

export const TURN_HOOKS = ["model_turn_start", "model_turn_end"] as const;
export type TurnHook = (typeof TURN_HOOKS)[number];

export function isTurnHook(name: unknown): name is TurnHook {
  return typeof name === "string" && (TURN_HOOKS as readonly string[]).includes(name);
}

/** A native Entry serialization (W 1.4b): id, parent, timestamp and the entry's value. */
export interface NativeEntry {
  id: string;
  parent: string | null;
  timestamp_unix_ms: number;
  value: Record<string, unknown>;
}

export interface TurnStartPayload {
  kind: "model_turn_start";
  run_id: string;
  turn_index: number;
  timestamp_ms: number;
}

export interface TurnEndPayload {
  kind: "model_turn_end";
  run_id: string;
  turn_index: number;
  timestamp_ms: number;
  assistant_entry: NativeEntry;
  tool_result_entries: NativeEntry[];
}

export type TurnPayload = TurnStartPayload | TurnEndPayload;

export interface TurnHookParams {
  hook: TurnHook;
  payload: TurnPayload;
  context: ExecutionContext;
}

export interface TurnHookResult {
  notifications: ExtensionNotification[];
}

/** hook/run params of a model-turn hook, as the SDK reads them: the payload's fixed members checked. */
export function validateTurnHookParams(value: unknown): Checked<TurnHookParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const hook = readOneOf(p, "hook", member(obj, "hook"), TURN_HOOKS);
  const payload = readObject(p, "payload", member(obj, "payload"));
  const context = checkContext(p, member(obj, "context"));
  if (payload !== undefined && hook !== undefined) {
    const kind = member(payload, "kind");
    if (kind !== hook) p.add("payload.kind", `expected ${JSON.stringify(hook)}`);
    readString(p, "payload.run_id", member(payload, "run_id"), { nonBlank: true });
    readInteger(p, "payload.turn_index", member(payload, "turn_index"), 0);
    readInteger(p, "payload.timestamp_ms", member(payload, "timestamp_ms"), 0);
    if (hook === "model_turn_end") {
      readObject(p, "payload.assistant_entry", member(payload, "assistant_entry"));
      readArray(p, "payload.tool_result_entries", member(payload, "tool_result_entries"));
    }
  }
  if (!p.ok || hook === undefined || payload === undefined || context === undefined) return refuse(p);
  return { ok: true, value: { hook, payload: payload as unknown as TurnPayload, context } };
}

/** A model-turn hook's result (TURN-10, TURN-11): continue only, no context, no other effect. */
export function validateTurnHookResult(value: unknown, hook: TurnHook): Checked<TurnHookResult> {
  const r = checkOperationHookResult(value, hook, false);
  return r.ok ? { ok: true, value: { notifications: r.value.notifications } } : r;
}
