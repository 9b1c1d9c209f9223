/**
 * The six lifecycle notifications (LIFE-05..09): method names and their params, with the GAP
 * default shapes of LIFE-09. The host uses this to check what an embedder asks it to emit, the
 * SDK to read what arrives. Subscription (LIFE-04), delivery deadlines and finalizers (LIFE-10)
 * are the host's. The params are open (FRAME-15): unknown members are ignored and not carried
 * over, so what the host emits is exactly the validated shape.
 */
import { MAX_LIFECYCLE_REASON_BYTES } from "../bounds.js";
import { LIFECYCLE_EVENTS, type LifecycleEvent } from "../features.js";
import {
  at,
  isAbsent,
  member,
  quote,
  readInteger,
  readObject,
  readOneOf,
  readString,
  refuse,
} from "../validate/fields.js";
import { describe, Problems, type Checked } from "../validate/kit.js";
import type {
  LifecycleNotification,
  LifecycleOutcome,
  SessionEventParams,
  SettledFields,
  ToolEventParams,
  TurnEventParams,
} from "./types-v02.js";

/** The terminal outcomes of a session, turn or tool call (LIFE-08). */
export const LIFECYCLE_OUTCOMES: readonly LifecycleOutcome[] = [
  "completed",
  "failed",
  "cancelled",
  "interrupted",
  "frontend_disconnected",
  "shutdown",
  "limit_reached",
];

type Scope = "session" | "turn" | "tool";

/**
 * One lifecycle notification. Identifiers are non-empty strings; duration_ms is an unsigned
 * integer; an absent reason reads as null, and a present one is at most 4 KiB.
 */
export function validateLifecycleEvent(method: unknown, params: unknown): Checked<LifecycleNotification> {
  const p = new Problems();
  if (typeof method !== "string" || !(LIFECYCLE_EVENTS as readonly string[]).includes(method)) {
    const got = typeof method === "string" ? quote(method) : describe(method);
    p.add("method", `${got} is not one of the six lifecycle events`);
    return refuse(p);
  }
  const event = method as LifecycleEvent;
  const obj = readObject(p, "params", params);
  if (obj === undefined) return refuse(p);
  const [scope, phase] = event.split("/") as [Scope, "started" | "settled"];
  const ids = checkIds(p, obj, scope);
  const settled = phase === "settled" ? checkSettled(p, obj) : undefined;
  if (!p.ok || ids === undefined || (phase === "settled" && settled === undefined)) return refuse(p);
  return { ok: true, value: { method: event, params: { ...ids, ...settled } } as LifecycleNotification };
}

const SCOPE_IDS: Record<Scope, ReadonlyArray<keyof ToolEventParams>> = {
  session: ["session_id"],
  turn: ["session_id", "run_id", "turn_id"],
  tool: ["session_id", "run_id", "turn_id", "tool_call_id", "tool_name"],
};

function checkIds(
  p: Problems,
  obj: Record<string, unknown>,
  scope: Scope,
): SessionEventParams | TurnEventParams | ToolEventParams | undefined {
  const out: Record<string, string> = {};
  let ok = true;
  for (const key of SCOPE_IDS[scope]) {
    const v = readString(p, at("params", key), member(obj, key), { nonBlank: true });
    if (v === undefined) ok = false;
    else out[key] = v;
  }
  return ok ? (out as unknown as ToolEventParams) : undefined;
}

function checkSettled(p: Problems, obj: Record<string, unknown>): SettledFields | undefined {
  const outcome = readOneOf(p, "params.outcome", member(obj, "outcome"), LIFECYCLE_OUTCOMES);
  const duration = readInteger(p, "params.duration_ms", member(obj, "duration_ms"), 0);
  const raw = member(obj, "reason");
  const reason = isAbsent(raw) ? null : readString(p, "params.reason", raw, { maxBytes: MAX_LIFECYCLE_REASON_BYTES });
  if (outcome === undefined || duration === undefined || reason === undefined) return undefined;
  return { outcome, duration_ms: duration, reason };
}
