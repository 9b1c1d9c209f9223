/**
 * session_control_v1 and session_compaction_v1 (W 2.21b, 2.21c; SCTL, SCOMP): the params an
 * extension sends and the answers it gets. Unlike the Wave-1 methods the params are closed
 * (SCTL-02, SCOMP-03): any member but the listed ones is refused. The owner rules and the queue
 * are the host's (modules/session-control); the refusal names are those of W 3, picked by
 * sessionEntriesRefusal() (bounds_exceeded for a broken size bound, else invalid_request).
 */
import { MAX_COMPACT_INSTRUCTIONS_BYTES } from "../bounds.js";
import { isAbsent, member, readInteger, readObject, readString, refuse, rejectUnknown } from "../validate/fields.js";
import { Problems, type Checked } from "../validate/kit.js";
import type { ResourceOwner } from "./types.js";

export interface SessionControlParams {
  parent_request_id: number;
  resource_owner?: ResourceOwner;
}
export interface SessionSwitchParams extends SessionControlParams {
  session_id: string;
}
export interface SessionCompactParams {
  parent_request_id: number;
  resource_owner: ResourceOwner;
  /** Absent when it was absent, null or blank (SCOMP-04: blank is normalized to absent). */
  custom_instructions?: string;
}
export interface SessionCompactResult {
  entry_id: string;
  summary: string;
  first_kept: string;
}

/** A session id: non-empty plain text of at most 256 bytes (the size of an entry id). */
const MAX_SESSION_ID_BYTES = 256;
const CONTROL = new Set(["parent_request_id", "resource_owner", "session_id"]);
const COMPACT = new Set(["parent_request_id", "resource_owner", "custom_instructions"]);

/** session/wait_for_idle: {parent_request_id, resource_owner?, session_id: absent or null}. */
export function validateWaitForIdleParams(value: unknown): Checked<SessionControlParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, CONTROL);
  if (!isAbsent(member(obj, "session_id")))
    p.add("session_id", "must be absent or null for session/wait_for_idle (only session/switch names a session)");
  const base = controlled(p, obj, false);
  return p.ok && base !== undefined ? { ok: true, value: base } : refuse(p);
}

/** session/switch: {parent_request_id, resource_owner?, session_id}. */
export function validateSwitchParams(value: unknown): Checked<SessionSwitchParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, CONTROL);
  const base = controlled(p, obj, false);
  const id = readString(p, "session_id", member(obj, "session_id"), {
    nonBlank: true,
    maxBytes: MAX_SESSION_ID_BYTES,
    plainText: true,
  });
  return p.ok && base !== undefined && id !== undefined ? { ok: true, value: { ...base, session_id: id } } : refuse(p);
}

/**
 * session/compact: {parent_request_id, resource_owner (required), custom_instructions?}. The 16 KiB
 * bound is counted on the raw UTF-8 before anything is trimmed (SCOMP-04); LF and TAB pass, other
 * controls are refused; blank instructions are valid and read as absent.
 */
export function validateCompactParams(value: unknown): Checked<SessionCompactParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, COMPACT);
  const base = controlled(p, obj, true);
  const raw = member(obj, "custom_instructions");
  let instructions: string | undefined;
  if (!isAbsent(raw))
    instructions = readString(p, "custom_instructions", raw, {
      maxBytes: MAX_COMPACT_INSTRUCTIONS_BYTES,
      plainText: true,
    });
  if (!p.ok || base === undefined || base.resource_owner === undefined) return refuse(p);
  const value2: SessionCompactParams = {
    parent_request_id: base.parent_request_id,
    resource_owner: base.resource_owner,
  };
  if (instructions !== undefined && instructions.trim() !== "") value2.custom_instructions = instructions;
  return { ok: true, value: value2 };
}

/** The session/compact answer: exactly {entry_id, summary, first_kept}, three non-empty strings. */
export function validateCompactResult(value: unknown): Checked<SessionCompactResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, new Set(["entry_id", "summary", "first_kept"]));
  const entry = readString(p, "entry_id", member(obj, "entry_id"), { nonBlank: true, maxBytes: MAX_SESSION_ID_BYTES });
  const summary = readString(p, "summary", member(obj, "summary"), { nonBlank: true });
  const kept = readString(p, "first_kept", member(obj, "first_kept"), {
    nonBlank: true,
    maxBytes: MAX_SESSION_ID_BYTES,
  });
  if (!p.ok || entry === undefined || summary === undefined || kept === undefined) return refuse(p);
  return { ok: true, value: { entry_id: entry, summary, first_kept: kept } };
}

function controlled(
  p: Problems,
  obj: Record<string, unknown>,
  ownerRequired: boolean,
): SessionControlParams | undefined {
  const parent = readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  const rawOwner = member(obj, "resource_owner");
  let owner: ResourceOwner | undefined;
  if (isAbsent(rawOwner)) {
    if (ownerRequired)
      p.add("resource_owner", "missing; session/compact needs the exact owner triple the host issued (SCOMP-03)");
  } else {
    const o = readObject(p, "resource_owner", rawOwner);
    if (o !== undefined) {
      rejectUnknown(p, "resource_owner", o, new Set(["session_id", "extension_instance_id", "process_generation"]));
      const session = readString(p, "resource_owner.session_id", member(o, "session_id"));
      const instance = readString(p, "resource_owner.extension_instance_id", member(o, "extension_instance_id"));
      const gen = readInteger(p, "resource_owner.process_generation", member(o, "process_generation"), 0);
      if (session !== undefined && instance !== undefined && gen !== undefined)
        owner = { session_id: session, extension_instance_id: instance, process_generation: gen };
    }
  }
  if (parent === undefined) return undefined;
  return owner === undefined ? { parent_request_id: parent } : { parent_request_id: parent, resource_owner: owner };
}
