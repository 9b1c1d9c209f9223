/**
 * Checks on an envelope's JSON text that JSON.parse cannot make, because it has already thrown
 * the evidence away: a member given twice (the last one silently wins) and an id whose number
 * text is not the integer it parsed to (`2.00000000000000001` and `2e0` parse to 2). Either would
 * let one frame be read as the answer to a different request than its author's text says, so the
 * frame is refused (FRAME-01, REV-02; issue 13).
 *
 * Names are compared decoded: `"\u0069d"` is the member "id". Linear in the text: a fast path
 * for the common frame, else the one top-level member scan (text/json-members.ts).
 */
import { forEachTopLevelMember, memberValueText } from "../text/json-members.js";

/** Names whose repetition matters; only they are searched on the fast path. */
const ENVELOPE_NAMES = ["jsonrpc", "id", "method", "params", "result", "error"];
/**
 * Every quoted envelope name in one pass. One regular expression over the text instead of two
 * indexOf per name: in JSON text nearly every other character is a quote, so each indexOf of a
 * quoted name walked most of the frame (1.4 us for a 500-byte tool/call, more than its parse).
 */
const ENVELOPE_NAME = /"(jsonrpc|id|method|params|result|error)"/g;
const NAME_BIT: Readonly<Record<string, number>> = Object.fromEntries(ENVELOPE_NAMES.map((n, i) => [n, 1 << i]));

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
 * decode to one string, compared as such). `parsed`: the object the text parsed to, when known: a
 * member given twice is still a member of it, so only its members are searched on the fast path.
 */
export function envelopeTextProblem(text: string, numericId: boolean, parsed?: object): string | null {
  const { duplicate, idText } = scanTopLevel(text, numericId, parsed);
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

function scanTopLevel(text: string, wantId: boolean, parsed?: object): TopLevel {
  // Fast path. Envelope member names are ASCII letters, which JSON can spell only literally or
  // as \uXXXX: with no "\u" anywhere, each member name appears in the text literally, so a name
  // whose quoted form occurs at most once cannot be duplicated, and a single "id" occurrence in
  // the text of an envelope that has an id is that member's name.
  if (!text.includes("\\u")) {
    const fast = quotedNamesOnce(text, parsed);
    if (fast !== null) {
      const at = wantId ? fast : -1;
      return { duplicate: null, idText: at === -1 ? null : memberValueText(text, at + 4) };
    }
  }
  const seen = new Set<string>();
  let duplicate: string | null = null;
  let idText: string | null = null;
  forEachTopLevelMember(text, (name, value) => {
    if (seen.has(name)) {
      duplicate = name;
      return false;
    }
    seen.add(name);
    if (name === "id") idText = value;
    return true;
  });
  return duplicate !== null ? { duplicate, idText: null } : { duplicate: null, idText };
}

/**
 * Where `"id"` occurs (-1: nowhere) when each envelope name the parsed object has occurs quoted
 * at most once in the text; null when one occurs twice (maybe nested: the full scan decides).
 */
function quotedNamesOnce(text: string, parsed: object | undefined): number | null {
  ENVELOPE_NAME.lastIndex = 0;
  let seen = 0;
  let idAt = -1;
  // test(), not exec(): no match array per name; which name matched is read off the text.
  while (ENVELOPE_NAME.test(text)) {
    const end = ENVELOPE_NAME.lastIndex;
    const name = nameEndingAt(text, end);
    if (parsed !== undefined && !Object.hasOwn(parsed, name)) continue;
    const bit = NAME_BIT[name]!;
    if ((seen & bit) !== 0) return null;
    seen |= bit;
    if (name === "id") idAt = end - 4;
  }
  return idAt;
}

/** The envelope name whose closing quote is just before `end` (its last letters tell it apart). */
function nameEndingAt(text: string, end: number): string {
  switch (text.charCodeAt(end - 2)) {
    case 0x63: // c
      return "jsonrpc";
    case 0x73: // s
      return "params";
    case 0x74: // t
      return "result";
    case 0x72: // r
      return "error";
    default: // d: id or method
      return text.charCodeAt(end - 3) === 0x69 ? "id" : "method";
  }
}
