/**
 * Checking a tool call's arguments against what the tool declares, with messages that name the
 * field, what was expected and what came, so the model can correct its next call. Extra fields are
 * ignored (models add harmless ones); a missing required field lists the fields that did come,
 * which is where a misspelt name ("oldText" for "old_text") shows.
 */

export interface FieldSpec {
  type: "string" | "integer" | "number";
  required?: boolean;
  /** Strings: refuse "". */
  nonEmpty?: boolean;
  /** Numbers: inclusive bounds. */
  min?: number;
  max?: number;
  /** Numbers: the lower bound is exclusive (a timeout of 0 is no timeout). */
  minExclusive?: boolean;
}

export type CheckedArgs =
  | { ok: true; values: Record<string, string | number | undefined> }
  | { ok: false; error: string };

/** Checks `args` of a call to `tool` against `spec`; the first problem found is the error. */
export function checkArgs(tool: string, args: unknown, spec: Record<string, FieldSpec>): CheckedArgs {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { ok: false, error: `${tool}: the arguments must be a JSON object, got ${kindOf(args)}` };
  }
  const given = args as Record<string, unknown>;
  const values: Record<string, string | number | undefined> = {};
  for (const [field, s] of Object.entries(spec)) {
    const v = given[field];
    if (v === undefined || v === null) {
      if (s.required) {
        const came = Object.keys(given);
        const list = came.length === 0 ? "none" : came.map((k) => JSON.stringify(k)).join(", ");
        return { ok: false, error: `${tool}: "${field}" is required (${expected(s)}); the fields given were ${list}` };
      }
      values[field] = undefined;
      continue;
    }
    const problem = s.type === "string" ? checkString(v, s) : checkNumber(v, s);
    if (typeof problem === "string") {
      return { ok: false, error: `${tool}: "${field}" must be ${expected(s)}; ${problem}` };
    }
    values[field] = problem.value;
  }
  return { ok: true, values };
}

function checkString(v: unknown, s: FieldSpec): string | { value: string } {
  if (typeof v !== "string") return `got ${kindOf(v)}`;
  if (s.nonEmpty && v.length === 0) return "got an empty string";
  return { value: v };
}

function checkNumber(v: unknown, s: FieldSpec): string | { value: number } {
  // A number sent as a string ("10") is taken: refusing it costs the model a turn and helps no one.
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n)) return `got ${kindOf(v)}`;
  if (s.type === "integer" && !Number.isInteger(n)) return `got ${n}`;
  if (s.min !== undefined && (s.minExclusive ? n <= s.min : n < s.min)) return `got ${n}`;
  if (s.max !== undefined && n > s.max) return `got ${n}`;
  return { value: n };
}

function expected(s: FieldSpec): string {
  if (s.type === "string") return s.nonEmpty ? "a non-empty string" : "a string";
  const what = s.type === "integer" ? "an integer" : "a number";
  const low = s.min === undefined ? "" : s.minExclusive ? `greater than ${s.min}` : `at least ${s.min}`;
  const high = s.max === undefined ? "" : `at most ${s.max}`;
  const range = [low, high].filter((x) => x !== "").join(" and ");
  return range === "" ? what : `${what} ${range}`;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string")
    return v.length > 40 ? `a string (${JSON.stringify(v.slice(0, 40))}...)` : JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return `${typeof v === "object" ? "an" : "a"} ${typeof v}`;
}
