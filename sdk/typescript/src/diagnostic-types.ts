/**
 * The diagnostic record types authors build (PY-23 in TypeScript). A leaf: types.ts (a tool
 * result may carry them) and diagnostics.ts (their conversion to the wire) both import it, so
 * neither imports the other for a type.
 */
import type { DiagnosticSeverity, WireBlobRef } from "@octet/protocol";

export type { DiagnosticSeverity };
/** [start, end) in UTF-8 bytes of the source, start <= end. */
export interface DiagnosticSpan {
  start: number;
  end: number;
}
/** A workspace-relative file ("/" separators); revision is the version the diagnostic was computed on. */
export interface WorkspaceSource {
  kind: "workspace";
  path: string;
  revision?: string;
}
/** An immutable blob the host already issued (bulk_objects_v1 BlobRef, passed through as received). */
export interface BlobSource {
  kind: "blob";
  blob: WireBlobRef;
}
/** An artifact this generation already published (ctx.publishArtifact). */
export interface ArtifactSource {
  kind: "artifact";
  artifactId: string;
}
export type DiagnosticSource = WorkspaceSource | BlobSource | ArtifactSource;
export interface DiagnosticLocation {
  source: DiagnosticSource;
  span?: DiagnosticSpan;
}
export interface DiagnosticRelated {
  location: DiagnosticLocation;
  message: string;
}
/** A suggested replacement of a span in a workspace file at a named revision. */
export interface DiagnosticEdit {
  location: DiagnosticLocation;
  newText: string;
}
export interface DiagnosticFix {
  title: string;
  edits: DiagnosticEdit[];
}
export interface DiagnosticAttachment {
  label: string;
  source: BlobSource | ArtifactSource;
}
export interface Diagnostic {
  severity: DiagnosticSeverity;
  /** A stable identifier such as "solver.nonconvergent": at most 128 bytes, no spaces. */
  code: string;
  /** Plain text (LF and TAB allowed), at most 4 KiB. */
  message: string;
  primary?: DiagnosticLocation;
  related?: DiagnosticRelated[];
  fixes?: DiagnosticFix[];
  attachments?: DiagnosticAttachment[];
}
