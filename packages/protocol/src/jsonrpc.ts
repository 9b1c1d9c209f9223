/**
 * JSON-RPC 2.0 envelopes and the closed envelope validator. Owns the shape of a message and the
 * id rules; leaves method-specific params to the api/ validators.
 */
import { MAX_CHILD_ID_BYTES, MAX_SAFE_JSON_INTEGER } from "./bounds.js";
import type { WireErrorObject } from "./errors.js";
import { utf8ByteLength } from "./validate/kit.js";

export type JsonRpcId = number | string;

export interface RequestMessage {
  jsonrpc: "2.0";
  id: JsonRpcId;
  method: string;
  params?: unknown;
}
export interface NotificationMessage {
  jsonrpc: "2.0";
  method: string;
  params?: unknown;
}
export interface SuccessResponse {
  jsonrpc: "2.0";
  id: JsonRpcId;
  result: unknown;
}
export interface ErrorResponse {
  jsonrpc: "2.0";
  id: JsonRpcId | null;
  error: WireErrorObject;
}
export type ResponseMessage = SuccessResponse | ErrorResponse;
export type Message = RequestMessage | NotificationMessage | ResponseMessage;

export type Envelope =
  | { kind: "request"; message: RequestMessage }
  | { kind: "notification"; message: NotificationMessage }
  | { kind: "response"; message: ResponseMessage };

export type EnvelopeResult = { ok: true; envelope: Envelope } | { ok: false; reason: string; id: JsonRpcId | null };

const ENVELOPE_KEYS = new Set(["jsonrpc", "id", "method", "params", "result", "error"]);
const ERROR_KEYS = new Set(["code", "message", "data"]);

/**
 * A valid id is an integer in [0, 2^53-1] or a string of at most 256 UTF-8 bytes (REV-02).
 * Integers above 2^53-1 cannot be held exactly by JSON.parse, so they are refused rather than
 * risk two ids aliasing; see docs/decisions.md.
 */
export function checkId(id: unknown): string | null {
  if (typeof id === "string") {
    const n = utf8ByteLength(id);
    return n <= MAX_CHILD_ID_BYTES ? null : `id string is ${n} bytes, over the ${MAX_CHILD_ID_BYTES}-byte limit`;
  }
  if (typeof id === "number") {
    if (!Number.isInteger(id) || id < 0) return `id ${id} is not an unsigned integer`;
    if (id > MAX_SAFE_JSON_INTEGER) return `id ${id} is above 2^53-1 and cannot be represented exactly`;
    return null;
  }
  return `id must be an unsigned integer or a string, got ${id === null ? "null" : typeof id}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The id of a parsed value if it has a usable one, for error replies to a malformed envelope. */
function salvageId(v: Record<string, unknown>): JsonRpcId | null {
  return checkId(v["id"]) === null ? (v["id"] as JsonRpcId) : null;
}

/**
 * Classifies a parsed JSON value as a request, notification or response, or says why it is not
 * one. Closed: unknown top-level members, batches and scalars are refused (FRAME-01, FRAME-15).
 */
export function parseEnvelope(value: unknown): EnvelopeResult {
  if (Array.isArray(value)) return { ok: false, reason: "batch arrays are not supported on this wire", id: null };
  if (!isPlainObject(value))
    return {
      ok: false,
      reason: `a frame must be a JSON object, got ${value === null ? "null" : typeof value}`,
      id: null,
    };
  for (const key of Object.keys(value)) {
    if (!ENVELOPE_KEYS.has(key))
      return { ok: false, reason: `unknown envelope member "${key.slice(0, 64)}"`, id: salvageId(value) };
  }
  if (value["jsonrpc"] !== "2.0") return { ok: false, reason: `"jsonrpc" must be "2.0"`, id: salvageId(value) };
  const hasId = Object.hasOwn(value, "id");
  const hasMethod = Object.hasOwn(value, "method");
  const hasResult = Object.hasOwn(value, "result");
  const hasError = Object.hasOwn(value, "error");
  if (hasMethod) {
    if (hasResult || hasError)
      return { ok: false, reason: "a request cannot carry result or error", id: salvageId(value) };
    const method = value["method"];
    if (typeof method !== "string" || method.length === 0)
      return { ok: false, reason: `"method" must be a non-empty string`, id: salvageId(value) };
    const params = value["params"];
    if (Object.hasOwn(value, "params") && !isPlainObject(params) && !Array.isArray(params)) {
      return { ok: false, reason: `"params" must be an object or an array`, id: salvageId(value) };
    }
    if (!hasId) {
      return { ok: true, envelope: { kind: "notification", message: value as unknown as NotificationMessage } };
    }
    const idProblem = checkId(value["id"]);
    if (idProblem !== null) return { ok: false, reason: idProblem, id: null };
    return { ok: true, envelope: { kind: "request", message: value as unknown as RequestMessage } };
  }
  if (Object.hasOwn(value, "params"))
    return { ok: false, reason: "a response cannot carry params", id: salvageId(value) };
  if (hasResult === hasError)
    return { ok: false, reason: "a response must carry exactly one of result or error", id: salvageId(value) };
  if (!hasId) return { ok: false, reason: "a response must carry an id", id: null };
  if (hasError) {
    const error = value["error"];
    if (!isPlainObject(error)) return { ok: false, reason: `"error" must be an object`, id: salvageId(value) };
    for (const key of Object.keys(error)) {
      if (!ERROR_KEYS.has(key))
        return { ok: false, reason: `unknown error member "${key.slice(0, 64)}"`, id: salvageId(value) };
    }
    if (typeof error["code"] !== "number" || !Number.isInteger(error["code"]))
      return { ok: false, reason: `"error.code" must be an integer`, id: salvageId(value) };
    if (typeof error["message"] !== "string")
      return { ok: false, reason: `"error.message" must be a string`, id: salvageId(value) };
    if (value["id"] !== null) {
      const idProblem = checkId(value["id"]);
      if (idProblem !== null) return { ok: false, reason: idProblem, id: null };
    }
    return { ok: true, envelope: { kind: "response", message: value as unknown as ErrorResponse } };
  }
  const idProblem = checkId(value["id"]);
  if (idProblem !== null) return { ok: false, reason: idProblem, id: null };
  return { ok: true, envelope: { kind: "response", message: value as unknown as SuccessResponse } };
}

export function isErrorResponse(m: ResponseMessage): m is ErrorResponse {
  return Object.hasOwn(m, "error");
}
