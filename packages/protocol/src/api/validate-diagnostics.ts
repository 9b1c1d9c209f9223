/**
 * The typed diagnostics profile of a tool result: `metadata.octet_diagnostics_v1` (DIAG-01,
 * DIAG-02, DIAG-06) and its plain-text projection (DIAG-03). Owns the closed record shapes, their
 * bounds and the projection's wording, so every SDK and the host read one profile. Left to the
 * host: whether a referenced blob or artifact is one this owner may name (DIAG-04, DIAG-05).
 *
 * The text names the records but not their members ("the shared SDK contract", DIAG-06 GAP). The
 * shapes chosen here:
 *   Diagnostic  {severity, code, message, primary?, related?, fixes?, attachments?}
 *   Location    {source, span?}            span: {start, end}, UTF-8 byte offsets, start <= end
 *   Source      {kind:"workspace", path, revision?} | {kind:"blob", blob: BlobRef}
 *               | {kind:"artifact", artifact_id}
 *   Related     {location, message}
 *   Fix         {title, edits: Edit[1..]}   Edit: {location, new_text}; the location must be a
 *               workspace source with a revision and a span: a fix is checked against the
 *               revision it was computed for, and is a suggestion only (DIAG-05)
 *   Attachment  {label, source}             source: a blob or artifact source
 * Every record is closed; optional members may be absent or null (read as absent).
 */
import {
  MAX_BLOB_TOKEN_BYTES,
  MAX_DIAGNOSTIC_ATTACHMENTS,
  MAX_DIAGNOSTIC_CODE_BYTES,
  MAX_DIAGNOSTIC_EDIT_TEXT_BYTES,
  MAX_DIAGNOSTIC_EDITS,
  MAX_DIAGNOSTIC_FIXES,
  MAX_DIAGNOSTIC_LABEL_BYTES,
  MAX_DIAGNOSTIC_MESSAGE_BYTES,
  MAX_DIAGNOSTIC_PATH_BYTES,
  MAX_DIAGNOSTIC_RELATED,
  MAX_DIAGNOSTIC_REVISION_BYTES,
  MAX_DIAGNOSTICS,
  MAX_DIAGNOSTICS_BYTES,
  MAX_DIAGNOSTICS_PROJECTED,
  MAX_DIAGNOSTICS_PROJECTION_BYTES,
  MAX_MEDIA_TYPE_BYTES,
  MAX_VALUE_DEPTH,
  MAX_VALUE_NODES,
} from "../bounds.js";
import {
  at,
  checkCount,
  finish,
  index,
  refuse,
  isAbsent,
  member,
  quote,
  readArray,
  readInteger,
  readObject,
  readOneOf,
  readString,
  rejectUnknown,
} from "../validate/fields.js";
import { truncateUtf8 } from "../text/utf8-truncate.js";
import { measureJson } from "../validate/json-bounds.js";
import { Problems, type Checked } from "../validate/kit.js";

/** The reserved metadata key of the profile (DIAG-01, PY-24). */
export const DIAGNOSTICS_METADATA_KEY = "octet_diagnostics_v1";
export const DIAGNOSTIC_SEVERITIES = ["error", "warning", "info", "hint"] as const;
export type DiagnosticSeverity = (typeof DIAGNOSTIC_SEVERITIES)[number];
/** A dotted/slashed identifier such as "solver.nonconvergent" or "ts/2322": no spaces, no controls. */
export const DIAGNOSTIC_CODE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

export interface WireBlobRef {
  $blob: string;
  bytes: number;
  digest: { algorithm: "sha256"; value: string };
  media_type: string;
}
export type WireDiagnosticSource =
  | { kind: "workspace"; path: string; revision?: string }
  | { kind: "blob"; blob: WireBlobRef }
  | { kind: "artifact"; artifact_id: string };
export interface WireDiagnosticLocation {
  source: WireDiagnosticSource;
  span?: { start: number; end: number };
}
export interface WireDiagnostic {
  severity: DiagnosticSeverity;
  code: string;
  message: string;
  primary?: WireDiagnosticLocation;
  related?: { location: WireDiagnosticLocation; message: string }[];
  fixes?: { title: string; edits: { location: WireDiagnosticLocation; new_text: string }[] }[];
  attachments?: { label: string; source: WireDiagnosticSource }[];
}

const DIAGNOSTIC_MEMBERS = new Set(["severity", "code", "message", "primary", "related", "fixes", "attachments"]);
const LOCATION_MEMBERS = new Set(["source", "span"]);
const SPAN_MEMBERS = new Set(["start", "end"]);
const SOURCE_MEMBERS = {
  workspace: new Set(["kind", "path", "revision"]),
  blob: new Set(["kind", "blob"]),
  artifact: new Set(["kind", "artifact_id"]),
};
const BLOB_MEMBERS = new Set(["$blob", "bytes", "digest", "media_type"]);
const DIGEST_MEMBERS = new Set(["algorithm", "value"]);
const RELATED_MEMBERS = new Set(["location", "message"]);
const FIX_MEMBERS = new Set(["title", "edits"]);
const EDIT_MEMBERS = new Set(["location", "new_text"]);
const ATTACHMENT_MEMBERS = new Set(["label", "source"]);
const SHA256_HEX = /^[0-9a-f]{64}$/;
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

/**
 * The value of metadata.octet_diagnostics_v1: at most 32 diagnostics and 64 KiB encoded, every
 * record closed and bounded. Returns the diagnostics with absent/null optional members left out.
 */
export function validateDiagnostics(value: unknown, path = DIAGNOSTICS_METADATA_KEY): Checked<WireDiagnostic[]> {
  const p = new Problems();
  const list = readArray(p, path, value);
  if (list === undefined || !checkCount(p, path, list.length, MAX_DIAGNOSTICS, "diagnostic")) return refuse(p);
  // Size first: a hostile value costs at most the walk up to the limit.
  const size = measureJson(
    list,
    { maxBytes: MAX_DIAGNOSTICS_BYTES, maxDepth: MAX_VALUE_DEPTH, maxNodes: MAX_VALUE_NODES },
    path,
  );
  if (!size.ok) {
    p.add("", size.message);
    return refuse(p);
  }
  const out = list.map((d, i) => readDiagnostic(p, index(path, i), d));
  return finish(p, p.ok ? (out as WireDiagnostic[]) : undefined);
}

function readDiagnostic(p: Problems, path: string, v: unknown): WireDiagnostic | undefined {
  const obj = readObject(p, path, v);
  if (obj === undefined) return undefined;
  rejectUnknown(p, path, obj, DIAGNOSTIC_MEMBERS);
  const severity = readOneOf(p, at(path, "severity"), member(obj, "severity"), DIAGNOSTIC_SEVERITIES);
  const code = readString(p, at(path, "code"), member(obj, "code"), {
    nonBlank: true,
    maxBytes: MAX_DIAGNOSTIC_CODE_BYTES,
  });
  if (code !== undefined && !DIAGNOSTIC_CODE_PATTERN.test(code))
    p.add(at(path, "code"), `${quote(code)} does not match ${DIAGNOSTIC_CODE_PATTERN.source}`);
  const message = readString(p, at(path, "message"), member(obj, "message"), {
    nonBlank: true,
    maxBytes: MAX_DIAGNOSTIC_MESSAGE_BYTES,
    plainText: true,
  });
  if (severity === undefined || code === undefined || message === undefined) return undefined;
  const d: WireDiagnostic = { severity, code, message };
  const primary = member(obj, "primary");
  if (!isAbsent(primary)) {
    const loc = readLocation(p, at(path, "primary"), primary);
    if (loc) d.primary = loc;
  }
  const related = optionalList(
    p,
    at(path, "related"),
    member(obj, "related"),
    MAX_DIAGNOSTIC_RELATED,
    "related location",
    (q, w, r) => {
      const o = readObject(q, w, r);
      if (o === undefined) return undefined;
      rejectUnknown(q, w, o, RELATED_MEMBERS);
      const location = readLocation(q, at(w, "location"), member(o, "location"));
      const msg = readString(q, at(w, "message"), member(o, "message"), {
        nonBlank: true,
        maxBytes: MAX_DIAGNOSTIC_MESSAGE_BYTES,
        plainText: true,
      });
      return location && msg !== undefined ? { location, message: msg } : undefined;
    },
  );
  if (related) d.related = related;
  const fixes = optionalList(p, at(path, "fixes"), member(obj, "fixes"), MAX_DIAGNOSTIC_FIXES, "fix", readFix);
  if (fixes) d.fixes = fixes;
  const attachments = optionalList(
    p,
    at(path, "attachments"),
    member(obj, "attachments"),
    MAX_DIAGNOSTIC_ATTACHMENTS,
    "attachment",
    (q, w, r) => {
      const o = readObject(q, w, r);
      if (o === undefined) return undefined;
      rejectUnknown(q, w, o, ATTACHMENT_MEMBERS);
      const label = readString(q, at(w, "label"), member(o, "label"), {
        nonBlank: true,
        maxBytes: MAX_DIAGNOSTIC_LABEL_BYTES,
        plainText: true,
      });
      const source = readSource(q, at(w, "source"), member(o, "source"));
      if (source && source.kind === "workspace")
        q.add(at(at(w, "source"), "kind"), "an attachment names a blob or an artifact, not a workspace file");
      return label !== undefined && source && source.kind !== "workspace" ? { label, source } : undefined;
    },
  );
  if (attachments) d.attachments = attachments;
  return d;
}

function optionalList<T>(
  p: Problems,
  path: string,
  v: unknown,
  max: number,
  noun: string,
  read: (p: Problems, path: string, v: unknown) => T | undefined,
): T[] | undefined {
  if (isAbsent(v)) return undefined;
  const list = readArray(p, path, v);
  if (list === undefined || !checkCount(p, path, list.length, max, noun)) return undefined;
  const before = p.count;
  const out = list.map((item, i) => read(p, index(path, i), item));
  return p.count === before ? (out as T[]) : undefined;
}

function readFix(
  p: Problems,
  path: string,
  v: unknown,
): { title: string; edits: { location: WireDiagnosticLocation; new_text: string }[] } | undefined {
  const o = readObject(p, path, v);
  if (o === undefined) return undefined;
  rejectUnknown(p, path, o, FIX_MEMBERS);
  const title = readString(p, at(path, "title"), member(o, "title"), {
    nonBlank: true,
    maxBytes: MAX_DIAGNOSTIC_LABEL_BYTES,
    plainText: true,
  });
  const editsPath = at(path, "edits");
  const raw = member(o, "edits");
  if (Array.isArray(raw) && raw.length === 0) p.add(editsPath, "must not be empty; a fix suggests at least one edit");
  const edits = isAbsent(raw)
    ? (p.add(editsPath, "missing; expected an array of edits"), undefined)
    : optionalList(p, editsPath, raw, MAX_DIAGNOSTIC_EDITS, "edit", (q, w, r) => {
        const e = readObject(q, w, r);
        if (e === undefined) return undefined;
        rejectUnknown(q, w, e, EDIT_MEMBERS);
        const location = readLocation(q, at(w, "location"), member(e, "location"));
        const text = readString(q, at(w, "new_text"), member(e, "new_text"), {
          maxBytes: MAX_DIAGNOSTIC_EDIT_TEXT_BYTES,
        });
        if (location) {
          // Revision-checked edits only: an edit without the revision and span it was computed
          // against could land on a file that changed since.
          if (location.source.kind !== "workspace")
            q.add(at(at(at(w, "location"), "source"), "kind"), "an edit applies to a workspace file only");
          else if (location.source.revision === undefined)
            q.add(
              at(at(at(w, "location"), "source"), "revision"),
              "missing; an edit must name the revision it was computed against",
            );
          if (location.span === undefined) q.add(at(at(w, "location"), "span"), "missing; an edit replaces a span");
        }
        return location && text !== undefined ? { location, new_text: text } : undefined;
      });
  return title !== undefined && edits && edits.length > 0 ? { title, edits } : undefined;
}

function readLocation(p: Problems, path: string, v: unknown): WireDiagnosticLocation | undefined {
  const o = readObject(p, path, v);
  if (o === undefined) return undefined;
  rejectUnknown(p, path, o, LOCATION_MEMBERS);
  const source = readSource(p, at(path, "source"), member(o, "source"));
  const rawSpan = member(o, "span");
  let span: { start: number; end: number } | undefined;
  if (!isAbsent(rawSpan)) {
    const sp = at(path, "span");
    const s = readObject(p, sp, rawSpan);
    if (s !== undefined) {
      rejectUnknown(p, sp, s, SPAN_MEMBERS);
      const start = readInteger(p, at(sp, "start"), member(s, "start"), 0);
      const end = readInteger(p, at(sp, "end"), member(s, "end"), 0);
      if (start !== undefined && end !== undefined) {
        if (end < start) p.add(sp, `end ${end} is before start ${start}; spans are [start, end) UTF-8 byte offsets`);
        else span = { start, end };
      }
    }
    if (span === undefined) return undefined;
  }
  if (source === undefined) return undefined;
  return span === undefined ? { source } : { source, span };
}

function readSource(p: Problems, path: string, v: unknown): WireDiagnosticSource | undefined {
  const o = readObject(p, path, v);
  if (o === undefined) return undefined;
  const kind = readOneOf(p, at(path, "kind"), member(o, "kind"), ["workspace", "blob", "artifact"] as const);
  if (kind === undefined) return undefined;
  rejectUnknown(p, path, o, SOURCE_MEMBERS[kind]);
  if (kind === "workspace") {
    const wpath = readString(p, at(path, "path"), member(o, "path"), {
      nonBlank: true,
      maxBytes: MAX_DIAGNOSTIC_PATH_BYTES,
    });
    if (wpath !== undefined) {
      const bad = workspacePathProblem(wpath);
      if (bad) p.add(at(path, "path"), bad);
    }
    const rawRevision = member(o, "revision");
    const revision = isAbsent(rawRevision)
      ? undefined
      : readString(p, at(path, "revision"), rawRevision, {
          nonBlank: true,
          maxBytes: MAX_DIAGNOSTIC_REVISION_BYTES,
          plainText: true,
        });
    if (wpath === undefined || (!isAbsent(rawRevision) && revision === undefined)) return undefined;
    if (revision !== undefined && /\s/.test(revision)) {
      p.add(at(path, "revision"), `${quote(revision)} contains whitespace; a revision is one token`);
      return undefined;
    }
    return revision === undefined ? { kind, path: wpath } : { kind, path: wpath, revision };
  }
  if (kind === "artifact") {
    const id = readString(p, at(path, "artifact_id"), member(o, "artifact_id"), {
      nonBlank: true,
      maxBytes: MAX_BLOB_TOKEN_BYTES,
      plainText: true,
    });
    return id === undefined ? undefined : { kind, artifact_id: id };
  }
  const blob = readBlobRef(p, at(path, "blob"), member(o, "blob"));
  return blob === undefined ? undefined : { kind, blob };
}

/** The closed sha256 BlobRef descriptor of bulk_objects_v1 (W 2.27); knowing it grants nothing. */
function readBlobRef(p: Problems, path: string, v: unknown): WireBlobRef | undefined {
  const o = readObject(p, path, v);
  if (o === undefined) return undefined;
  rejectUnknown(p, path, o, BLOB_MEMBERS);
  const token = readString(p, at(path, "$blob"), member(o, "$blob"), {
    nonBlank: true,
    maxBytes: MAX_BLOB_TOKEN_BYTES,
    plainText: true,
  });
  const bytes = readInteger(p, at(path, "bytes"), member(o, "bytes"), 0);
  const mediaType = readString(p, at(path, "media_type"), member(o, "media_type"), { maxBytes: MAX_MEDIA_TYPE_BYTES });
  if (mediaType !== undefined && !MEDIA_TYPE.test(mediaType))
    p.add(at(path, "media_type"), `${quote(mediaType)} is not a lowercase type/subtype media type`);
  const dp = at(path, "digest");
  const d = readObject(p, dp, member(o, "digest"));
  let digest: WireBlobRef["digest"] | undefined;
  if (d !== undefined) {
    rejectUnknown(p, dp, d, DIGEST_MEMBERS);
    const algorithm = readOneOf(p, at(dp, "algorithm"), member(d, "algorithm"), ["sha256"] as const);
    const value = readString(p, at(dp, "value"), member(d, "value"));
    if (value !== undefined && !SHA256_HEX.test(value))
      p.add(at(dp, "value"), `${quote(value)} is not 64 lowercase hex digits`);
    else if (algorithm !== undefined && value !== undefined) digest = { algorithm, value };
  }
  if (
    token === undefined ||
    bytes === undefined ||
    mediaType === undefined ||
    !MEDIA_TYPE.test(mediaType) ||
    digest === undefined
  )
    return undefined;
  return { $blob: token, bytes, digest, media_type: mediaType };
}

/**
 * A workspace-relative path with "/" separators: not absolute, no "." or ".." or empty segment,
 * no backslash or control character. A diagnostic cannot point outside the workspace by spelling.
 */
function workspacePathProblem(path: string): string | null {
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path))
    return `${quote(path)} is absolute; expected a workspace-relative path`;
  if (path.includes("\\")) return `${quote(path)} contains a backslash; use "/" separators`;
  if (/[\u0000-\u001f\u007f-\u009f]/.test(path)) return `${quote(path)} contains a control character`;
  if (path.split("/").some((s) => s === "" || s === "." || s === ".."))
    return `${quote(path)} has an empty, "." or ".." segment`;
  return null;
}

/**
 * The plain-text projection of diagnostics (DIAG-03): one line per diagnostic for the first
 * eight, "+N more" when there are more, at most 4096 UTF-8 bytes (cut on a character boundary).
 * Messages are one line here (LF and TAB become spaces) so a line is always one diagnostic.
 * Deterministic, so a reader (and the SDK) can tell whether a text already carries it.
 */
export function diagnosticsProjection(diagnostics: readonly WireDiagnostic[]): string {
  if (diagnostics.length === 0) return "";
  const lines = [`Diagnostics (${diagnostics.length}):`];
  for (const d of diagnostics.slice(0, MAX_DIAGNOSTICS_PROJECTED)) {
    const where = d.primary ? ` [${locationText(d.primary)}]` : "";
    lines.push(`- ${d.severity} ${d.code}: ${d.message}${where}`.replace(/[\n\t]/g, " "));
  }
  const rest = diagnostics.length - MAX_DIAGNOSTICS_PROJECTED;
  if (rest > 0) lines.push(`- +${rest} more in metadata.${DIAGNOSTICS_METADATA_KEY}`);
  return truncateUtf8(lines.join("\n"), MAX_DIAGNOSTICS_PROJECTION_BYTES);
}

function locationText(loc: WireDiagnosticLocation): string {
  const s = loc.source;
  const name =
    s.kind === "workspace"
      ? `${s.path}${s.revision !== undefined ? `@${s.revision}` : ""}`
      : s.kind === "blob"
        ? `blob ${s.blob.digest.value.slice(0, 12)}`
        : `artifact ${s.artifact_id}`;
  return loc.span ? `${name} bytes ${loc.span.start}-${loc.span.end}` : name;
}
