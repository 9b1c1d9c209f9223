/**
 * The diagnostics family for authors (PY-23 in TypeScript): the record types, their conversion to
 * the wire profile metadata.octet_diagnostics_v1 (checked by @octet/protocol's validator, the one
 * the host reads with), and how a tool result carries them: the reserved metadata key plus the
 * plain-text projection as one more text part, added once (DIAG-01..03, DIAG-06, PY-24).
 * Diagnostics are descriptions: a location or fix names a place and suggests an edit, and grants
 * neither access nor permission to edit (DIAG-05).
 */
import {
  DIAGNOSTICS_METADATA_KEY,
  diagnosticsProjection,
  isPlainObject,
  validateDiagnostics,
  type ApiVersion,
  type ContentPart,
  type WireDiagnostic,
} from "@octet/protocol";
import type { ToolResultObject, ToolReturn } from "./types.js";
import type { DiagnosticSource, DiagnosticLocation, DiagnosticEdit, Diagnostic } from "./diagnostic-types.js";

export type {
  DiagnosticSeverity,
  DiagnosticSpan,
  WorkspaceSource,
  BlobSource,
  ArtifactSource,
  DiagnosticSource,
  DiagnosticLocation,
  DiagnosticRelated,
  DiagnosticEdit,
  DiagnosticFix,
  DiagnosticAttachment,
  Diagnostic,
} from "./diagnostic-types.js";

/** `result` with `diagnostics` added after any it already carries (Python's with_diagnostics). */
export function withDiagnostics(result: ToolReturn, diagnostics: readonly Diagnostic[]): ToolResultObject {
  const obj: ToolResultObject = typeof result === "string" ? { content: result } : result;
  return { ...obj, diagnostics: [...(obj.diagnostics ?? []), ...diagnostics] };
}

/**
 * Author diagnostics as the wire profile, or a TypeError naming the member and the rule. Unknown
 * members are passed through so the closed-record check refuses them rather than dropping them.
 */
export function toWireDiagnostics(list: readonly Diagnostic[]): WireDiagnostic[] {
  if (!Array.isArray(list)) throw new TypeError(`diagnostics must be an array, got ${typeof list}`);
  return checked(
    list.map((d) => (isPlainObject(d) ? wireDiagnostic(d as unknown as Diagnostic) : d)),
    "diagnostics",
  );
}

function checked(value: unknown, what: string): WireDiagnostic[] {
  const c = validateDiagnostics(value, what);
  if (!c.ok) throw new TypeError(`invalid ${what}: ${c.problems.join("; ")}`);
  return c.value;
}

function wireDiagnostic(d: Diagnostic): unknown {
  const out: Record<string, unknown> = { ...d };
  if (d.primary !== undefined) out["primary"] = wireLocation(d.primary);
  if (Array.isArray(d.related))
    out["related"] = d.related.map((r) => (isPlainObject(r) ? { ...r, location: wireLocation(r.location) } : r));
  if (Array.isArray(d.fixes)) {
    out["fixes"] = d.fixes.map((f) =>
      isPlainObject(f) && Array.isArray(f.edits) ? { ...f, edits: f.edits.map(wireEdit) } : f,
    );
  }
  if (Array.isArray(d.attachments))
    out["attachments"] = d.attachments.map((a) => (isPlainObject(a) ? { ...a, source: wireSource(a.source) } : a));
  return out;
}

function wireEdit(e: DiagnosticEdit): unknown {
  if (!isPlainObject(e)) return e;
  const { newText, ...rest } = e;
  return { ...rest, location: wireLocation(e.location), new_text: newText };
}

function wireLocation(l: DiagnosticLocation): unknown {
  return isPlainObject(l) ? { ...l, source: wireSource(l.source) } : l;
}

function wireSource(s: DiagnosticSource): unknown {
  if (!isPlainObject(s) || s.kind !== "artifact") return s;
  const { artifactId, ...rest } = s;
  return { ...rest, artifact_id: artifactId };
}

/**
 * The diagnostics a result carries, from `diagnostics` or raw metadata.octet_diagnostics_v1 (one
 * of the two), checked; null when it carries none. Throws a TypeError for a malformed or doubled
 * profile (PY-24): a result is never sent with a reserved key the host would refuse.
 */
export function resultDiagnostics(obj: ToolResultObject, api: ApiVersion): WireDiagnostic[] | null {
  const raw =
    isPlainObject(obj.metadata) && Object.hasOwn(obj.metadata, DIAGNOSTICS_METADATA_KEY)
      ? obj.metadata[DIAGNOSTICS_METADATA_KEY]
      : undefined;
  if (obj.diagnostics === undefined && raw === undefined) return null;
  if (api !== "0.4") throw new TypeError(`diagnostics need API 0.4 (this extension speaks API ${api})`);
  if (obj.diagnostics !== undefined && raw !== undefined) {
    throw new TypeError(`a result carries diagnostics and metadata.${DIAGNOSTICS_METADATA_KEY} both; use one`);
  }
  if (obj.diagnostics !== undefined && obj.metadata !== undefined && !isPlainObject(obj.metadata)) {
    throw new TypeError(
      `diagnostics go in metadata.${DIAGNOSTICS_METADATA_KEY}, but the result's metadata is not an object`,
    );
  }
  return raw !== undefined ? checked(raw, `metadata.${DIAGNOSTICS_METADATA_KEY}`) : toWireDiagnostics(obj.diagnostics!);
}

/** The parts with the projection appended as one text part, unless a text part already holds it (DIAG-03). */
export function withProjection(parts: ContentPart[], diagnostics: readonly WireDiagnostic[]): ContentPart[] {
  const text = diagnosticsProjection(diagnostics);
  if (text === "" || parts.some((p) => p.type === "text" && p.text.includes(text))) return parts;
  return [...parts, { type: "text", text }];
}

export { DIAGNOSTICS_METADATA_KEY };
