/**
 * The interactive frontend's wire shapes: composer/get|set|insert (W 2.19, WAVE1-14..18),
 * shortcut/register and shortcut/trigger (W 2.20, W 1.11, WAVE1-21..26) and the host-mediated
 * autocomplete (W 2.24b, ACMP-01..13). Owns shapes and bounds; ownership, the frontend and the
 * edit itself (autocomplete-edit.ts) are elsewhere. Refusal names (ERR-06): a broken bound is
 * `bounds_exceeded`, any other bad shape `invalid_request` (sessionEntriesRefusal picks it).
 */
import { isAbsent, member, readInteger, readObject, readString, refuse, rejectUnknown } from "../validate/fields.js";
import { Problems, utf8ByteLength, type Checked } from "../validate/kit.js";
import { readOwned, type Owned } from "./owned-params.js";
import { parseShortcutKey } from "./shortcut-keys.js";

/** The composer and an autocomplete snapshot: the editor handoff budget of W 2.19 (256 KiB). */
export const MAX_COMPOSER_BYTES = 262_144;
export const MAX_SHORTCUTS = 64;
export const MAX_SHORTCUT_ID_BYTES = 128;
export const MAX_SHORTCUT_KEY_BYTES = 128;
export const MAX_SHORTCUT_DESCRIPTION_BYTES = 4096;
export const MAX_AUTOCOMPLETE_ITEMS = 32;
export const MAX_AUTOCOMPLETE_FIELD_BYTES = 1024;
/** u32: the bound of replace_after_bytes and cursor_offset_bytes (ACMP-09). */
const MAX_U32 = 0xffff_ffff;

export type ComposerGetParams = Owned;
export interface ComposerTextParams extends Owned {
  text: string;
}
export interface ShortcutRegisterParams extends Owned {
  id: string;
  key: string;
  description: string;
}
export interface AutocompleteCompleteParams {
  text: string;
  cursor: number;
  revision: number;
}
export interface AutocompleteItem {
  value: string;
  label: string;
  description: string | null;
  replace_after_bytes?: number;
  cursor_offset_bytes?: number;
}
export interface AutocompleteResult {
  prefix: string;
  items: AutocompleteItem[];
}

/**
 * Control characters a text field may hold: `allowed` lists the code units let through (LF and
 * TAB for composer text; LF, TAB and CR for edit_v1 prefixes and values; none for labels). A lone
 * surrogate is refused too: it is not UTF-8 (WAVE1-17).
 */
export function checkControlFree(p: Problems, path: string, s: string, allowed: readonly number[]): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) {
      p.add(path, `lone surrogate U+${c.toString(16).toUpperCase()} at index ${i}; text must be valid UTF-8`);
      return false;
    }
    if ((c < 0x20 || (c >= 0x7f && c <= 0x9f)) && !allowed.includes(c)) {
      const hex = c.toString(16).toUpperCase().padStart(4, "0");
      p.add(path, `control character U+${hex} at index ${i} is not allowed`);
      return false;
    }
  }
  return true;
}

export function validateComposerGetParams(value: unknown): Checked<ComposerGetParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  return base !== undefined && p.ok ? { ok: true, value: base } : refuse(p);
}

/** composer/set and composer/insert: {parent_request_id, text}, text at most 256 KiB, plain (WAVE1-17). */
export function validateComposerTextParams(value: unknown): Checked<ComposerTextParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  if (base === undefined) return refuse(p);
  const text = readString(p, "text", member(value as Record<string, unknown>, "text"), {
    maxBytes: MAX_COMPOSER_BYTES,
  });
  if (text === undefined || !checkControlFree(p, "text", text, [0x0a, 0x09]) || !p.ok) return refuse(p);
  return { ok: true, value: { ...base, text } };
}

export function validateComposerGetResult(value: unknown): Checked<{ text: string }> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["text"]));
  const text = readString(p, "text", member(obj, "text"), { maxBytes: MAX_COMPOSER_BYTES });
  if (text === undefined || !p.ok) return refuse(p);
  return { ok: true, value: { text } };
}

/** shortcut/register (WAVE1-21, WAVE1-22, WAVE1-26): the key must parse as the documented syntax. */
export function validateShortcutRegisterParams(value: unknown): Checked<ShortcutRegisterParams> {
  const p = new Problems();
  const base = readOwned(p, value);
  if (base === undefined) return refuse(p);
  const obj = value as Record<string, unknown>;
  const id = readString(p, "id", member(obj, "id"), { nonBlank: true, maxBytes: MAX_SHORTCUT_ID_BYTES });
  if (id !== undefined) checkControlFree(p, "id", id, []);
  const key = readString(p, "key", member(obj, "key"), { nonBlank: true, maxBytes: MAX_SHORTCUT_KEY_BYTES });
  if (key !== undefined) {
    const parsed = parseShortcutKey(key);
    if (!parsed.ok) p.add("key", parsed.problem);
  }
  const raw = member(obj, "description");
  const description = isAbsent(raw)
    ? ""
    : readString(p, "description", raw, { maxBytes: MAX_SHORTCUT_DESCRIPTION_BYTES, plainText: true });
  if (!p.ok || id === undefined || key === undefined || description === undefined) return refuse(p);
  return { ok: true, value: { ...base, id, key, description } };
}

/** shortcut/trigger {id} (W 1.11): a plain object with a bounded id. */
export function validateShortcutTriggerParams(value: unknown): Checked<{ id: string }> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const id = readString(p, "id", member(obj, "id"), { nonBlank: true, maxBytes: MAX_SHORTCUT_ID_BYTES });
  if (id === undefined || !p.ok) return refuse(p);
  return { ok: true, value: { id } };
}

/** ui/autocomplete/register {revision: u64} (ACMP-01). */
export function validateAutocompleteRegisterParams(value: unknown): Checked<{ revision: number }> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const revision = readInteger(p, "revision", member(obj, "revision"), 0);
  if (revision === undefined || !p.ok) return refuse(p);
  return { ok: true, value: { revision } };
}

export function validateAutocompleteRegisterResult(value: unknown): Checked<{ accepted: true }> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["accepted"]));
  if (member(obj, "accepted") !== true) p.add("accepted", "must be true");
  return p.ok ? { ok: true, value: { accepted: true } } : refuse(p);
}

/** ui/autocomplete/complete {text, cursor, revision} (ACMP-02): the cursor on a character boundary. */
export function validateAutocompleteCompleteParams(value: unknown): Checked<AutocompleteCompleteParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const text = readString(p, "text", member(obj, "text"), { maxBytes: MAX_COMPOSER_BYTES });
  const cursor = readInteger(p, "cursor", member(obj, "cursor"), 0);
  const revision = readInteger(p, "revision", member(obj, "revision"), 0);
  if (text === undefined || cursor === undefined || revision === undefined || !p.ok) return refuse(p);
  if (byteToIndex(text, cursor) === undefined)
    p.add("cursor", `${cursor} is not a UTF-8 character boundary of the ${utf8ByteLength(text)}-byte text`);
  return p.ok ? { ok: true, value: { text, cursor, revision } } : refuse(p);
}

/**
 * A ui/autocomplete/complete answer checked against the exact request it answers (ACMP-03..05,
 * ACMP-09, ACMP-10, ACMP-12, ACMP-16): `editV1` says whether autocomplete_edit_v1 was negotiated.
 * The edit ranges themselves are checked by applyAutocompleteEdit when an item is applied.
 */
export function validateAutocompleteResult(
  value: unknown,
  request: AutocompleteCompleteParams,
  editV1: boolean,
): Checked<AutocompleteResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["prefix", "items"]));
  const editControls = editV1 ? [0x0a, 0x09, 0x0d] : [];
  const prefix = field(p, "prefix", member(obj, "prefix"), editControls);
  if (prefix !== undefined) {
    const before = request.text.slice(0, byteToIndex(request.text, request.cursor) ?? 0);
    if (!before.endsWith(prefix)) p.add("prefix", "is not the exact suffix of the text before the cursor");
  }
  const rawItems = member(obj, "items");
  const items: AutocompleteItem[] = [];
  if (!Array.isArray(rawItems)) p.add("items", "missing; expected an array");
  else if (rawItems.length > MAX_AUTOCOMPLETE_ITEMS)
    p.add("items", `${rawItems.length} items, over the ${MAX_AUTOCOMPLETE_ITEMS}-item limit`);
  else rawItems.forEach((raw, i) => pushItem(p, `items[${i}]`, raw, editV1, items));
  if (!p.ok || prefix === undefined) return refuse(p);
  return { ok: true, value: { prefix, items } };
}

function pushItem(p: Problems, path: string, raw: unknown, editV1: boolean, out: AutocompleteItem[]): void {
  const item = readObject(p, path, raw);
  if (item === undefined) return;
  const edits = ["replace_after_bytes", "cursor_offset_bytes"] as const;
  rejectUnknown(p, path, item, new Set(["value", "label", "description", ...(editV1 ? edits : [])]));
  const value = field(p, `${path}.value`, member(item, "value"), editV1 ? [0x0a, 0x09, 0x0d] : []);
  const label = field(p, `${path}.label`, member(item, "label"), []);
  const rawDescription = member(item, "description");
  const description =
    rawDescription === null || rawDescription === undefined
      ? null
      : field(p, `${path}.description`, rawDescription, []);
  if (value === undefined || label === undefined || description === undefined) return;
  const next: AutocompleteItem = { value, label, description };
  for (const name of edits) {
    if (!(name in item)) continue;
    const n = item[name];
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0 || n > MAX_U32)
      p.add(`${path}.${name}`, `expected an integer from 0 to ${MAX_U32}, got ${JSON.stringify(n) ?? String(n)}`);
    else next[name] = n;
  }
  out.push(next);
}

function field(p: Problems, path: string, v: unknown, controls: readonly number[]): string | undefined {
  const s = readString(p, path, v, { maxBytes: MAX_AUTOCOMPLETE_FIELD_BYTES });
  if (s === undefined || !checkControlFree(p, path, s, controls)) return undefined;
  return s;
}

/** The string index of UTF-8 byte offset `byte` of s, or undefined when it is not a character boundary. */
export function byteToIndex(s: string, byte: number): number | undefined {
  let bytes = 0;
  let i = 0;
  while (bytes < byte && i < s.length) {
    const cp = s.codePointAt(i) as number;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    i += cp >= 0x10000 ? 2 : 1;
  }
  return bytes === byte ? i : undefined;
}
