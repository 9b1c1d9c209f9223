/**
 * session/append_entry, session/set_name and session/set_label (W 2.21, WAVE1-27..31): the params
 * an extension sends and the answers it gets. Owns shapes and bounds; the owner check and the
 * session writer are the host's. Params are open (FRAME-15); answers are closed.
 *
 * The refusal names of W 3 (ERR-06, ERR-07): a broken bound is `bounds_exceeded`, any other bad
 * shape `invalid_request`; both are -32602. sessionEntriesRefusal() picks the name, so the host
 * and the SDKs' local checks say it the same way.
 */
import {
  MAX_SESSION_ENTRY_DATA_BYTES,
  MAX_SESSION_ENTRY_ID_BYTES,
  MAX_SESSION_ENTRY_TYPE_BYTES,
  MAX_SESSION_NAME_BYTES,
  MAX_VALUE_DEPTH,
  MAX_VALUE_NODES,
} from "../bounds.js";
import { measureJson } from "../validate/json-bounds.js";
import { member, readObject, readString, refuse, rejectUnknown } from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import { readOwned, type Owned } from "./owned-params.js";

/** The optional owner triple of a Wave-1 request (WAVE1-09); a live parent's owner wins over it. */

export interface SessionAppendEntryParams extends Owned {
  entry_type: string;
  data: unknown;
}
export interface SessionAppendEntryResult {
  entry_id: string;
}
export interface SessionSetNameParams extends Owned {
  name: string;
}
export interface SessionSetLabelParams extends Owned {
  entry_id: string;
  label: string;
}

/** "bounds_exceeded" when a problem is a broken size or depth bound, else "invalid_request". */
export function sessionEntriesRefusal(problems: readonly string[]): "bounds_exceeded" | "invalid_request" {
  return problems.some((s) => / over the [0-9]+-/.test(s)) ? "bounds_exceeded" : "invalid_request";
}

export function validateAppendEntryParams(value: unknown): Checked<SessionAppendEntryParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  if (base === undefined) return refuse(p);
  const obj = value as Record<string, unknown>;
  const entryType = readString(p, "entry_type", member(obj, "entry_type"), {
    nonBlank: true,
    maxBytes: MAX_SESSION_ENTRY_TYPE_BYTES,
    plainText: true,
  });
  const raw = member(obj, "data");
  if (raw === undefined) p.add("data", "missing; expected plain JSON (null is a value)");
  else checkPlainJson(p, "data", raw);
  if (!p.ok || entryType === undefined) return refuse(p);
  return { ok: true, value: { ...base, entry_type: entryType, data: raw } };
}

export function validateSetNameParams(value: unknown): Checked<SessionSetNameParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  if (base === undefined) return refuse(p);
  const name = readString(p, "name", member(value as Record<string, unknown>, "name"), {
    maxBytes: MAX_SESSION_NAME_BYTES,
    plainText: true,
  });
  if (!p.ok || name === undefined) return refuse(p);
  return { ok: true, value: { ...base, name } };
}

export function validateSetLabelParams(value: unknown): Checked<SessionSetLabelParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  if (base === undefined) return refuse(p);
  const obj = value as Record<string, unknown>;
  const entryId = readString(p, "entry_id", member(obj, "entry_id"), {
    nonBlank: true,
    maxBytes: MAX_SESSION_ENTRY_ID_BYTES,
    plainText: true,
  });
  const label = readString(p, "label", member(obj, "label"), { maxBytes: MAX_SESSION_NAME_BYTES, plainText: true });
  if (!p.ok || entryId === undefined || label === undefined) return refuse(p);
  return { ok: true, value: { ...base, entry_id: entryId, label } };
}

/** The session/append_entry answer: exactly {entry_id}, a non-empty id of at most 256 bytes. */
export function validateAppendEntryResult(value: unknown): Checked<SessionAppendEntryResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["entry_id"]));
  const id = readString(p, "entry_id", member(obj, "entry_id"), {
    nonBlank: true,
    maxBytes: MAX_SESSION_ENTRY_ID_BYTES,
  });
  if (!p.ok || id === undefined) return refuse(p);
  return { ok: true, value: { entry_id: id } };
}

/** The set_name / set_label answer: exactly {}. */
export function validateEmptyResult(value: unknown): Checked<Record<string, never>> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set());
  return p.ok ? { ok: true, value: {} } : refuse(p);
}

/**
 * Plain JSON of at most 64 KiB and depth 32: no function, symbol, bigint, undefined or
 * non-finite number (measureJson), and no object but a plain one (an exotic prototype: a Date,
 * a Map, a class instance, which JSON would silently reshape). Wire values are always plain;
 * the check matters for the SDKs' local refusal.
 */
export function checkPlainJson(p: Problems, path: string, value: unknown): boolean {
  const m = measureJson(
    value,
    {
      maxBytes: MAX_SESSION_ENTRY_DATA_BYTES,
      maxDepth: MAX_VALUE_DEPTH,
      maxNodes: MAX_VALUE_NODES,
    },
    path,
  );
  if (!m.ok) {
    p.add(m.path, m.message);
    return false;
  }
  const stack: { v: unknown; at: string }[] = [{ v: value, at: path }];
  while (stack.length > 0) {
    const { v, at } = stack.pop() as { v: unknown; at: string };
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      v.forEach((x, i) => stack.push({ v: x, at: `${at}[${i}]` }));
      continue;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) {
      p.add(at, "is not a plain JSON object (it has an exotic prototype)");
      return false;
    }
    for (const [k, x] of Object.entries(v)) stack.push({ v: x, at: `${at}.${k}` });
  }
  return true;
}
