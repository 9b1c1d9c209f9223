/**
 * bundlePiExtension: a pi extension's entry (TypeScript or JavaScript) and its relative imports
 * made into one ES module text with a source map, as pi loads them with jiti, for the QuickJS
 * engine (which then needs no module loading at all) or for a Node process runner.
 *
 * Contract:
 * - Files of the extension: only existing .ts, .mts, .js and .mjs files inside `packageDir`
 *   (symlinks followed) are read; `import "./x.js"` finds x.ts as TypeScript does. Any other
 *   relative, absolute or URL import fails with the one message PI_IMPORT_REFUSED whatever the
 *   reason, so imports cannot probe the host's file system (the rule of quickjs/module-loader.ts).
 * - Bare imports, target "quickjs": `typebox` and `@sinclair/typebox` are the real
 *   @sinclair/typebox bundled in; pi's packages are shims (shims.ts); a package installed inside
 *   the extension's own folder is bundled; Node builtins and everything else stay imports, which
 *   the QuickJS module loader refuses at load, naming the module. The bundle binds a module-local
 *   `console` to the prelude's (shims.ts CONSOLE_BANNER), so the extension's console calls reach
 *   its diagnostics while the runtime keeps no console global (QJS-17).
 * - Bare imports, target "node": resolved as Node would from the extension's folder, then from
 *   octet's own install, and left as imports of the resolved file; pi's packages that are not
 *   installed anywhere become the shims; builtins stay as they are.
 * - Failures (syntax errors, refused or missing imports) reject with a PiBundleError whose message
 *   names each problem's file relative to the package, line and column.
 * - Cache: one entry per (package, entry, target, PI_LOADER_VERSION) under `cacheDir`, reused
 *   while the content hash of every file the last build read is unchanged; otherwise rebuilt.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, realpath, rename, stat, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
// esbuild is imported when a pi file is bundled, not when rpi loads: every octet command loads
// rpi (the CLI passes its runtime to the host), and esbuild's module costs most of that start.
import type { BuildFailure, Message, Plugin } from "esbuild";
import { CONSOLE_BANNER, NO_PROCESS_BANNER, PI_LOADER_VERSION, PI_SHIMMED_PACKAGES, shimSource } from "./shims.js";

export type PiBundleTarget = "quickjs" | "node";

export interface PiBundleOptions {
  /** The extension's folder: every file of the extension must be inside it. */
  packageDir: string;
  /** The entry file (absolute, or relative to packageDir). */
  entry: string;
  target: PiBundleTarget;
  /**
   * Where bundles are cached; default $OCTET_HOME/cache/pi when OCTET_HOME is set, else
   * <os temp>/octet-pi-cache-<user>.
   */
  cacheDir?: string;
}

export interface PiBundle {
  /** The bundle: one ES module, no relative imports left. */
  code: string;
  /** Its version 3 source map (sources as absolute paths). */
  map: string;
  /**
   * The cached bundle as a file (with a sourceMappingURL comment and a .map beside it), for Node;
   * always written for target "node" (an unwritable cache fails it), best effort for "quickjs".
   */
  file: string;
  /** The canonical package directory and entry the bundle was made from. */
  packageDir: string;
  entry: string;
  /** Whether the bundle came from the cache (no esbuild run). */
  fromCache: boolean;
}

/** One problem of a failed bundle: `file` relative to the package. */
export interface PiBundleProblem {
  file: string;
  line: number;
  column: number;
  text: string;
}

export class PiBundleError extends Error {
  override name = "PiBundleError";
  constructor(
    message: string,
    readonly problems: PiBundleProblem[],
  ) {
    super(message);
  }
}

/** The one message of every refused file import (see the module contract). */
export const PI_IMPORT_REFUSED =
  "refused: only existing .ts, .mts, .js and .mjs files inside the extension package can be imported";

const SOURCE_EXTENSIONS = new Set([".ts", ".mts", ".js", ".mjs"]);
const MAX_SHOWN_PROBLEMS = 5;
const SHIM = "pi-shim";
/** Marks esbuild.resolve calls made by the plugin itself, which its resolver must leave alone. */
const INNER = Symbol("octet-inner-resolve");
const here = dirname(fileURLToPath(import.meta.url));

let builds = 0;
/** How many times esbuild ran in this process (cache misses); for tests and diagnostics. */
export function piBundleBuilds(): number {
  return builds;
}

function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

const sha256 = (text: string | Buffer): string => createHash("sha256").update(text).digest("hex");

function defaultCacheDir(): string {
  const home = process.env["OCTET_HOME"];
  if (home !== undefined && home !== "") return join(home, "cache", "pi");
  let user = "user";
  try {
    user = userInfo().username.replace(/[^A-Za-z0-9_.-]/g, "_") || user;
  } catch {
    // No passwd entry (containers): one shared name is still private to the temp dir's owner.
  }
  return join(tmpdir(), `octet-pi-cache-${user}`);
}

/** Where `import "./x"` may land: the file as named, and the TypeScript file a .js name stands for. */
function candidates(abs: string): string[] {
  const ext = extname(abs);
  if (ext === ".js") return [abs, `${abs.slice(0, -3)}.ts`];
  if (ext === ".mjs") return [abs, `${abs.slice(0, -4)}.mts`];
  if (SOURCE_EXTENSIONS.has(ext)) return [abs];
  const bare = [".ts", ".mts", ".js", ".mjs"].map((e) => `${abs}${e}`);
  return [...bare, join(abs, "index.ts"), join(abs, "index.js")];
}

/** The canonical file a relative import inside the package names, or null (refused). */
async function containedFile(packageDir: string, abs: string): Promise<string | null> {
  for (const candidate of candidates(abs)) {
    const real = await realpath(candidate).catch(() => null);
    if (real === null) continue;
    if (!inside(packageDir, real) || !SOURCE_EXTENSIONS.has(extname(real))) return null;
    if (!(await stat(real)).isFile()) return null;
    return real;
  }
  return null;
}

/** The esbuild plugin that enforces the contract; `inputs` collects the hash of every file read. */
function piPlugin(packageDir: string, target: PiBundleTarget, inputs: Map<string, string>): Plugin {
  return {
    name: "octet-pi",
    setup(b) {
      // The ES module build (the CommonJS one cannot be tree-shaken): what `import` resolves to from octet.
      let typebox: string | null = null;
      const typeboxPath = async (): Promise<string> => {
        if (typebox !== null) return typebox;
        const r = await b.resolve("@sinclair/typebox", {
          kind: "import-statement",
          resolveDir: here,
          pluginData: INNER,
        });
        if (r.errors.length > 0) throw new Error(`octet's own @sinclair/typebox cannot be found: ${r.errors[0]!.text}`);
        return (typebox = r.path);
      };
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === "entry-point" || args.pluginData === INNER) return undefined;
        const spec = args.path;
        const fromPackage = args.namespace === "file" && inside(packageDir, args.importer);
        const refuse = { errors: [{ text: `import ${JSON.stringify(spec)}: ${PI_IMPORT_REFUSED}` }] };
        if (spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === "..") {
          if (!fromPackage) return undefined;
          const file = await containedFile(packageDir, resolve(args.resolveDir, spec));
          return file === null ? refuse : { path: file };
        }
        if (isBuiltin(spec)) return { path: spec, external: true };
        if (isAbsolute(spec) || /^[A-Za-z][A-Za-z0-9+.-]*:/.test(spec)) return fromPackage ? refuse : undefined;
        const shimmed = Object.hasOwn(PI_SHIMMED_PACKAGES, spec);
        const isTypebox = spec === "typebox" || spec === "@sinclair/typebox";
        if (args.namespace === SHIM) return isTypebox ? { path: await typeboxPath() } : undefined;
        if (!fromPackage) return undefined;
        const own = await b.resolve(spec, { kind: args.kind, resolveDir: args.resolveDir, pluginData: INNER });
        const ownFound = own.errors.length === 0 && !own.external;
        if (target === "quickjs") {
          if (isTypebox) return { path: await typeboxPath() };
          if (shimmed) return { path: spec, namespace: SHIM };
          if (ownFound && inside(packageDir, own.path)) return { path: own.path };
          return { path: spec, external: true };
        }
        if (ownFound) return { path: own.path, external: true };
        const octet = await b.resolve(spec, { kind: args.kind, resolveDir: here, pluginData: INNER });
        if (octet.errors.length === 0 && !octet.external) return { path: octet.path, external: true };
        if (isTypebox) return { path: await typeboxPath(), external: true };
        if (shimmed) return { path: spec, namespace: SHIM };
        return { path: spec, external: true };
      });
      b.onLoad({ filter: /.*/, namespace: SHIM }, (args) => ({
        contents: shimSource(args.path),
        loader: "js",
        resolveDir: here,
      }));
      b.onLoad({ filter: /.*/, namespace: "file" }, async (args) => {
        // Read here rather than by esbuild, so the file hashed is the file bundled.
        const text = await readFile(args.path);
        inputs.set(args.path, sha256(text));
        const ext = extname(args.path);
        const loader = ext === ".ts" || ext === ".mts" || ext === ".cts" ? "ts" : ext === ".json" ? "json" : "js";
        // In Node, import.meta names the bundle in the cache: each file's own is what its author
        // meant (pi's dynamic-resources finds its folder with it), as pi's loader keeps it.
        if (target === "node" && loader !== "json") return { contents: ownImportMeta(text, args.path), loader };
        return { contents: text, loader };
      });
    },
  };
}

/** `import.meta.url`, `.filename` and `.dirname` in `text` as the literals of the file at `path`. */
function ownImportMeta(text: Buffer, path: string): string {
  const own: Record<string, string> = { url: pathToFileURL(path).href, filename: path, dirname: dirname(path) };
  return text
    .toString("utf8")
    .replace(/\bimport\.meta\.(url|filename|dirname)\b/g, (_m, key: string) => JSON.stringify(own[key]));
}

interface CacheRecord {
  version: string;
  inputs: Record<string, string>;
  code: string;
  map: string;
}

async function cached(recordPath: string): Promise<CacheRecord | null> {
  let record: CacheRecord;
  try {
    record = JSON.parse(await readFile(recordPath, "utf8")) as CacheRecord;
  } catch {
    return null;
  }
  if (record.version !== PI_LOADER_VERSION || typeof record.code !== "string") return null;
  for (const [path, hash] of Object.entries(record.inputs)) {
    const now = await readFile(path).catch(() => null);
    if (now === null || sha256(now) !== hash) return null;
  }
  return record;
}

/** Writes `text` to `path` through a temporary file and a rename, so a reader sees all or nothing. */
async function atomicWrite(path: string, text: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, text);
  await rename(tmp, path);
}

function problemOf(m: Message, packageDir: string): PiBundleProblem {
  const loc = m.location;
  const file = loc === null ? "" : isAbsolute(loc.file) ? relative(packageDir, loc.file) : loc.file;
  return { file, line: loc?.line ?? 0, column: (loc?.column ?? 0) + 1, text: m.text };
}

function bundleFailure(error: unknown, packageDir: string, entryShown: string): Error {
  const failure = error as Partial<BuildFailure>;
  if (!Array.isArray(failure.errors)) return error instanceof Error ? error : new Error(String(error));
  const problems = failure.errors.map((m) => problemOf(m, packageDir));
  const shown = problems
    .slice(0, MAX_SHOWN_PROBLEMS)
    .map((p) => (p.file === "" ? p.text : `${p.file}:${p.line}:${p.column}: ${p.text}`));
  const more = problems.length > MAX_SHOWN_PROBLEMS ? `; and ${problems.length - MAX_SHOWN_PROBLEMS} more` : "";
  return new PiBundleError(`the pi extension ${entryShown} failed to load: ${shown.join("; ")}${more}`, problems);
}

/** Bundles a pi extension (see the module contract); rejects with a PiBundleError when it cannot. */
export async function bundlePiExtension(options: PiBundleOptions): Promise<PiBundle> {
  const packageDir = await realpath(resolve(options.packageDir));
  const entry = await realpath(resolve(packageDir, options.entry));
  const entryShown = `./${relative(packageDir, entry).split("\\").join("/")}`;
  if (!inside(packageDir, entry) || !SOURCE_EXTENSIONS.has(extname(entry)))
    throw new PiBundleError(`the pi extension entry ${entryShown}: ${PI_IMPORT_REFUSED}`, []);
  if (options.target !== "quickjs" && options.target !== "node")
    throw new RangeError(`bundlePiExtension: target must be "quickjs" or "node" (got ${String(options.target)})`);
  const cacheDir = options.cacheDir ?? defaultCacheDir();
  const key = sha256(JSON.stringify([PI_LOADER_VERSION, options.target, packageDir, entry])).slice(0, 32);
  const recordPath = join(cacheDir, `${key}.json`);
  const file = join(cacheDir, `${key}.mjs`);
  const hit = await cached(recordPath);
  // Node imports the file itself, so a hit needs it to be there too.
  const fileThere = options.target !== "node" || (await stat(file).catch(() => null)) !== null;
  if (hit !== null && fileThere) return { code: hit.code, map: hit.map, file, packageDir, entry, fromCache: true };

  const inputs = new Map<string, string>();
  builds++;
  let output;
  try {
    const { build } = await import("esbuild");
    output = await build({
      entryPoints: [entry],
      absWorkingDir: packageDir,
      bundle: true,
      write: false,
      format: "esm",
      platform: options.target === "node" ? "node" : "neutral",
      mainFields: ["module", "main"],
      target: "es2022",
      // The bundle's name: the map's sources are relative to it, so to the package.
      outfile: join(packageDir, `${basename(entry)}.bundle.mjs`),
      sourcemap: "external",
      sourcesContent: false,
      // No tsconfig.json is looked for (above the package included): the transform is pi's default.
      tsconfigRaw: "{}",
      logLevel: "silent",
      legalComments: "none",
      // Whitespace and syntax only (names stay, for stacks and fn.name): QuickJS parses the bundle
      // at every start, and most of it is typebox.
      ...(options.target === "quickjs"
        ? {
            minifyWhitespace: true,
            minifySyntax: true,
            define: { process: "__octet_no_process" },
            banner: { js: `${NO_PROCESS_BANNER}\n${CONSOLE_BANNER}` },
          }
        : {}),
      plugins: [piPlugin(packageDir, options.target, inputs)],
    });
  } catch (error) {
    throw bundleFailure(error, packageDir, entryShown);
  }
  const js = output.outputFiles.find((f) => f.path.endsWith(".mjs"));
  const mapFile = output.outputFiles.find((f) => f.path.endsWith(".map"));
  if (js === undefined || mapFile === undefined) throw new Error(`esbuild produced no bundle for ${entryShown}`);
  const map = JSON.parse(mapFile.text) as { sources: string[] };
  map.sources = map.sources.map((s) => (s.includes(":") && !isAbsolute(s) ? s : resolve(packageDir, s)));
  const mapText = JSON.stringify(map);
  const code = js.text.replace(/\n\/\/# sourceMappingURL=.*\n?$/, "\n");
  const record: CacheRecord = { version: PI_LOADER_VERSION, inputs: Object.fromEntries(inputs), code, map: mapText };
  try {
    await mkdir(cacheDir, { recursive: true, mode: 0o700 });
    await atomicWrite(`${file}.map`, mapText);
    await atomicWrite(file, `${code}//# sourceMappingURL=${basename(file)}.map\n`);
    await atomicWrite(recordPath, JSON.stringify(record));
  } catch (error) {
    // For QuickJS an unwritable cache costs a rebuild next time, never the load; Node imports the file.
    if (options.target === "node")
      throw new Error(
        `cannot write the pi bundle cache ${cacheDir} (Node loads the bundle from there): ${String(error)}`,
      );
  }
  return { code, map: mapText, file, packageDir, entry, fromCache: false };
}
