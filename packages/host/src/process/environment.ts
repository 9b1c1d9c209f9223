/**
 * The child's environment: an allowlist of host variables plus the OCTET_* variables, built on a
 * null-prototype object so neither a polluted Object.prototype nor anything outside the list
 * reaches the child (ENV-04, ENV-05). Never spread process.env.
 */

/** Host variables passed through when present (ENV-05). LC_* is matched by prefix. */
export const ENV_ALLOWLIST: readonly string[] = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "LANG",
  "TERM",
  "TMPDIR",
  "SHELL",
  "TZ",
];
const ALLOWED_PREFIXES: readonly string[] = ["LC_"];

/** The OCTET_* variables every extension child receives (ENV-01); documented in the README. */
export interface OctetVariables {
  OCTET_VERSION: string;
  OCTET_API_VERSION: string;
  OCTET_EXTENSION_NAME: string;
  OCTET_EXTENSION_DIR: string;
  OCTET_WORKSPACE: string;
  OCTET_EXTENSION_SCRATCH: string;
  OCTET_PROCESS_GENERATION: string;
  /**
   * The terminal device an extension writes to while it holds a terminal grant (W 2.24): given
   * only when the embedder names one as OCTET_TTY in the environment it gives the host.
   */
  OCTET_TTY?: string;
}

export function buildChildEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  octet: OctetVariables,
  declared: readonly string[] = [],
): Record<string, string> {
  const env = Object.create(null) as Record<string, string>;
  for (const key of Object.keys(parent)) {
    const value = parent[key];
    if (typeof value !== "string") continue;
    if (ENV_ALLOWLIST.includes(key) || ALLOWED_PREFIXES.some((p) => key.startsWith(p))) env[key] = value;
  }
  // Declared ambient names (API 0.2+ [capabilities].environment: only SSH_AUTH_SOCK) are copied
  // only when present (ENV-06).
  for (const key of declared) {
    const value = Object.hasOwn(parent, key) ? parent[key] : undefined;
    if (typeof value === "string") env[key] = value;
  }
  for (const [key, value] of Object.entries(octet)) env[key] = value;
  return env;
}
