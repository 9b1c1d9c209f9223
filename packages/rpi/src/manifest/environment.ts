/**
 * The complete environment of an rpi child (RPI-18..20). The child starts from an empty
 * environment (env_clear): nothing of the host's environment is passed on, not PATH, not HOME,
 * not a credential. Manifests declare no environment entries (RPI-11), so the result is exactly
 * the PI_EXTENSION_* protocol variables; a node entry adds PATH (pi.exec needs it) and HOME.
 */
import { DEFAULT_MAX_FRAME_BYTES, PROTOCOL_VERSION } from "../protocol/frames.js";
import type { RpiLaunch } from "./resolve-launch.js";
import type { RpiManifest } from "./rpi-manifest.js";

export interface RpiEnvironmentOptions {
  /**
   * PI_EXTENSION_PACKAGE_ID. Default: the manifest's id. octet does not install rpi packages
   * (RPI-17), so a manifest directory is its own package and its id is the one stable name it
   * has; the directory name would change with wherever the user checked it out.
   */
  packageId?: string;
  /** The frame bound the host enforces, told to QuickJS and node entries (default DEFAULT_MAX_FRAME_BYTES, 1 MiB). */
  maxFrameBytes?: number;
  /** PATH of a node entry (default: the host's PATH, else NODE_DEFAULT_PATH). Other runtimes get none. */
  path?: string;
}

/**
 * PATH of a node entry when the host has none. Why a node entry gets a PATH at all: pi.exec("git",
 * ...) is how pi authors run commands, resolved on PATH as pi does; the entry is unsandboxed Node
 * with the user's rights, so the host's PATH hides nothing from it that it could not read anyway.
 */
export const NODE_DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin";

/** Refuses what an environment value cannot carry; these are host programming errors, not manifest problems. */
function envValue(name: string, value: string): string {
  if (value === "" || value.includes("\0"))
    throw new TypeError(`rpiEnvironment: ${name} must be a non-empty string without NUL, got ${JSON.stringify(value)}`);
  return value;
}

/**
 * The whole environment to start the child with: pass it as the spawn `env` as it is, never
 * merged into process.env.
 * - Every child: PI_EXTENSION_PROTOCOL_VERSION=1, PI_EXTENSION_ID=<manifest id>,
 *   PI_EXTENSION_PACKAGE_ID=<options.packageId, default the manifest id>.
 * - QuickJS and node: PI_EXTENSION_ENTRY=<canonical entry>, PI_EXTENSION_CAPABILITIES and
 *   PI_EXTENSION_UI_CAPABILITIES (JSON arrays, in manifest order), PI_EXTENSION_MAX_FRAME_BYTES.
 * - node only: PATH (options.path, default the host's PATH or NODE_DEFAULT_PATH) and the host's
 *   HOME when it has one.
 * Throws when the launch does not belong to the manifest's runtime or an option is malformed.
 */
export function rpiEnvironment(
  manifest: RpiManifest,
  launch: RpiLaunch,
  options: RpiEnvironmentOptions = {},
): Record<string, string> {
  if (launch.kind !== manifest.runtime) {
    throw new TypeError(
      `rpiEnvironment: a ${launch.kind} launch does not belong to the ${manifest.runtime} manifest ` +
        `${JSON.stringify(manifest.id)}`,
    );
  }
  const maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
  if (!Number.isSafeInteger(maxFrameBytes) || maxFrameBytes <= 0) {
    throw new RangeError(`rpiEnvironment: maxFrameBytes must be a positive integer, got ${String(maxFrameBytes)}`);
  }
  const env: Record<string, string> = {
    PI_EXTENSION_PROTOCOL_VERSION: String(PROTOCOL_VERSION),
    PI_EXTENSION_ID: envValue("PI_EXTENSION_ID", manifest.id),
    PI_EXTENSION_PACKAGE_ID: envValue("PI_EXTENSION_PACKAGE_ID", options.packageId ?? manifest.id),
  };
  if (launch.kind === "quickjs" || launch.kind === "node") {
    env["PI_EXTENSION_ENTRY"] = envValue("PI_EXTENSION_ENTRY", launch.entry);
    env["PI_EXTENSION_CAPABILITIES"] = JSON.stringify(manifest.capabilities);
    env["PI_EXTENSION_UI_CAPABILITIES"] = JSON.stringify(manifest.uiCapabilities);
    env["PI_EXTENSION_MAX_FRAME_BYTES"] = String(maxFrameBytes);
  }
  if (launch.kind === "node") {
    const host = process.env["PATH"];
    env["PATH"] = envValue("PATH", options.path ?? (host !== undefined && host !== "" ? host : NODE_DEFAULT_PATH));
    // HOME too: os.homedir() finds it in the password database anyway, and git, npm and pi
    // extensions (process.env.HOME) read it. No other host variable: those are where credentials live.
    const home = process.env["HOME"];
    if (home !== undefined && home !== "" && !home.includes("\0")) env["HOME"] = home;
  }
  return env;
}
