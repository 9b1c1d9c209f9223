/**
 * The problem type every manifest check reports (manifest.ts, manifest-values.ts, manifest-file.ts):
 * a leaf module, so the checks can share it without importing each other.
 */

export type ManifestErrorCode = "manifest_invalid" | "manifest_unsupported_api" | "version_mismatch";

export interface ManifestError {
  /** The manifest file (or directory) the problem is in. */
  file: string;
  /** Dotted key with array indexes, e.g. "contributes.tools[2]"; "" for the whole file. */
  key: string;
  /** Short rule token, e.g. "required", "type", "grammar", "bound", "unknown_key". */
  rule: string;
  /** `<file>: key "<key>": <what is wrong, with the value and the limit>`. */
  message: string;
  code: ManifestErrorCode;
}
