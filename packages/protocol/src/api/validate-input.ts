/**
 * input/request (INPUT-01..04): the params the host receives from an extension and the answer the
 * extension receives back. Owns shapes and bounds; whether the parent is active (INPUT-01), what a
 * headless frontend answers (INPUT-06) and keeping secret answers out of every log (INPUT-05) are
 * the host's. The params are open (FRAME-15); the answer is closed, since the text says it
 * "contains exactly" value.
 */
import { MAX_INPUT_PROMPT_BYTES, MAX_INPUT_VALUE_BYTES } from "../bounds.js";
import {
  checkBytes,
  member,
  readBoolean,
  readInteger,
  readObject,
  readString,
  refuse,
  rejectUnknown,
} from "../validate/fields.js";
import { describe, Problems, type Checked } from "../validate/kit.js";
import type { InputRequestParams, InputResult } from "./types-v02.js";

const RESULT_MEMBERS = new Set(["value"]);

/**
 * input/request params. parent_request_id is a required unsigned integer, because host request
 * ids are numeric (FRAME-11); secret defaults to false.
 */
export function validateInputParams(value: unknown): Checked<InputRequestParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const parent = readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  const prompt = readString(p, "prompt", member(obj, "prompt"), { nonBlank: true, maxBytes: MAX_INPUT_PROMPT_BYTES });
  const secret = readBoolean(p, "secret", member(obj, "secret"), false);
  if (!p.ok || parent === undefined || prompt === undefined || secret === undefined) return refuse(p);
  return { ok: true, value: { parent_request_id: parent, prompt, secret } };
}

/**
 * The input/request answer: exactly {value}, a string of at most 256 KiB or null. value is
 * required: an absent value is not read as null, since null is a decision (cancelled) and an
 * answer that forgot it says nothing. A refusal never quotes the value, which may be a secret.
 */
export function validateInputResult(value: unknown): Checked<InputResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, RESULT_MEMBERS);
  const v = member(obj, "value");
  if (v === undefined) p.add("value", "missing; expected a string or null");
  else if (v !== null && typeof v !== "string") p.add("value", `expected a string or null, got ${describe(v)}`);
  else if (typeof v === "string") checkBytes(p, "value", v, MAX_INPUT_VALUE_BYTES);
  if (!p.ok || v === undefined) return refuse(p);
  return { ok: true, value: { value: v as string | null } };
}
