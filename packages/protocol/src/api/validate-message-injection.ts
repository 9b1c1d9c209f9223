/**
 * message_injection and active_tools (W 1.11, W 2.22, W 2.23; WAVE1-04..07, WAVE1-32..37): the
 * params of session/send_message, session/send_user_message and tools/set_active, and the
 * message/updated and message/settled notifications. Owns shapes and bounds; the owner check and
 * what the session does with them are the host's and the embedder's. Refusals are named as in
 * session_entries (sessionEntriesRefusal): a broken bound is `bounds_exceeded`, any other bad
 * shape `invalid_request`.
 */
import { MAX_TOOL_NAME_BYTES } from "../bounds.js";
import {
  checkCount,
  isAbsent,
  member,
  readInteger,
  readObject,
  readOneOf,
  readString,
  readStringArray,
  refuse,
  duplicates,
} from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import { readOwned, type Owned } from "./owned-params.js";

/** Injected text, either method (W 2.22, WAVE1-34). */
export const MAX_INJECTED_TEXT_BYTES = 262_144;
/** tools/set_active names (W 2.23, WAVE1-36), bounded like tools/register. */
export const MAX_ACTIVE_TOOL_NAMES = 256;
export const MAX_ACTIVE_TOOL_NAME_BYTES = MAX_TOOL_NAME_BYTES;
/** message/updated coalescing (W 1.11, WAVE1-05): a batch is sent at whichever comes first. */
export const MESSAGE_BATCH_BYTES = 4_096;
export const MESSAGE_BATCH_DELTAS = 64;
export const MESSAGE_BATCH_MS = 50;
/** message/updated: the id, and the SDK-shaped array form of `deltas` (WAVE1-06). */
export const MAX_MESSAGE_ID_BYTES = 256;
export const MAX_MESSAGE_DELTA_ARRAY = 1_024;

/** The roles session/send_message admits; `user` is session/send_user_message (WAVE1-33). */
export const INJECTED_ROLES = ["assistant", "system"] as const;
export type InjectedRole = (typeof INJECTED_ROLES)[number];

export interface SendMessageParams extends Owned {
  role: InjectedRole;
  text: string;
}
export interface SendUserMessageParams extends Owned {
  text: string;
}
export interface SetActiveToolsParams extends Owned {
  names: string[];
}
/** One coalesced batch (WAVE1-04): `deltas` counts the text deltas `delta` stands for. */
export interface MessageUpdatedParams {
  message_id: string;
  delta: string;
  deltas: number;
}
export interface MessageSettledParams {
  message_id: string;
}

export function validateSendMessageParams(value: unknown): Checked<SendMessageParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  if (base === undefined) return refuse(p);
  const obj = value as Record<string, unknown>;
  const role = readOneOf(p, "role", member(obj, "role"), INJECTED_ROLES);
  const text = injectedText(p, obj);
  if (!p.ok || role === undefined || text === undefined) return refuse(p);
  return { ok: true, value: { ...base, role, text } };
}

export function validateSendUserMessageParams(value: unknown): Checked<SendUserMessageParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  if (base === undefined) return refuse(p);
  const text = injectedText(p, value as Record<string, unknown>);
  if (!p.ok || text === undefined) return refuse(p);
  return { ok: true, value: { ...base, text } };
}

export function validateSetActiveToolsParams(value: unknown): Checked<SetActiveToolsParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  if (base === undefined) return refuse(p);
  const names = readStringArray(p, "names", member(value as Record<string, unknown>, "names"));
  if (names === undefined) return refuse(p);
  if (!checkCount(p, "names", names.length, MAX_ACTIVE_TOOL_NAMES, "name")) return refuse(p);
  names.forEach((n, i) => readString(p, `names[${i}]`, n, { nonBlank: true, maxBytes: MAX_ACTIVE_TOOL_NAME_BYTES }));
  const twice = duplicates(names);
  if (twice.length > 0) p.add("names", `lists ${twice.slice(0, 8).join(", ")} more than once`);
  if (!p.ok) return refuse(p);
  return { ok: true, value: { ...base, names: [...names] } };
}

/**
 * message/updated: {message_id, delta, deltas}. `deltas` is the count; the SDK-shaped form, an
 * array of delta strings under `deltas` (alias `updates`), is accepted and read as its joined
 * text and length (WAVE1-06); an array over 1024 deltas is bounds_exceeded.
 */
export function validateMessageUpdated(value: unknown): Checked<MessageUpdatedParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const id = messageId(p, obj);
  const raw = isAbsent(member(obj, "deltas")) ? member(obj, "updates") : member(obj, "deltas");
  if (Array.isArray(raw)) {
    const parts = readStringArray(p, "deltas", raw);
    if (parts === undefined || !checkCount(p, "deltas", parts.length, MAX_MESSAGE_DELTA_ARRAY, "delta"))
      return refuse(p);
    const delta = isAbsent(member(obj, "delta")) ? parts.join("") : readString(p, "delta", member(obj, "delta"));
    if (!p.ok || id === undefined || delta === undefined) return refuse(p);
    return { ok: true, value: { message_id: id, delta, deltas: parts.length } };
  }
  const delta = readString(p, "delta", member(obj, "delta"));
  const deltas = readInteger(p, "deltas", raw, 1);
  if (!p.ok || id === undefined || delta === undefined || deltas === undefined) return refuse(p);
  return { ok: true, value: { message_id: id, delta, deltas } };
}

export function validateMessageSettled(value: unknown): Checked<MessageSettledParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const id = messageId(p, obj);
  if (!p.ok || id === undefined) return refuse(p);
  return { ok: true, value: { message_id: id } };
}

function messageId(p: Problems, obj: Record<string, unknown>): string | undefined {
  return readString(p, "message_id", member(obj, "message_id"), { nonBlank: true, maxBytes: MAX_MESSAGE_ID_BYTES });
}

function injectedText(p: Problems, obj: Record<string, unknown>): string | undefined {
  return readString(p, "text", member(obj, "text"), { nonBlank: true, maxBytes: MAX_INJECTED_TEXT_BYTES });
}
