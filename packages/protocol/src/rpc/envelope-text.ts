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
const ENVELOPE_MEMBERS = ENVELOPE_NAMES.map((name) => `"${name}"`);

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
    let repeated = false;
    for (let i = 0; i < ENVELOPE_MEMBERS.length; i++) {
      if (parsed !== undefined && !Object.hasOwn(parsed, ENVELOPE_NAMES[i]!)) continue;
      const quoted = ENVELOPE_MEMBERS[i]!;
      const first = text.indexOf(quoted);
      if (first !== -1 && text.indexOf(quoted, first + quoted.length) !== -1) {
        repeated = true;
        break;
      }
    }
    if (!repeated) {
      const at = wantId ? text.indexOf('"id"') : -1;
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
