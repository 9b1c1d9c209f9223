/**
 * presentation/update params (W 2.5, PRES-01..18): the owner members, and the snapshot checked
 * whole: any problem refuses all of it (PRES-21), so a host keeps its last accepted snapshot and
 * never shows half of a new one. Owns the shape, every cap, the states, metrics, references, the
 * plain-text rule and the routing of actions to declared commands; the collection's tree rules
 * are in presentation-collection.ts and URL sanitizing in presentation-url.ts. Whether the owner
 * triple was issued, revision order, rate and storage are the host's.
 *
 * Every object is closed: an unknown member (frontend layout coordinates, styles, markup fields)
 * refuses the snapshot (PRES-16). Null optional members read as absent, as elsewhere on the wire.
 * Labels, ids and other compact strings are one line of plain text: no control characters at all
 * and no bidirectional overrides; the detail body may also hold LF and TAB. HTML or CSS in a
 * label is not refused: it is text, and every frontend shows it literally.
 */
import {
  MAX_PRESENTATION_ACTIONS,
  MAX_PRESENTATION_ACTIVITIES,
  MAX_PRESENTATION_BYTES,
  MAX_PRESENTATION_DETAIL_BYTES,
  MAX_PRESENTATION_LABEL_BYTES,
  MAX_PRESENTATION_REFERENCES,
} from "../bounds.js";
import {
  at,
  checkCount,
  duplicates,
  finish,
  index,
  isAbsent,
  member,
  quote,
  quoteList,
  readArray,
  readBoolean,
  readInteger,
  readObject,
  readOneOf,
  readString,
  refuse,
  rejectUnknown,
} from "../validate/fields.js";
import { measureJson } from "../validate/json-bounds.js";
import { Problems, type Checked } from "../validate/kit.js";
import { checkCollection } from "./presentation-collection.js";
import { urlProblem } from "./presentation-url.js";
import type { ResourceOwner } from "./types.js";
import type {
  PresentationAction,
  PresentationActivity,
  PresentationMetrics,
  PresentationReference,
  PresentationReferenceKind,
  PresentationScope,
  PresentationSnapshot,
  PresentationState,
  PresentationStatus,
  PresentationUpdateParams,
} from "./types-presentation.js";

export const PRESENTATION_STATES: readonly PresentationState[] = [
  "empty",
  "loading",
  "pending",
  "active",
  "running",
  "succeeded",
  "failed",
  "cancelled",
  "degraded",
  "stopped",
  "unavailable",
];
export const PRESENTATION_REFERENCE_KINDS: readonly PresentationReferenceKind[] = [
  "session",
  "artifact",
  "resource",
  "url",
];
export const PRESENTATION_METRICS = [
  "tool_calls",
  "input_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "output_tokens",
  "reasoning_tokens",
  "cost_microdollars",
] as const satisfies readonly (keyof PresentationMetrics)[];

const PARAMS = new Set(["parent_request_id", "resource_owner", "snapshot"]);
const OWNER = new Set(["session_id", "extension_instance_id", "process_generation"]);
const SNAPSHOT = new Set(["revision", "status", "activities", "collection", "actions"]);
const STATUS = new Set(["state", "label"]);
const ACTIVITY = new Set([
  "id",
  "kind",
  "state",
  "summary",
  "provenance",
  "started_at_ms",
  "finished_at_ms",
  "metrics",
  "references",
]);
const METRICS = new Set<string>(PRESENTATION_METRICS);
const REFERENCE = new Set(["kind", "id", "label"]);
const ACTION = new Set(["id", "label", "command", "arguments", "destructive"]);

/** What a snapshot must agree with besides its own shape. */
export interface PresentationContext {
  /** The commands this extension's manifest declares (PRES-15). */
  declaredCommands: readonly string[];
}

/** A checked update and how it is owned. */
export interface CheckedPresentationUpdate {
  params: PresentationUpdateParams;
  scope: PresentationScope;
}

/** presentation/update params, checked whole (PRES-01..18, PRES-21). */
export function validatePresentationUpdate(
  params: unknown,
  context: PresentationContext,
): Checked<CheckedPresentationUpdate> {
  const p = new Problems();
  const obj = readObject(p, "", params);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, PARAMS);
  const rawParent = member(obj, "parent_request_id");
  const rawOwner = member(obj, "resource_owner");
  // Both at once is ambiguous about whose state this is: refused, never resolved by precedence (PRES-04).
  if (!isAbsent(rawParent) && !isAbsent(rawOwner))
    p.add(
      "",
      "parent_request_id and resource_owner are mutually exclusive; send one, or neither for process-scoped state",
    );
  const parent = isAbsent(rawParent) ? undefined : readInteger(p, "parent_request_id", rawParent, 0);
  const owner = isAbsent(rawOwner) ? undefined : readOwner(p, rawOwner);
  const scope: PresentationScope = !isAbsent(rawParent) ? "request" : !isAbsent(rawOwner) ? "owner" : "process";
  const snapshot = readSnapshot(p, "snapshot", member(obj, "snapshot"), context, scope);
  if (!p.ok || snapshot === undefined) return refuse(p);
  const out: PresentationUpdateParams = { snapshot };
  if (parent !== undefined) out.parent_request_id = parent;
  if (owner !== undefined) out.resource_owner = owner;
  return finish(p, { params: out, scope });
}

/** One snapshot on its own, as an SDK checks it before sending (`scope` decides PRES-05). */
export function validatePresentationSnapshot(
  value: unknown,
  context: PresentationContext,
  scope: PresentationScope = "request",
): Checked<PresentationSnapshot> {
  const p = new Problems();
  return finish(p, readSnapshot(p, "", value, context, scope));
}

function readOwner(p: Problems, raw: unknown): ResourceOwner | undefined {
  const obj = readObject(p, "resource_owner", raw);
  if (obj === undefined) return undefined;
  rejectUnknown(p, "resource_owner", obj, OWNER);
  const session_id = readString(p, "resource_owner.session_id", member(obj, "session_id"), {
    nonBlank: true,
    maxBytes: MAX_PRESENTATION_LABEL_BYTES,
  });
  const extension_instance_id = readString(
    p,
    "resource_owner.extension_instance_id",
    member(obj, "extension_instance_id"),
    { nonBlank: true, maxBytes: MAX_PRESENTATION_LABEL_BYTES },
  );
  const process_generation = readInteger(p, "resource_owner.process_generation", member(obj, "process_generation"), 1);
  if (session_id === undefined || extension_instance_id === undefined || process_generation === undefined)
    return undefined;
  return { session_id, extension_instance_id, process_generation };
}

function readSnapshot(
  p: Problems,
  path: string,
  raw: unknown,
  context: PresentationContext,
  scope: PresentationScope,
): PresentationSnapshot | undefined {
  // Size first (PRES-17): it bounds the work of every later walk.
  const size = measureJson(raw, { maxBytes: MAX_PRESENTATION_BYTES, maxDepth: Infinity, maxNodes: Infinity }, path);
  if (!size.ok) {
    p.add(size.path, size.rule === "bytes" ? `snapshot of ${size.message}` : size.message);
    return undefined;
  }
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, SNAPSHOT);
  const revision = readInteger(p, at(path, "revision"), member(obj, "revision"), 0);
  const rawStatus = member(obj, "status");
  const status = isAbsent(rawStatus) ? undefined : readStatus(p, at(path, "status"), rawStatus);
  const refs: RefContext = { scope };
  const activities = readList(
    p,
    at(path, "activities"),
    member(obj, "activities"),
    MAX_PRESENTATION_ACTIVITIES,
    "activity",
    "activities",
    (q, itemPath, item) => readActivity(q, itemPath, item, refs),
  );
  const actions = readList(
    p,
    at(path, "actions"),
    member(obj, "actions"),
    MAX_PRESENTATION_ACTIONS,
    "action",
    "actions",
    (q, itemPath, item) => readAction(q, itemPath, item, context),
  );
  if (activities) uniqueIds(p, at(path, "activities"), activities, "activity");
  if (actions) uniqueIds(p, at(path, "actions"), actions, "action");
  const rawCollection = member(obj, "collection");
  const collection = isAbsent(rawCollection)
    ? undefined
    : checkCollection(p, at(path, "collection"), rawCollection, {
        actionIds: new Set((actions ?? []).map((a) => a.id)),
        references: (q, refPath, v) => readReferences(q, refPath, v, refs),
        label: readLabel,
        body: readBody,
        state: readState,
      });
  if (p.count !== before || revision === undefined || activities === undefined || actions === undefined)
    return undefined;
  if (!isAbsent(rawCollection) && collection === undefined) return undefined;
  const snapshot: PresentationSnapshot = { revision, activities, actions };
  if (status !== undefined) snapshot.status = status;
  if (collection !== undefined) snapshot.collection = collection;
  return snapshot;
}

/** An optional array (absent reads as []) with a count cap, each element read by `read`. */
function readList<T>(
  p: Problems,
  path: string,
  raw: unknown,
  max: number,
  noun: string,
  plural: string,
  read: (p: Problems, path: string, item: unknown) => T | undefined,
): T[] | undefined {
  if (isAbsent(raw)) return [];
  const list = readArray(p, path, raw);
  if (list === undefined || !checkCount(p, path, list.length, max, noun, plural)) return undefined;
  const before = p.count;
  const out = list.map((item, i) => read(p, index(path, i), item));
  return p.count === before ? (out as T[]) : undefined;
}

function uniqueIds(p: Problems, path: string, items: readonly { id: string }[], noun: string): void {
  const dup = duplicates(items.map((i) => i.id));
  if (dup.length > 0) p.add(path, `duplicate ${noun} ids ${quoteList(dup)}; ids are unique within a snapshot`);
}

function readStatus(p: Problems, path: string, raw: unknown): PresentationStatus | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  rejectUnknown(p, path, obj, STATUS);
  const state = readState(p, at(path, "state"), member(obj, "state"));
  const label = readOptionalLabel(p, at(path, "label"), member(obj, "label"));
  if (state === undefined) return undefined;
  return label === undefined ? { state } : { state, label };
}

interface RefContext {
  scope: PresentationScope;
}

function readActivity(p: Problems, path: string, raw: unknown, refs: RefContext): PresentationActivity | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, ACTIVITY);
  const id = readLabel(p, at(path, "id"), member(obj, "id"));
  const kind = readLabel(p, at(path, "kind"), member(obj, "kind"));
  const state = readState(p, at(path, "state"), member(obj, "state"));
  const summary = readOptionalLabel(p, at(path, "summary"), member(obj, "summary"));
  const provenance = readOptionalLabel(p, at(path, "provenance"), member(obj, "provenance"));
  const started = readOptionalInteger(p, at(path, "started_at_ms"), member(obj, "started_at_ms"));
  const finished = readOptionalInteger(p, at(path, "finished_at_ms"), member(obj, "finished_at_ms"));
  const rawMetrics = member(obj, "metrics");
  const metrics = isAbsent(rawMetrics) ? undefined : readMetrics(p, at(path, "metrics"), rawMetrics);
  const references = readReferences(p, at(path, "references"), member(obj, "references"), refs);
  if (p.count !== before || id === undefined || kind === undefined || state === undefined || references === undefined)
    return undefined;
  const a: PresentationActivity = { id, kind, state, references };
  if (summary !== undefined) a.summary = summary;
  if (provenance !== undefined) a.provenance = provenance;
  if (started !== undefined) a.started_at_ms = started;
  if (finished !== undefined) a.finished_at_ms = finished;
  if (metrics !== undefined) a.metrics = metrics;
  return a;
}

/** PRES-11: each counter an integer in [0, 2^53-1]; reasoning is a subset of output. */
function readMetrics(p: Problems, path: string, raw: unknown): PresentationMetrics | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, METRICS);
  const m: PresentationMetrics = {};
  for (const name of PRESENTATION_METRICS) {
    const v = readOptionalInteger(p, at(path, name), member(obj, name));
    if (v !== undefined) m[name] = v;
  }
  if (m.reasoning_tokens !== undefined && m.reasoning_tokens > (m.output_tokens ?? 0)) {
    p.add(
      at(path, "reasoning_tokens"),
      `${m.reasoning_tokens} is more than output_tokens ${m.output_tokens ?? "(absent, read as 0)"}; ` +
        `reasoning tokens are part of the output`,
    );
  }
  return p.count === before ? m : undefined;
}

function readReferences(
  p: Problems,
  path: string,
  raw: unknown,
  refs: RefContext,
): PresentationReference[] | undefined {
  return readList(p, path, raw, MAX_PRESENTATION_REFERENCES, "reference", "references", (q, itemPath, item) =>
    readReference(q, itemPath, item, refs),
  );
}

function readReference(p: Problems, path: string, raw: unknown, refs: RefContext): PresentationReference | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, REFERENCE);
  const kind = readOneOf(p, at(path, "kind"), member(obj, "kind"), PRESENTATION_REFERENCE_KINDS);
  const id = readLabel(p, at(path, "id"), member(obj, "id"));
  const label = readOptionalLabel(p, at(path, "label"), member(obj, "label"));
  if (kind === "url" && id !== undefined) {
    const problem = urlProblem(id);
    if (problem !== null) p.add(at(path, "id"), `${quote(id)} ${problem}`);
  }
  // Process-scoped state belongs to no session, so it cannot point at one (PRES-05, GAP default).
  if (kind === "session" && refs.scope === "process")
    p.add(
      at(path, "kind"),
      `"session" reference in process-scoped state; send it with parent_request_id or resource_owner`,
    );
  if (p.count !== before || kind === undefined || id === undefined) return undefined;
  return label === undefined ? { kind, id } : { kind, id, label };
}

function readAction(
  p: Problems,
  path: string,
  raw: unknown,
  context: PresentationContext,
): PresentationAction | undefined {
  const obj = readObject(p, path, raw);
  if (obj === undefined) return undefined;
  const before = p.count;
  rejectUnknown(p, path, obj, ACTION);
  const id = readLabel(p, at(path, "id"), member(obj, "id"));
  const label = readLabel(p, at(path, "label"), member(obj, "label"));
  const command = readLabel(p, at(path, "command"), member(obj, "command"));
  if (command !== undefined && !context.declaredCommands.includes(command)) {
    const declared = context.declaredCommands.length > 0 ? quoteList(context.declaredCommands) : "none";
    p.add(at(path, "command"), `${quote(command)} is not a command this manifest declares (declared: ${declared})`);
  }
  const rawArgs = member(obj, "arguments");
  // No count of its own: the snapshot's 256 KiB bounds the arguments, each a compact string.
  const args = readList(p, at(path, "arguments"), rawArgs, Infinity, "argument", "arguments", (q, argPath, v) =>
    readCompact(q, argPath, v, false),
  );
  const destructive = readBoolean(p, at(path, "destructive"), member(obj, "destructive"), false);
  if (
    p.count !== before ||
    id === undefined ||
    label === undefined ||
    command === undefined ||
    args === undefined ||
    destructive === undefined
  )
    return undefined;
  return { id, label, command, arguments: args, destructive };
}

/** A generic state (PRES-12). */
export function readState(p: Problems, path: string, raw: unknown): PresentationState | undefined {
  return readOneOf(p, path, raw, PRESENTATION_STATES);
}

/** A required compact label or id: non-blank, one line of plain text, 1 KiB (PRES-16, PRES-18). */
export function readLabel(p: Problems, path: string, raw: unknown): string | undefined {
  return readCompact(p, path, raw, true);
}

function readOptionalLabel(p: Problems, path: string, raw: unknown): string | undefined {
  return isAbsent(raw) ? undefined : readCompact(p, path, raw, false);
}

function readCompact(p: Problems, path: string, raw: unknown, nonBlank: boolean): string | undefined {
  const s = readString(p, path, raw, { nonBlank, maxBytes: MAX_PRESENTATION_LABEL_BYTES });
  return s !== undefined && checkDisplayText(p, path, s, false) ? s : undefined;
}

function readBody(p: Problems, path: string, raw: unknown): string | undefined {
  const s = readString(p, path, raw, { maxBytes: MAX_PRESENTATION_DETAIL_BYTES });
  return s !== undefined && checkDisplayText(p, path, s, true) ? s : undefined;
}

function readOptionalInteger(p: Problems, path: string, raw: unknown): number | undefined {
  return isAbsent(raw) ? undefined : readInteger(p, path, raw, 0);
}

/**
 * PRES-16: refuses control characters (Unicode Cc: C0, DEL, C1, so ESC and every ANSI sequence
 * with it) and the bidirectional overrides and isolates that reorder what a person reads. A
 * multi-line body may keep LF and TAB; CR is refused, as it overwrites a terminal line.
 */
export function checkDisplayText(p: Problems, path: string, s: string, multiline: boolean): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (multiline && (c === 0x0a || c === 0x09)) continue;
    const control = c < 0x20 || (c >= 0x7f && c <= 0x9f);
    const bidi = (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
    if (control || bidi) {
      const allowed = multiline
        ? "only LF and TAB are allowed in a detail body"
        : "labels and ids are one line of plain text";
      p.add(
        path,
        `${control ? "control" : "bidirectional control"} character ` +
          `U+${c.toString(16).toUpperCase().padStart(4, "0")} at index ${i}; ${allowed}`,
      );
      return false;
    }
  }
  return true;
}
