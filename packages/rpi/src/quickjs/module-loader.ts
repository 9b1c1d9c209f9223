/**
 * Which files a QuickJS extension may load as ES modules: the entry and what it imports
 * relatively, all inside the package directory, all .js or .mjs. The worker resolves and reads
 * every module through here (installModuleLoader); there is no other way for extension code to
 * reach the filesystem.
 *
 * Contract: a module's name is its canonical (realpath) absolute path, so one file is one module
 * however it is reached. Bare specifiers ("os", "std", "node:fs", "lodash"), absolute and URL
 * specifiers, other extensions, missing files, non-files and anything whose canonical path
 * leaves the package (parent traversal, symlink escape) fail with an Error that names the
 * specifier, the importing module (relative to the package) and the rule, and never a host path:
 * every refusal of a path is the same message, so imports cannot probe the host's file system.
 */
import { readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, extname, isAbsolute, relative, resolve, sep } from "node:path";
import type { QuickJSRuntime } from "quickjs-emscripten-core";

const EXTENSIONS = new Set([".js", ".mjs"]);

function inside(packageDir: string, path: string): boolean {
  const rel = relative(packageDir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/**
 * What an extension is told for any import it may not have: one message whatever the reason
 * (missing, outside the package, a directory, a symlink escape), with no host path in it. A
 * message that told "does not exist" from "is outside the package" would let a package probe the
 * host's file system one import at a time (issue 13j).
 */
const REFUSED = "refused: only existing .js and .mjs files inside the extension package can be imported";

/** Checks a candidate path against the rules and returns its canonical form. */
export function canonicalModulePath(packageDir: string, path: string, what: string): string {
  if (!EXTENSIONS.has(extname(path)))
    throw new Error(
      `${what}: only .js and .mjs modules can be loaded (got ${JSON.stringify(extname(path) || "no extension")})`,
    );
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw new Error(`${what}: ${REFUSED}`);
  }
  if (!inside(packageDir, real) || !EXTENSIONS.has(extname(real)) || !statSync(real).isFile())
    throw new Error(`${what}: ${REFUSED}`);
  return real;
}

/** A module's name as the extension may see it: relative to its package ("./lib/a.js"), never a host path. */
function shown(packageDir: string, name: string): string {
  return isAbsolute(name) && inside(packageDir, name)
    ? `./${relative(packageDir, name).split(sep).join("/")}`
    : "the extension";
}

/** Resolves `specifier` imported by the module named `base`; see the module contract. */
export function resolveModule(packageDir: string, base: string, specifier: string): string {
  const what = `import ${JSON.stringify(specifier)} from ${shown(packageDir, base)}`;
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) {
    throw new Error(
      `${what}: only relative imports ("./" or "../") of files inside the extension package are allowed; there are ` +
        `no built-in or host modules`,
    );
  }
  return canonicalModulePath(packageDir, resolve(dirname(base), specifier), what);
}

/** Reads a module named by resolveModule (or the entry), re-checking the rules at read time. */
export function readModule(packageDir: string, name: string): string {
  const real = canonicalModulePath(packageDir, name, `module ${shown(packageDir, name)}`);
  return readFileSync(real, "utf8");
}

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** Makes `runtime` load modules by the rules above; the entry is evaluated by the caller. */
export function installModuleLoader(
  runtime: QuickJSRuntime,
  packageDir: string,
  entry: string,
  sources?: Map<string, string>,
): void {
  // quickjs-emscripten 0.32 drops a normalizer's error (the loader is then asked for ""), so a
  // refused import is normalized to a unique name the loader answers with the refusal.
  const refused = new Map<string, Error>();
  let refusals = 0;
  runtime.setModuleLoader(
    (name) => {
      const refusal = refused.get(name);
      refused.delete(name);
      try {
        if (refusal !== undefined) throw refusal;
        const text = readModule(packageDir, name);
        sources?.set(name, text);
        return text;
      } catch (error) {
        return { error: asError(error) };
      }
    },
    (base, requested) => {
      try {
        // Code made by eval or new Function has no file ("<input>"): it imports as the entry does.
        return resolveModule(packageDir, isAbsolute(base) ? base : entry, requested);
      } catch (error) {
        const name = `octet:refused-import/${++refusals}`;
        refused.set(name, asError(error));
        return name;
      }
    },
  );
}
