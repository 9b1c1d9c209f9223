/**
 * terminal/acquire, terminal/release and terminal/grant-lost (W 2.24, TERM-01..10): the shapes
 * and bounds of the foreground terminal handoff. The grant itself (one at a time, the holder,
 * revocation) is the host's; this file owns what crosses the wire. Params are open (FRAME-15);
 * answers and the grant-lost notification are closed.
 *
 * TERM-10 (GAP) default: terminal/grant-lost is {grant_id, reason}, reason at most 1 KiB.
 */
import { member, readInteger, readObject, readString, refuse, rejectUnknown } from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";

/** grant_id is minted by the frontend and bounded (TERM-06). */
export const MAX_TERMINAL_GRANT_ID_BYTES = 128;
/** The reason of terminal/grant-lost (TERM-10 default). */
export const MAX_TERMINAL_REASON_BYTES = 1024;
const U16_MAX = 65_535;

/** terminal/acquire and terminal/release take the same shape (W 2.24). */
export interface TerminalParams {
  parent_request_id: number;
}
export interface TerminalGrant {
  grant_id: string;
  columns: number;
  rows: number;
}
export interface TerminalGrantLost {
  grant_id: string;
  reason: string;
}

export function validateTerminalParams(value: unknown): Checked<TerminalParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const parent = readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  if (!p.ok || parent === undefined) return refuse(p);
  return { ok: true, value: { parent_request_id: parent } };
}

/** The terminal/acquire answer: exactly {grant_id, columns, rows}, columns and rows u16. */
export function validateTerminalGrant(value: unknown): Checked<TerminalGrant> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["grant_id", "columns", "rows"]));
  const grantId = grantIdOf(p, obj);
  const columns = u16(p, "columns", member(obj, "columns"));
  const rows = u16(p, "rows", member(obj, "rows"));
  if (!p.ok || grantId === undefined || columns === undefined || rows === undefined) return refuse(p);
  return { ok: true, value: { grant_id: grantId, columns, rows } };
}

/** terminal/grant-lost: exactly {grant_id, reason}; reason non-empty plain text of at most 1 KiB. */
export function validateTerminalGrantLost(value: unknown): Checked<TerminalGrantLost> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["grant_id", "reason"]));
  const grantId = grantIdOf(p, obj);
  const reason = readString(p, "reason", member(obj, "reason"), {
    nonBlank: true,
    maxBytes: MAX_TERMINAL_REASON_BYTES,
    plainText: true,
  });
  if (!p.ok || grantId === undefined || reason === undefined) return refuse(p);
  return { ok: true, value: { grant_id: grantId, reason } };
}

/** The refusal name of a params or answer problem: a broken size bound is bounds_exceeded. */
export function terminalRefusal(problems: readonly string[]): "bounds_exceeded" | "invalid_request" {
  return problems.some((s) => / over the [0-9]+-/.test(s)) ? "bounds_exceeded" : "invalid_request";
}

function grantIdOf(p: Problems, obj: Record<string, unknown>): string | undefined {
  return readString(p, "grant_id", member(obj, "grant_id"), {
    nonBlank: true,
    maxBytes: MAX_TERMINAL_GRANT_ID_BYTES,
    plainText: true,
  });
}

function u16(p: Problems, path: string, v: unknown): number | undefined {
  const n = readInteger(p, path, v, 0);
  if (n !== undefined && n > U16_MAX) {
    p.add(path, `${n} is over the u16 limit ${U16_MAX}`);
    return undefined;
  }
  return n;
}
