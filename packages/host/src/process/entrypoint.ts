/**
 * Resolving a manifest's [entrypoint]. The child's cwd is the workspace, not the extension's
 * folder (ENV-08), so a relative path in a manifest could only ever point into the workspace by
 * accident. A command or argument that starts with "./" or "../" is therefore resolved against
 * the extension's directory; everything else is passed verbatim, and a bare command is looked up
 * on the sanitized PATH (ENV-10). See docs/decisions.md.
 */
import { resolve } from "node:path";

export function resolveEntrypoint(
  entrypoint: { command: string; args: readonly string[] },
  extensionDir: string,
): { command: string; args: string[] } {
  return {
    command: resolveRelative(entrypoint.command, extensionDir),
    args: entrypoint.args.map((a) => resolveRelative(a, extensionDir)),
  };
}

function resolveRelative(value: string, dir: string): string {
  return value.startsWith("./") || value.startsWith("../") ? resolve(dir, value) : value;
}
