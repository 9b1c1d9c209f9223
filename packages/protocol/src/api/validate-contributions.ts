/**
 * The payloads an extension contributes, in results or on its own (W 2.1-2.4): context
 * contributions, status contributions, notifications, and confirmation/request params. Owns their
 * shapes, defaults and size bounds (CTX, STAT, NOTIF, CONF rows); the command and hook results
 * that embed them are in validate-results.ts. Rate limits and where a contribution is shown are
 * the host's.
 */
import {
  MAX_CONFIRMATION_TEXT_BYTES,
  MAX_CONTEXT_CONTENT_BYTES,
  MAX_CONTEXT_ENTRIES,
  MAX_CONTEXT_LABEL_BYTES,
  MAX_NOTIFICATION_MESSAGE_BYTES,
  MAX_NOTIFICATION_TITLE_BYTES,
  MAX_SAFE_JSON_INTEGER,
  MAX_STATUS_TEXT_BYTES,
} from "../bounds.js";
import {
  at,
  checkCount,
  finish,
  index,
  isAbsent,
  member,
  quote,
  readArray,
  readBoolean,
  readInteger,
  readObject,
  readOneOf,
  readOptionalString,
  readString,
  refuse,
} from "../validate/fields.js";
import { describe, Problems, type Checked } from "../validate/kit.js";
import type { ApiVersion } from "../version.js";
import type {
  ConfirmationRequestParams,
  ContextContribution,
  ExtensionNotification,
  NotificationLevel,
  Placement,
  StatusContribution,
  UiSurface,
} from "./types.js";

export const PLACEMENTS: readonly Placement[] = ["system_prefix", "system_suffix", "prompt_prefix", "prompt_suffix"];
export const UI_SURFACES: readonly UiSurface[] = ["status", "header", "footer"];
export const NOTIFICATION_LEVELS: readonly NotificationLevel[] = ["info", "success", "warning", "error"];

/** A context/collect result (CTX-01, CTX-06): an array of at most 32 contributions. */
export function validateContextContributions(value: unknown): Checked<ContextContribution[]> {
  const p = new Problems();
  return finish(p, checkContributions(p, "", value, false));
}

/** One context contribution, as in context/contribution params (CTX-02, CTX-04, CTX-06). */
export function validateContextContribution(value: unknown): Checked<ContextContribution> {
  const p = new Problems();
  return finish(p, checkContribution(p, "", value));
}

/** A contribution list under `path` (at most 32); with `optional`, absent or null reads as []. */
export function checkContributions(
  p: Problems,
  path: string,
  raw: unknown,
  optional: boolean,
): ContextContribution[] | undefined {
  if (optional && isAbsent(raw)) return [];
  const list = readArray(p, path, raw);
  if (list === undefined || !checkCount(p, path, list.length, MAX_CONTEXT_ENTRIES, "entry", "entries"))
    return undefined;
  const out = list.map((item, i) => checkContribution(p, index(path, i), item));
  return out.every((c) => c !== undefined) ? (out as ContextContribution[]) : undefined;
}

function checkContribution(p: Problems, path: string, raw: unknown): ContextContribution | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const label = readString(p, at(path, "label"), member(obj, "label"), { maxBytes: MAX_CONTEXT_LABEL_BYTES });
  const content = readString(p, at(path, "content"), member(obj, "content"), { maxBytes: MAX_CONTEXT_CONTENT_BYTES });
  const placement = readOneOf(p, at(path, "placement"), member(obj, "placement"), PLACEMENTS, "prompt_suffix");
  if (label === undefined || content === undefined || placement === undefined) return undefined;
  return { label, content, placement };
}

/**
 * A status/collect result (STAT-02): null contributes nothing. The contribution answers the
 * surface that was asked for: an absent surface reads as that one, a different one is refused.
 */
export function validateStatusResult(value: unknown, surface: UiSurface): Checked<StatusContribution | null> {
  if (value === null) return { ok: true, value: null };
  const p = new Problems();
  return finish<StatusContribution | null>(p, checkStatus(p, value, surface));
}

/** A status/contribution notification's params (STAT-03). */
export function validateStatusContribution(value: unknown): Checked<StatusContribution> {
  const p = new Problems();
  return finish(p, checkStatus(p, value, undefined));
}

function checkStatus(p: Problems, raw: unknown, asked: UiSurface | undefined): StatusContribution | undefined {
  const obj = readObject(p, "", raw);
  if (obj === undefined) return undefined;
  const surface = readOneOf(p, "surface", member(obj, "surface"), UI_SURFACES, asked);
  if (asked !== undefined && surface !== undefined && surface !== asked) {
    p.add("surface", `${quote(surface)} does not match the requested surface ${quote(asked)}`);
  }
  const text = readString(p, "text", member(obj, "text"), { maxBytes: MAX_STATUS_TEXT_BYTES });
  const styleRole = readStyleRole(p, "style_role", member(obj, "style_role"));
  const priority = readInteger(p, "priority", member(obj, "priority"), -MAX_SAFE_JSON_INTEGER, 0);
  if (surface === undefined || text === undefined || styleRole === undefined || priority === undefined || !p.ok)
    return undefined;
  return { surface, text, style_role: styleRole, priority };
}

/** style_role: a string, or null (also when absent) for the host's default style. */
export function readStyleRole(p: Problems, path: string, v: unknown): string | null | undefined {
  if (isAbsent(v)) return null;
  if (typeof v === "string") return v;
  p.add(path, `expected a string or null, got ${describe(v)}`);
  return undefined;
}

/** A notification's params (NOTIF-01..03); level defaults to info. */
export function validateNotification(value: unknown): Checked<ExtensionNotification> {
  const p = new Problems();
  return finish(p, checkNotification(p, "", value));
}

/** A notification list under `path`; absent or null reads as []. */
export function checkNotifications(p: Problems, path: string, raw: unknown): ExtensionNotification[] | undefined {
  if (isAbsent(raw)) return [];
  const list = readArray(p, path, raw);
  if (list === undefined) return undefined;
  const out = list.map((item, i) => checkNotification(p, index(path, i), item));
  return out.every((n) => n !== undefined) ? (out as ExtensionNotification[]) : undefined;
}

function checkNotification(p: Problems, path: string, raw: unknown): ExtensionNotification | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const level = readOneOf(p, at(path, "level"), member(obj, "level"), NOTIFICATION_LEVELS, "info");
  const title = readString(p, at(path, "title"), member(obj, "title"), { maxBytes: MAX_NOTIFICATION_TITLE_BYTES });
  const message = readString(p, at(path, "message"), member(obj, "message"), {
    maxBytes: MAX_NOTIFICATION_MESSAGE_BYTES,
  });
  if (level === undefined || title === undefined || message === undefined) return undefined;
  return { level, title, message };
}

/**
 * confirmation/request params (CONF-01, CONF-02). On API 0.1 a parent_request_id is ignored and
 * dropped (the frozen wire has none, and dropping it grants nothing); on 0.2+ it is a required
 * unsigned integer, because host request ids are numeric (FRAME-11).
 */
export function validateConfirmationParams(value: unknown, api: ApiVersion): Checked<ConfirmationRequestParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const parent = api === "0.1" ? undefined : readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  const prompt = readString(p, "prompt", member(obj, "prompt"), {
    nonBlank: true,
    maxBytes: MAX_CONFIRMATION_TEXT_BYTES,
  });
  const detail = readOptionalString(p, "detail", member(obj, "detail"), { maxBytes: MAX_CONFIRMATION_TEXT_BYTES });
  const destructive = readBoolean(p, "destructive", member(obj, "destructive"), false);
  const dflt = readBoolean(p, "default", member(obj, "default"), false);
  if (!p.ok || prompt === undefined || destructive === undefined || dflt === undefined) return refuse(p);
  const params: ConfirmationRequestParams = { prompt, destructive, default: dflt };
  if (parent !== undefined) params.parent_request_id = parent;
  if (detail !== undefined) params.detail = detail;
  return { ok: true, value: params };
}
