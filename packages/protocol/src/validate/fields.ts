/**
 * Member readers shared by the api/validate-*.ts validators. Each reads one member, records a
 * path-qualified problem when it breaks a rule and returns the value (or undefined). Owns the
 * wording of type, size, grammar and membership problems, so every validator says them the same
 * way; the shapes themselves belong to the api/ validators.
 *
 * Absent means "not an own member, or undefined". For optional members null also reads as absent:
 * SDKs in other languages serialize an unset optional as null (Python None), and refusing that
 * would fail extensions for a difference no reader can observe.
 */
import { MAX_QUOTED_NAMES, MAX_QUOTED_VALUE_CHARS, MAX_SAFE_JSON_INTEGER } from "../bounds.js";
import { describe, isPlainObject, utf8ByteLength, type Checked, type Problems } from "./kit.js";

/** JSON-quotes a string for a message, cut to MAX_QUOTED_VALUE_CHARS so a hostile value stays short. */
export function quote(s: string): string {
  return s.length <= MAX_QUOTED_VALUE_CHARS
    ? JSON.stringify(s)
    : `${JSON.stringify(s.slice(0, MAX_QUOTED_VALUE_CHARS))}...`;
}

/** A short rendering of any value for a message: strings quoted, scalars literal, else its kind. */
export function show(v: unknown): string {
  if (typeof v === "string") return quote(v);
  if (typeof v === "number" || typeof v === "boolean" || v === null) return String(v);
  return describe(v);
}

/** `"a", "b" and 3 more`: at most MAX_QUOTED_NAMES names, the rest counted. */
export function quoteList(names: readonly string[]): string {
  const shown = names.slice(0, MAX_QUOTED_NAMES).map(quote).join(", ");
  const rest = names.length - MAX_QUOTED_NAMES;
  return rest > 0 ? `${shown} and ${rest} more` : shown;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The path of member `key` under `base`: `tools[2].name`, or `properties["a b"]` for odd keys. */
export function at(base: string, key: string): string {
  if (IDENTIFIER.test(key)) return base === "" ? key : `${base}.${key}`;
  return `${base}[${quote(key)}]`;
}

/** The path of element `i` under `base`: `tools[2]`. */
export function index(base: string, i: number): string {
  return `${base}[${i}]`;
}

/** The own member `key` of `obj`; inherited members (constructor, toString...) never count. */
export function member(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

export function isAbsent(v: unknown): v is undefined | null {
  return v === undefined || v === null;
}

/** An object, or a problem naming what came instead. */
export function readObject(p: Problems, path: string, v: unknown): Record<string, unknown> | undefined {
  if (isPlainObject(v)) return v;
  p.add(path, v === undefined ? "missing; expected an object" : `expected an object, got ${describe(v)}`);
  return undefined;
}

/** Reports every own member outside `allowed`; used only where the object is closed. */
export function rejectUnknown(
  p: Problems,
  path: string,
  obj: Record<string, unknown>,
  allowed: ReadonlySet<string>,
): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) p.add(at(path, key), "unknown member");
  }
}

/** `300 parts, over the 256-part limit` when n > max. Returns whether n is within the limit. */
export function checkCount(
  p: Problems,
  path: string,
  n: number,
  max: number,
  noun: string,
  plural = `${noun}s`,
): boolean {
  if (n <= max) return true;
  p.add(path, `${n} ${plural}, over the ${max}-${noun} limit`);
  return false;
}

/** `300 bytes, over the 256-byte limit` when the UTF-8 length of s passes max. */
export function checkBytes(p: Problems, path: string, s: string, max: number): boolean {
  const n = utf8ByteLength(s);
  if (n <= max) return true;
  p.add(path, `${n} bytes, over the ${max}-byte limit`);
  return false;
}

export interface StringRule {
  /** Refuse "" and whitespace-only strings. */
  nonBlank?: boolean;
  /** UTF-8 byte bound. */
  maxBytes?: number;
  /** Refuse control characters other than LF and TAB (display text a person or a model reads). */
  plainText?: boolean;
}

/** A required string member. */
export function readString(p: Problems, path: string, v: unknown, rule: StringRule = {}): string | undefined {
  if (typeof v !== "string") {
    p.add(path, v === undefined ? "missing; expected a string" : `expected a string, got ${describe(v)}`);
    return undefined;
  }
  if (rule.nonBlank === true && v.trim() === "") {
    p.add(path, "must not be empty");
    return undefined;
  }
  if (rule.maxBytes !== undefined && !checkBytes(p, path, v, rule.maxBytes)) return undefined;
  if (rule.plainText === true && !checkPlainText(p, path, v)) return undefined;
  return v;
}

/**
 * Refuses control characters but LF and TAB (TDEF-11, PROG-10). "Control character" is read as
 * Unicode Cc (C0, DEL and C1), so CR is refused too: a bare CR can overwrite a line on a terminal.
 */
export function checkPlainText(p: Problems, path: string, s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x0a || c === 0x09) continue;
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      p.add(
        path,
        `control character U+${c.toString(16).toUpperCase().padStart(4, "0")} at index ${i}; only LF and TAB ` +
          `are allowed`,
      );
      return false;
    }
  }
  return true;
}

/** An optional string member: absent or null reads as undefined. */
export function readOptionalString(p: Problems, path: string, v: unknown, rule: StringRule = {}): string | undefined {
  return isAbsent(v) ? undefined : readString(p, path, v, rule);
}

/** A boolean member; absent or null yields `fallback`, or a problem when there is none. */
export function readBoolean(p: Problems, path: string, v: unknown, fallback?: boolean): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (isAbsent(v) && fallback !== undefined) return fallback;
  p.add(path, v === undefined ? "missing; expected a boolean" : `expected a boolean, got ${describe(v)}`);
  return undefined;
}

/** One of a closed set of strings; absent or null yields `fallback` when there is one. */
export function readOneOf<T extends string>(
  p: Problems,
  path: string,
  v: unknown,
  allowed: readonly T[],
  fallback?: T,
): T | undefined {
  if (isAbsent(v) && fallback !== undefined) return fallback;
  if (typeof v === "string" && (allowed as readonly string[]).includes(v)) return v as T;
  const expected = `one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
  if (typeof v === "string") p.add(path, `${quote(v)} is not ${expected}`);
  else p.add(path, v === undefined ? `missing; expected ${expected}` : `expected ${expected}, got ${describe(v)}`);
  return undefined;
}

/** A JSON integer in [min, 2^53-1]: larger integers cannot be held exactly by JSON.parse. */
export function readInteger(p: Problems, path: string, v: unknown, min: number, fallback?: number): number | undefined {
  if (isAbsent(v) && fallback !== undefined) return fallback;
  if (typeof v !== "number" || !Number.isInteger(v)) {
    p.add(path, v === undefined ? "missing; expected an integer" : `expected an integer, got ${show(v)}`);
    return undefined;
  }
  if (v < min) {
    p.add(path, `${v} is below the minimum ${min}`);
    return undefined;
  }
  if (v > MAX_SAFE_JSON_INTEGER) {
    p.add(path, `${v} is above 2^53-1 and cannot be represented exactly`);
    return undefined;
  }
  return v;
}

/** A finite number at least `min` (not necessarily an integer); absent or null yields `fallback` when there is one. */
export function readNumber(p: Problems, path: string, v: unknown, min: number, fallback?: number): number | undefined {
  if (isAbsent(v) && fallback !== undefined) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v)) {
    p.add(path, v === undefined ? "missing; expected a number" : `expected a finite number, got ${show(v)}`);
    return undefined;
  }
  if (v < min) {
    p.add(path, `${v} is below the minimum ${min}`);
    return undefined;
  }
  return v;
}

/** An array member, or a problem naming what came instead. */
export function readArray(p: Problems, path: string, v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  p.add(path, v === undefined ? "missing; expected an array" : `expected an array, got ${describe(v)}`);
  return undefined;
}

/** An array of strings; reports each non-string element. */
export function readStringArray(p: Problems, path: string, v: unknown): string[] | undefined {
  const arr = readArray(p, path, v);
  if (arr === undefined) return undefined;
  let ok = true;
  arr.forEach((item, i) => {
    if (typeof item !== "string") {
      p.add(index(path, i), `expected a string, got ${describe(item)}`);
      ok = false;
    }
  });
  return ok ? (arr as string[]) : undefined;
}

/** The names that occur more than once, each listed once, in first-seen order. */
export function duplicates(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const dup = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) dup.add(n);
    else seen.add(n);
  }
  return [...dup];
}

/** Turns collected problems into a Checked result. */
export function finish<T>(p: Problems, value: T | undefined): Checked<T> {
  return p.ok && value !== undefined ? { ok: true, value } : refuse(p);
}

/** The refusal carrying the collected problems. */
export function refuse<T>(p: Problems): Checked<T> {
  // A refusal always says something, even if a caller forgot to record why.
  return { ok: false, problems: p.ok ? ["invalid"] : [...p.list] };
}
