/**
 * How the Node runner loads an extension's entry: the one call site to change when entries are
 * bundled (bundlePiExtension in ../load/, TypeScript and the pi import shims): bundle
 * {packageDir, entry, target: "node"} there and import the bundle here. Until then a .js/.mjs
 * entry is imported as it is, with Node's own resolution (its relative imports and the package's
 * node_modules), the way pi's loader imports a JavaScript extension.
 */
import { pathToFileURL } from "node:url";

/** The entry's factory: its default export (pi calls `module.default`). Rejects with the import's error. */
export async function loadEntry(entry: string, _packageDir: string): Promise<unknown> {
  const module = (await import(pathToFileURL(entry).href)) as { default?: unknown };
  return module.default;
}
