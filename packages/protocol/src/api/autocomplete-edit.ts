/**
 * Applying one autocomplete item to an editor snapshot (W 2.24b, ACMP-11, ACMP-13..15): with
 * start = cursor - bytes(prefix) and end = cursor + replace_after_bytes, text[start..end] is
 * replaced with value and the cursor lands at start + cursor_offset_bytes, measured within the
 * inserted value. Every offset must be a UTF-8 boundary, the prefix the exact suffix before the
 * cursor, and the result within the 256 KiB editor budget; anything else is refused, never moved.
 * Absent fields take the base defaults (the GAP of ACMP-11): replace nothing after the cursor,
 * and place the cursor after the value. Offsets are UTF-8 bytes, as on the wire.
 */
import { utf8ByteLength } from "../validate/kit.js";
import { byteToIndex, MAX_COMPOSER_BYTES, type AutocompleteItem } from "./validate-frontend.js";

export interface EditorSnapshot {
  text: string;
  /** UTF-8 byte offset. */
  cursor: number;
}

export type AppliedEdit = { ok: true; text: string; cursor: number } | { ok: false; problem: string };

export function applyAutocompleteEdit(
  snapshot: EditorSnapshot,
  prefix: string,
  item: Pick<AutocompleteItem, "value" | "replace_after_bytes" | "cursor_offset_bytes">,
): AppliedEdit {
  const { text, cursor } = snapshot;
  const total = utf8ByteLength(text);
  if (total > MAX_COMPOSER_BYTES)
    return { ok: false, problem: `the snapshot is ${total} bytes, over the ${MAX_COMPOSER_BYTES}-byte limit` };
  const at = byteToIndex(text, cursor);
  if (at === undefined) return { ok: false, problem: `cursor ${cursor} is not a UTF-8 boundary of the text` };
  if (!text.slice(0, at).endsWith(prefix))
    return { ok: false, problem: "prefix is not the exact suffix of the text before the cursor" };
  const start = cursor - utf8ByteLength(prefix);
  const end = cursor + (item.replace_after_bytes ?? 0);
  const startAt = byteToIndex(text, start);
  const endAt = end <= total ? byteToIndex(text, end) : undefined;
  if (startAt === undefined) return { ok: false, problem: `start ${start} is not a UTF-8 boundary` };
  if (endAt === undefined)
    return { ok: false, problem: `end ${end} is past the ${total}-byte text or not a UTF-8 boundary` };
  const valueBytes = utf8ByteLength(item.value);
  const offset = item.cursor_offset_bytes ?? valueBytes;
  if (offset > valueBytes || byteToIndex(item.value, offset) === undefined)
    return {
      ok: false,
      problem: `cursor_offset_bytes ${offset} is not a UTF-8 boundary of the ${valueBytes}-byte value`,
    };
  const next = text.slice(0, startAt) + item.value + text.slice(endAt);
  const nextBytes = utf8ByteLength(next);
  if (nextBytes > MAX_COMPOSER_BYTES)
    return { ok: false, problem: `the result is ${nextBytes} bytes, over the ${MAX_COMPOSER_BYTES}-byte limit` };
  return { ok: true, text: next, cursor: start + offset };
}
