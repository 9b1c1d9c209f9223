/**
 * How the Node runner loads an extension's entry: bundled by bundlePiExtension (../load/) for
 * target "node", as pi's loader would have it: TypeScript in the entry's relative imports
 * transpiled, pi's packages the installed ones (or the shims where none is installed), the
 * package's own node_modules and Node's builtins left to Node. The bundle is a cached file with
 * its source map beside it; the runner starts with --enable-source-maps, so a stack names the
 * extension's own files and lines.
 */
import { pathToFileURL } from "node:url";
import { bundlePiExtension } from "../load/bundle.js";

/** The entry's default export, the factory (pi calls `module.default`); rejects with the reason it failed. */
export async function loadEntry(entry: string, packageDir: string): Promise<unknown> {
  const bundle = await bundlePiExtension({ packageDir, entry, target: "node" });
  const module = (await import(pathToFileURL(bundle.file).href)) as { default?: unknown };
  return module.default;
}
