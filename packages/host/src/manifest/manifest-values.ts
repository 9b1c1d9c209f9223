/**
 * Typed value checks for extension.toml: the collector that turns problems into ManifestErrors
 * (file, key, rule, value and limit in every message, at most MAX_MANIFEST_ERRORS of them) and the
 * boolean and string-list checks the schema in manifest.ts is written with.
 */
import { bounds } from "@octet/protocol";
import type { ManifestError, ManifestErrorCode } from "./manifest-error.js";

/** A parsed TOML table. */
export type Table = Record<string, unknown>;

/** A TOML table (smol-toml returns dates as Date objects, which are not tables). */
export function isTable(v: unknown): v is Table {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/**
 * Characters of a string value quoted in a message: above the protocol's MAX_QUOTED_VALUE_CHARS so
 * a name one byte past its 64-byte bound is still shown whole.
 */
const QUOTE_CHARS = 80;

/** A value as a message shows it: strings quoted and cut at QUOTE_CHARS, other kinds by type. */
export function showValue(v: unknown): string {
  if (typeof v === "string") return `string ${quote(v)}`;
  if (typeof v === "number" || typeof v === "bigint") return `number ${String(v)}`;
  if (typeof v === "boolean") return `boolean ${String(v)}`;
  if (Array.isArray(v)) return `array of ${v.length}`;
  if (isTable(v)) return "table";
  if (v === undefined) return "nothing";
  return typeof v === "object" ? "date" : typeof v;
}

/** A string as JSON, cut at QUOTE_CHARS. */
export function quote(s: string): string {
  return JSON.stringify(s.length > QUOTE_CHARS ? `${s.slice(0, QUOTE_CHARS)}...` : s);
}

/** Collects one manifest's problems as `<file>: key "<key>": <text>` errors, reporting at most MAX_MANIFEST_ERRORS. */
export class Collector {
  readonly errors: ManifestError[] = [];
  private dropped = 0;
  constructor(readonly file: string) {}

  add(key: string, rule: string, text: string, code: ManifestErrorCode = "manifest_invalid"): void {
    if (this.errors.length >= bounds.MAX_MANIFEST_ERRORS) {
      this.dropped++;
      return;
    }
    const where = key === "" ? "" : ` key ${JSON.stringify(key)}:`;
    this.errors.push({ file: this.file, key, rule, message: `${this.file}:${where} ${text}`, code });
  }

  finish(): ManifestError[] {
    if (this.dropped > 0) {
      this.errors.push({
        file: this.file,
        key: "",
        rule: "too_many_errors",
        message:
          `${this.file}: ${this.dropped} more problem${this.dropped === 1 ? "" : "s"} not shown (at ` +
          `most ${bounds.MAX_MANIFEST_ERRORS} are reported)`,
        code: "manifest_invalid",
      });
    }
    return this.errors;
  }
}

/** An optional boolean, false when absent. */
export function bool(c: Collector, table: Table | null, prefix: string, key: string): boolean {
  const v = table?.[key];
  if (v === undefined) return false;
  if (typeof v !== "boolean") {
    c.add(`${prefix}.${key}`, "type", `must be a boolean (true or false), got ${showValue(v)}`);
    return false;
  }
  return v;
}

/**
 * An array of strings, duplicate-free unless `unique` is false; `each` reports a bad element and
 * returns false.
 */
export function stringList(
  c: Collector,
  table: Table | null,
  prefix: string,
  key: string,
  each: (item: string, itemKey: string) => boolean,
  opts: { maxItems?: number; unique?: boolean } = {},
): string[] {
  const { maxItems, unique = true } = opts;
  const full = `${prefix}.${key}`;
  const v = table?.[key];
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    c.add(full, "type", `must be an array of strings, got ${showValue(v)}`);
    return [];
  }
  if (maxItems !== undefined && v.length > maxItems) {
    c.add(full, "bound", `has ${v.length} entries, over the limit of ${maxItems}`);
    return [];
  }
  const out: string[] = [];
  const seen = new Set<string>();
  v.forEach((item: unknown, i) => {
    const itemKey = `${full}[${i}]`;
    if (typeof item !== "string") {
      c.add(itemKey, "type", `must be a string, got ${showValue(item)}`);
      return;
    }
    if (!each(item, itemKey)) return;
    if (unique && seen.has(item)) {
      c.add(itemKey, "duplicate", `duplicate entry ${quote(item)} (entries must be unique)`);
      return;
    }
    seen.add(item);
    out.push(item);
  });
  return out;
}

/** Refuses NUL, which no argv or path can carry. */
export function noNul(c: Collector, key: string, s: string): boolean {
  if (s.includes("\0")) {
    c.add(key, "grammar", `must not contain a NUL character, got ${showValue(s)}`);
    return false;
  }
  return true;
}
