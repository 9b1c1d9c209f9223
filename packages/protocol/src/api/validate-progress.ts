/**
 * $/progress params as the host receives them (PROG-02, PROG-05, PROG-06, PROG-09..12): the
 * request id and sequence, and the event variants with their bounds. Whether progress is
 * accepted at all (request_progress, PROG-01), whether the request is active (PROG-04), the
 * strictly rising sequence (PROG-03), output chunking (PROG-07) and artifact resolution of a
 * partial result belong to the host; the caller says which optional variants the negotiation and
 * the request admit. Params and events are open objects (FRAME-15): unknown members are ignored
 * and not carried over.
 */
import { MAX_PROGRESS_LABEL_BYTES, MAX_PROGRESS_TEXT_BYTES } from "../bounds.js";
import {
  at,
  finish,
  isAbsent,
  member,
  readInteger,
  readNumber,
  readObject,
  readOneOf,
  readOptionalString,
  readString,
  refuse,
} from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import type { ApiVersion } from "../version.js";
import type { ToolResultV02 } from "./types.js";
import type {
  ProgressEvent,
  ProgressEventType,
  ProgressParams,
  StatusProgressEvent,
  DecorationProgressEvent,
} from "./types-v02.js";
import { checkToolResult } from "./validate-results.js";

export interface ProgressOptions {
  /** progress_decoration was negotiated (PROG-09). */
  decoration: boolean;
  /** The request is an active tool/call and request_progress + content_parts were negotiated (PROG-11). */
  partialResult: boolean;
  /** The generation's API version; partial_result needs 0.4, and $/progress itself 0.2+. */
  api: ApiVersion;
}

export const PROGRESS_EVENT_TYPES: readonly ProgressEventType[] = ["status", "output", "decoration", "partial_result"];
export const PROGRESS_STREAMS = ["stdout", "stderr"] as const;
export const PROGRESS_ENCODINGS = ["utf8", "base64"] as const;

/** Display text of progress: bounded, and no control character but LF and TAB (PROG-10). */
const TEXT = { maxBytes: MAX_PROGRESS_TEXT_BYTES, plainText: true } as const;
const LABEL = { maxBytes: MAX_PROGRESS_LABEL_BYTES, plainText: true } as const;

/** $/progress params; the returned event carries only the members of its variant. */
export function validateProgressParams(value: unknown, options: ProgressOptions): Checked<ProgressParams> {
  const p = new Problems();
  if (options.api === "0.1") {
    p.add("", "$/progress is not part of API 0.1");
    return refuse(p);
  }
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const requestId = readInteger(p, "request_id", member(obj, "request_id"), 0);
  const sequence = readInteger(p, "sequence", member(obj, "sequence"), 0);
  const event = checkEvent(p, member(obj, "event"), options);
  if (requestId === undefined || sequence === undefined || event === undefined) return refuse(p);
  return finish(p, { request_id: requestId, sequence, event });
}

function checkEvent(p: Problems, raw: unknown, options: ProgressOptions): ProgressEvent | undefined {
  const obj = readObject(p, "event", raw);
  if (obj === undefined) return undefined;
  const type = readOneOf(p, "event.type", member(obj, "type"), PROGRESS_EVENT_TYPES);
  switch (type) {
    case undefined:
      return undefined;
    case "status":
      return checkStatus(p, obj);
    case "output":
      return checkOutput(p, obj);
    case "decoration":
      if (!options.decoration) {
        p.add("event.type", '"decoration" events need progress_decoration negotiated');
        return undefined;
      }
      return checkDecoration(p, obj);
    case "partial_result":
      if (options.api !== "0.4") {
        p.add("event.type", `"partial_result" events need API 0.4, not ${options.api}`);
        return undefined;
      }
      if (!options.partialResult) {
        p.add(
          "event.type",
          '"partial_result" events are admitted only for an active tool/call with request_progress and content_parts',
        );
        return undefined;
      }
      return checkPartialResult(p, obj, options.api);
  }
}

function checkStatus(p: Problems, obj: Record<string, unknown>): StatusProgressEvent | undefined {
  const before = p.count;
  const message = readString(p, "event.message", member(obj, "message"), TEXT);
  const event: StatusProgressEvent = { type: "status", message: message ?? "" };
  for (const key of ["current", "total"] as const) {
    const v = member(obj, key);
    if (isAbsent(v)) continue;
    const n = readNumber(p, at("event", key), v, 0);
    if (n !== undefined) event[key] = n;
  }
  const unit = readOptionalString(p, "event.unit", member(obj, "unit"), LABEL);
  if (unit !== undefined) event.unit = unit;
  return p.count === before ? event : undefined;
}

function checkOutput(p: Problems, obj: Record<string, unknown>): ProgressEvent | undefined {
  const stream = readOneOf(p, "event.stream", member(obj, "stream"), PROGRESS_STREAMS);
  const encoding = readOneOf(p, "event.encoding", member(obj, "encoding"), PROGRESS_ENCODINGS);
  // The data is bounded by the frame only (PROG-06); the host chunks what it accepts (PROG-07).
  const data = readString(p, "event.data", member(obj, "data"));
  if (stream === undefined || encoding === undefined || data === undefined) return undefined;
  if (encoding === "base64") {
    const problem = base64Problem(data);
    if (problem !== undefined) {
      p.add("event.data", `not valid base64: ${problem}`);
      return undefined;
    }
  }
  return { type: "output", stream, encoding, data };
}

function checkDecoration(p: Problems, obj: Record<string, unknown>): DecorationProgressEvent | undefined {
  const label = readString(p, "event.label", member(obj, "label"), LABEL);
  const rawDetail = member(obj, "detail");
  const detail = readOptionalString(p, "event.detail", rawDetail, TEXT);
  if (label === undefined || (detail === undefined && !isAbsent(rawDetail))) return undefined;
  return detail === undefined ? { type: "decoration", label } : { type: "decoration", label, detail };
}

/** PROG-12: the final-result limits, without the tool's output_schema rule. */
function checkPartialResult(p: Problems, obj: Record<string, unknown>, api: ApiVersion): ProgressEvent | undefined {
  const r = checkToolResult(p, "event.result", member(obj, "result"), api);
  if (r === undefined) return undefined;
  const result: ToolResultV02 = { content: r.parts, is_error: r.is_error };
  if (r.structured_content !== undefined) result.structured_content = r.structured_content;
  if (r.metadata !== undefined) result.metadata = r.metadata;
  return { type: "partial_result", result };
}

/**
 * Why `s` is not RFC 4648 base64 (standard alphabet, padded to a multiple of 4), or undefined
 * when it is. A loop, not a regular expression, so a megabyte of data costs one linear pass.
 */
export function base64Problem(s: string): string | undefined {
  if (s.length % 4 !== 0) return `length ${s.length} is not a multiple of 4`;
  const pad = s.endsWith("==") ? 2 : s.endsWith("=") ? 1 : 0;
  for (let i = 0; i < s.length - pad; i++) {
    const c = s.charCodeAt(i);
    const ok =
      (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
    if (!ok) return `character ${JSON.stringify(s[i])} at index ${i} is not in the base64 alphabet`;
  }
  return undefined;
}
