/**
 * Checks on an envelope's JSON text that JSON.parse cannot make, because it has already thrown
 * the evidence away: a member given twice (the last one silently wins) and an id whose number
 * text is not the integer it parsed to (`2.00000000000000001` and `2e0` parse to 2). Either would
 * let one frame be read as the answer to a different request than its author's text says, so the
 * frame is refused (FRAME-01, REV-02; issue 13).
 *
 * Names are compared decoded: `"\u0069d"` is the member "id". Linear in the text: a fast path
 * for the common frame, else one scan that skips strings and tracks nesting.
 */

/** Names whose repetition matters; only they are searched on the fast path. */
const ENVELOPE_MEMBERS = ['"jsonrpc"', '"id"', '"method"', '"params"', '"result"', '"error"'];

/** The only spelling of an id number accepted: digits, no sign, fraction or exponent. */
const INTEGER_LITERAL = /^(?:0|[1-9][0-9]*)$/;

interface TopLevel {
  duplicate: string | null;
  /** The raw text of the top-level "id" member's value, when it was looked for and found. */
  idText: string | null;
}

/**
 * Why the text of a parsed envelope must be refused, or null. `numericId`: the parsed envelope
 * has a number id, whose spelling is then checked (a string id has no aliasing spelling: escapes
 * decode to one string, compared as such).
 */
export function envelopeTextProblem(text: string, numericId: boolean): string | null {
  const { duplicate, idText } = scanTopLevel(text, numericId);
  if (duplicate !== null) return `member ${JSON.stringify(duplicate)} appears more than once`;
  if (numericId && (idText === null || !INTEGER_LITERAL.test(idText))) {
    const shown = idText === null ? "?" : idText.length > 64 ? `${idText.slice(0, 64)}…` : idText;
    return `id ${shown} is not written as an integer (an id number is digits only: no sign, fraction or exponent)`;
  }
  return null;
}

/**
 * The first top-level member name that occurs twice in an object's JSON text, or null. Only
 * envelope member names are guaranteed to be found (unknown members are refused by parseEnvelope
 * anyway).
 */
export function duplicateTopLevelMember(text: string): string | null {
  return scanTopLevel(text, false).duplicate;
}

function scanTopLevel(text: string, wantId: boolean): TopLevel {
  // Fast path. Envelope member names are ASCII letters, which JSON can spell only literally or
  // as \uXXXX: with no "\u" anywhere, each member name appears in the text literally, so a name
  // whose quoted form occurs at most once cannot be duplicated, and a single "id" occurrence in
  // the text of an envelope that has an id is that member's name.
  if (!text.includes("\\u")) {
    let repeated = false;
    for (const quoted of ENVELOPE_MEMBERS) {
      const first = text.indexOf(quoted);
      if (first !== -1 && text.indexOf(quoted, first + quoted.length) !== -1) {
        repeated = true;
        break;
      }
    }
    if (!repeated) {
      const at = wantId ? text.indexOf('"id"') : -1;
      return { duplicate: null, idText: at === -1 ? null : valueText(text, at + 4) };
    }
  }
  const seen = new Set<string>();
  let idText: string | null = null;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      if (depth === 1) {
        const value = valueText(text, end + 1);
        if (value !== null) {
          const name = JSON.parse(text.slice(i, end + 1)) as string;
          if (seen.has(name)) return { duplicate: name, idText: null };
          seen.add(name);
          if (name === "id") idText = value;
        }
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) depth--;
  }
  return { duplicate: null, idText };
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

/**
 * When a colon follows `from` (after whitespace), the text of the number or literal after it (up
 * to the next delimiter; "" for a string, object or array value), else null: `from` did not end
 * a member name.
 */
function valueText(text: string, from: number): string | null {
  let k = skipSpace(text, from);
  if (text.charCodeAt(k) !== 0x3a) return null;
  k = skipSpace(text, k + 1);
  let end = k;
  while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
  return text.slice(k, end);
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
