/**
 * The members of a JSON object's top level, read from its text: what JSON.parse cannot tell,
 * because it keeps the last of two members of one name and forgets the first. The one scan behind
 * the envelope checks (rpc/envelope-text.ts) and the rpi manifest and frame checks.
 *
 * The text must already have parsed as JSON. Names are compared decoded (`"\u0069d"` is "id").
 * Linear in the text: strings are skipped whole and nesting is tracked.
 */

/**
 * Calls `visit` with each top-level member's decoded name and its value's text (the number or
 * literal up to the next delimiter; "" for a string, object or array), in order, while it
 * returns true.
 */
export function forEachTopLevelMember(text: string, visit: (name: string, valueText: string) => boolean): void {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (depth === 1) {
        const value = memberValueText(text, end + 1);
        if (value !== null && visit(JSON.parse(text.slice(i, end + 1)) as string, value) === false) return;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
}

/** The names that occur more than once among the top-level members of `text`, each once, in order. */
export function duplicateTopLevelKeys(text: string): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  forEachTopLevelMember(text, (name) => {
    if (seen.has(name)) dup.add(name);
    seen.add(name);
    return true;
  });
  return [...dup];
}

/**
 * When a colon follows `from` (after whitespace), the text of the number or literal after it (up
 * to the next delimiter; "" for a string, object or array value), else null: `from` did not end
 * a member name.
 */
export function memberValueText(text: string, from: number): string | null {
  let k = skipSpace(text, from);
  if (text.charCodeAt(k) !== 0x3a) return null;
  k = skipSpace(text, k + 1);
  let end = k;
  while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
  return text.slice(k, end);
}

/** Index of the closing quote of the string that opens at `open`. */
function stringEnd(text: string, open: number): number {
  let end = open + 1;
  while (end < text.length) {
    const d = text.charCodeAt(end);
    if (d === 0x5c) end += 2;
    else if (d === 0x22) break;
    else end++;
  }
  return end;
}

function skipSpace(text: string, k: number): number {
  while (k < text.length && isSpace(text.charCodeAt(k))) k++;
  return k;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDelimiter(c: number): boolean {
  return isSpace(c) || c === 0x2c || c === 0x7d || c === 0x5d || c === 0x22 || c === 0x7b || c === 0x5b;
}
