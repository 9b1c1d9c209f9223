/**
 * The start gate: whether a discovered extension is enabled, trusted and may start, with a
 * one-sentence reason that says what to do. Pure: no I/O, no persistence. Manifest validity and
 * the API 0.1 process gate (MAN-21) are checked by the caller, not here.
 */
import type { ManifestSource } from "@octet/protocol";

export interface TrustPolicy {
  /** Names given with --enable-extension (MAN-18). */
  enabled: ReadonlySet<string>;
  /** Names given with --trust-extension: explicit grants, honored in every mode. */
  trusted: ReadonlySet<string>;
  /** --safe-mode: removes the implicit trust of the full-access policy (MAN-20). */
  safeMode: boolean;
  /** The full-access policy: supplies trust to global extensions, never persisted (MAN-19). */
  fullAccess: boolean;
}

export interface StartDecision {
  enabled: boolean;
  trusted: boolean;
  start: boolean;
  reason: string;
}

type TrustBasis = "grant" | "extension_dir" | "full_access" | null;

function trustBasis(ext: { name: string; source: ManifestSource }, policy: TrustPolicy): TrustBasis {
  if (policy.trusted.has(ext.name)) return "grant";
  // The user pointed at this directory on the command line; that is a grant bound to the source.
  if (ext.source === "explicit") return "extension_dir";
  // Project manifests arrive with the repository, so implicit policy never covers them (MAN-22).
  if (ext.source === "global" && policy.fullAccess && !policy.safeMode) return "full_access";
  return null;
}

function untrustedReason(ext: { name: string; source: ManifestSource }, policy: TrustPolicy): string {
  const grant = `pass --trust-extension ${ext.name}`;
  if (ext.source === "project") return `project extension "${ext.name}" is not trusted: ${grant}`;
  if (policy.safeMode) return `global extension "${ext.name}" is not trusted in safe mode: ${grant}`;
  return `global extension "${ext.name}" is not trusted: ${grant} or use the full-access policy`;
}

/** Decides whether one discovered extension starts: it must be enabled and trusted. */
export function resolveStartDecision(
  ext: { name: string; source: ManifestSource },
  policy: TrustPolicy,
): StartDecision {
  const enabled = policy.enabled.has(ext.name);
  const basis = trustBasis(ext, policy);
  const trusted = basis !== null;
  if (!enabled) {
    const also = trusted ? "" : ` (it also needs --trust-extension ${ext.name})`;
    return {
      enabled,
      trusted,
      start: false,
      reason: `extension "${ext.name}" is not enabled: pass --enable-extension ${ext.name}${also}`,
    };
  }
  if (!trusted) return { enabled, trusted, start: false, reason: untrustedReason(ext, policy) };
  const why =
    basis === "grant"
      ? `trusted by --trust-extension ${ext.name}`
      : basis === "extension_dir"
        ? "trusted because it was loaded with --extension-dir"
        : "trusted by the full-access policy (not persisted)";
  return { enabled, trusted, start: true, reason: `extension "${ext.name}" is enabled and ${why}` };
}
