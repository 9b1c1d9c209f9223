/**
 * The shell's own check of one completion choice (W 2.24b, ACMP-16, ACMP-18), run when a choice
 * is displayed and again when it is accepted: the wire's range, UTF-8 and budget checks
 * (applyAutocompleteEdit), then what this one-line native editor can represent. Its cursor sits
 * between grapheme clusters (Intl.Segmenter), so a start, end or resulting cursor that splits one
 * ("e\u0301", an emoji ZWJ sequence) is refused, as is a line break it cannot hold; the edit is
 * refused rather than moved to the nearest place the editor could show.
 */
import { applyAutocompleteEdit, byteToIndex, utf8ByteLength, type AutocompleteItem } from "@octet/protocol";

export interface CheckedChoice {
  ok: true;
  text: string;
  /** The new cursor as a string index (what readline's cursor is). */
  index: number;
}

export type ChoiceCheck = CheckedChoice | { ok: false; problem: string };

type Edit = Pick<AutocompleteItem, "value" | "replace_after_bytes" | "cursor_offset_bytes">;

/** The edit `item` makes to the snapshot (cursor in UTF-8 bytes), or why the native editor refuses it. */
export function checkChoice(snapshot: { text: string; cursor: number }, prefix: string, item: Edit): ChoiceCheck {
  const edit = applyAutocompleteEdit(snapshot, prefix, item);
  if (!edit.ok) return edit;
  const { text, cursor } = snapshot;
  const start = cursor - utf8ByteLength(prefix);
  const end = cursor + (item.replace_after_bytes ?? 0);
  for (const [name, byte] of [
    ["start", start],
    ["end", end],
  ] as const) {
    const at = byteToIndex(text, byte) as number; // a UTF-8 boundary: applyAutocompleteEdit checked it
    if (!graphemeBoundary(text, at)) return { ok: false, problem: `${name} ${byte} splits a grapheme cluster` };
  }
  if (/[\r\n]/.test(edit.text)) return { ok: false, problem: "the one-line editor cannot hold a line break" };
  const index = byteToIndex(edit.text, edit.cursor) as number;
  if (!graphemeBoundary(edit.text, index))
    return { ok: false, problem: `the new cursor ${edit.cursor} splits a grapheme cluster` };
  return { ok: true, text: edit.text, index };
}

/** Code units on each side of an index that decide whether it is a grapheme boundary. */
const WINDOW = 256;
const SEGMENTER = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * Whether string index `index` of `text` falls between grapheme clusters. Only a window around it
 * is segmented: ICU's segmenter is slow on long runs (seconds over a 256 KiB line), and a cluster
 * is decided by its neighbourhood.
 */
export function graphemeBoundary(text: string, index: number): boolean {
  if (index === 0 || index === text.length) return true;
  const lo = Math.max(0, index - WINDOW);
  const window = text.slice(lo, Math.min(text.length, index + WINDOW));
  return SEGMENTER.segment(window).containing(index - lo)?.index === index - lo;
}
