/**
 * What one generation is launched with: its private scratch directory (mode 0700, ENV-03), the
 * environment (allowlist plus the OCTET_* variables, ENV-01/05/06) and the resolved entrypoint
 * (ENV-10), run in the workspace (ENV-08).
 */
import { OCTET_VERSION, isNegotiated } from "@octet/protocol";
import type { ExtensionManifest } from "../manifest/manifest.js";
import { resolveEntrypoint } from "./entrypoint.js";
import { buildChildEnvironment } from "./environment.js";
import type { SpawnSpec } from "./spawn-child.js";

export { createScratch } from "./scratch.js";

export function launchSpec(
  spec: {
    manifest: ExtensionManifest;
    extensionDir: string;
    workspace: string;
    number: number;
    parentEnv: Readonly<Record<string, string | undefined>>;
  },
  scratch: string,
): SpawnSpec {
  const { manifest } = spec;
  const env = buildChildEnvironment(
    spec.parentEnv,
    {
      OCTET_VERSION,
      OCTET_API_VERSION: manifest.api_version,
      OCTET_EXTENSION_NAME: manifest.name,
      OCTET_EXTENSION_DIR: spec.extensionDir,
      OCTET_WORKSPACE: spec.workspace,
      OCTET_EXTENSION_SCRATCH: scratch,
      OCTET_PROCESS_GENERATION: String(spec.number),
      ...terminalDevice(spec.parentEnv),
    },
    isNegotiated(manifest.api_version) ? manifest.capabilities.environment : [],
  );
  const entry = resolveEntrypoint(manifest.entrypoint, spec.extensionDir);
  return { command: entry.command, args: entry.args, cwd: spec.workspace, env };
}

/** OCTET_TTY, the embedder's terminal device for terminal handoff, when it names an absolute path. */
function terminalDevice(env: Readonly<Record<string, string | undefined>>): { OCTET_TTY?: string } {
  const tty = env["OCTET_TTY"];
  return typeof tty === "string" && tty.startsWith("/") ? { OCTET_TTY: tty } : {};
}
