/**
 * The limits on what a session entry may hold (wire reference 2.21) and the checks that refuse
 * an entry past them before anything is written. Every refusal is an Error naming the field, its
 * size and the limit, so an extension author can see what to shrink.
 */
import type { NewEntry } from "./types.js";

/** entry_type of custom and custom_message entries, in UTF-8 bytes. */
export const MAX_ENTRY_TYPE_BYTES = 128;
/** custom `data` as JSON text, in UTF-8 bytes (64 KiB). */
export const MAX_CUSTOM_DATA_BYTES = 65_536;
/** Nesting of custom `data` and compaction `details` (arrays and objects). */
export const MAX_DATA_DEPTH = 64;
/** A session name and an entry label, in UTF-8 bytes (4 KiB each). */
export const MAX_NAME_BYTES = 4_096;
export const MAX_LABEL_BYTES = 4_096;
/** An entry id, including ids an entry refers to (label target_id, compaction first_kept). */
export const MAX_ENTRY_ID_BYTES = 256;
/**
 * One line of the file (8 MiB). Far above any custom entry; the entries that can reach it are
 * messages, mostly a tool result carrying a large output, which the tool should cut down first.
 */
export const MAX_LINE_BYTES = 8 * 1_048_576;

/** UTF-8 length of a string. */
export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, "utf8");
}

function fail(field: string, detail: string): never {
  throw new Error(`session entry ${field} ${detail}`);
}

function checkBytes(field: string, value: unknown, limit: number, allowEmpty: boolean): void {
  if (typeof value !== "string") fail(field, `must be a string, got ${typeName(value)}`);
  if (!allowEmpty && value.length === 0) fail(field, "must not be empty");
  const n = utf8Bytes(value);
  if (n > limit) fail(field, `is ${n} bytes, over the limit of ${limit} bytes`);
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/**
 * Refuses anything JSON.stringify would drop or change: undefined, functions, symbols, bigints,
 * non-finite numbers, objects with a prototype other than Object's (class instances, Maps, Dates),
 * and nesting deeper than MAX_DATA_DEPTH (which also stops cycles).
 */
export function checkPlainJson(field: string, value: unknown, depth = 0): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) fail(field, `holds the non-finite number ${value}; only plain JSON is stored`);
      return;
    case "object": {
      if (value === null) return;
      if (depth >= MAX_DATA_DEPTH) fail(field, `nests deeper than the limit of ${MAX_DATA_DEPTH} levels`);
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) checkPlainJson(`${field}[${i}]`, value[i], depth + 1);
        return;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        fail(field, `is a ${value.constructor?.name ?? "non-plain"} object; only plain JSON is stored`);
      }
      for (const [k, v] of Object.entries(value)) checkPlainJson(`${field}.${k}`, v, depth + 1);
      return;
    }
    default:
      fail(field, `holds ${value === undefined ? "undefined" : `a ${typeof value}`}; only plain JSON is stored`);
  }
}

function checkOptionalExtension(e: { extension?: unknown }): void {
  if (e.extension !== undefined) checkBytes("extension", e.extension, MAX_ENTRY_TYPE_BYTES, false);
}

/**
 * Checks a new entry's own fields. `exists` answers whether an id names an entry of this file,
 * for the references a label and a compaction make.
 */
export function checkNewEntry(entry: NewEntry, exists: (id: string) => boolean): void {
  const e = entry as NewEntry & Record<string, unknown>;
  switch (e.type) {
    case "message": {
      const role = (e.message as { role?: unknown } | null)?.role;
      if (role !== "user" && role !== "assistant" && role !== "toolResult") {
        fail("message.role", `must be user, assistant or toolResult, got ${JSON.stringify(role)}`);
      }
      return;
    }
    case "compaction":
      if (typeof e.summary !== "string") fail("summary", `must be a string, got ${typeName(e.summary)}`);
      checkReference("first_kept", e.first_kept, exists);
      if (!Number.isSafeInteger(e.tokens_before) || e.tokens_before < 0) {
        fail("tokens_before", `must be a non-negative integer, got ${String(e.tokens_before)}`);
      }
      if (e.details !== undefined) {
        if (typeName(e.details) !== "object") fail("details", `must be an object, got ${typeName(e.details)}`);
        checkPlainJson("details", e.details);
      }
      return;
    case "custom": {
      checkBytes("entry_type", e.entry_type, MAX_ENTRY_TYPE_BYTES, false);
      checkOptionalExtension(e);
      if (e.data === undefined) fail("data", "is missing; use null for no data");
      checkPlainJson("data", e.data);
      const n = utf8Bytes(JSON.stringify(e.data));
      if (n > MAX_CUSTOM_DATA_BYTES)
        fail("data", `is ${n} bytes as JSON, over the limit of ${MAX_CUSTOM_DATA_BYTES} bytes`);
      return;
    }
    case "custom_message":
      checkBytes("entry_type", e.entry_type, MAX_ENTRY_TYPE_BYTES, false);
      checkOptionalExtension(e);
      if (typeof e.content !== "string") fail("content", `must be a string, got ${typeName(e.content)}`);
      if (typeof e.display !== "boolean") fail("display", `must be a boolean, got ${typeName(e.display)}`);
      if (e.details !== undefined) checkPlainJson("details", e.details);
      return;
    case "bash_execution":
      if (typeof e.command !== "string") fail("command", `must be a string, got ${typeName(e.command)}`);
      if (typeof e.output !== "string") fail("output", `must be a string, got ${typeName(e.output)}`);
      if (e.exit_code !== null && !Number.isSafeInteger(e.exit_code))
        fail("exit_code", `must be an integer or null, got ${String(e.exit_code)}`);
      for (const key of ["cancelled", "truncated", "exclude_from_context"] as const)
        if (typeof e[key] !== "boolean") fail(key, `must be a boolean, got ${typeName(e[key])}`);
      return;
    case "session_info":
      checkBytes("name", e.name, MAX_NAME_BYTES, true);
      return;
    case "label":
      checkReference("target_id", e.target_id, exists);
      checkBytes("label", e.label, MAX_LABEL_BYTES, true);
      return;
    case "branch_summary":
      checkBytes("from_id", e.from_id, MAX_ENTRY_ID_BYTES, false);
      if (typeof e.summary !== "string") fail("summary", `must be a string, got ${typeName(e.summary)}`);
      if (e.details !== undefined) checkPlainJson("details", e.details);
      if (e.from_extension !== undefined && typeof e.from_extension !== "boolean")
        fail("from_extension", `must be a boolean, got ${typeName(e.from_extension)}`);
      return;
    case "model_change":
      checkBytes("provider", e.provider, MAX_NAME_BYTES, false);
      checkBytes("model_id", e.model_id, MAX_NAME_BYTES, false);
      return;
    default:
      fail("type", `${JSON.stringify((e as { type?: unknown }).type)} is not a session entry type`);
  }
}

function checkReference(field: string, id: unknown, exists: (id: string) => boolean): void {
  checkBytes(field, id, MAX_ENTRY_ID_BYTES, false);
  if (!exists(id as string)) fail(field, `${JSON.stringify(id)} names no entry of this session`);
}

/** Refuses a serialized line (without its newline) longer than MAX_LINE_BYTES. */
export function checkLine(type: string, line: string): void {
  // A UTF-16 length under a third of the limit cannot exceed it in UTF-8 (at most 3 bytes per unit).
  if (line.length * 3 <= MAX_LINE_BYTES) return;
  const n = utf8Bytes(line);
  if (n > MAX_LINE_BYTES) {
    throw new Error(
      `session entry ${type} is ${n} bytes as a line, over the limit of ${MAX_LINE_BYTES} bytes (8 MiB); ` +
        "a tool result this large must be cut down before it is stored",
    );
  }
}
