/**
 * A pi extension named by its path, with no pi-extension.json: a .ts/.mts/.js/.mjs file, or a
 * folder as pi loads one (a package.json whose `pi.extensions` names one entry, else index.ts,
 * index.mts, index.js or index.mjs). The manifest octet would need is synthesized: runtime
 * quickjs, every capability QuickJS allows, every UI capability. The user naming the path on the
 * command line is the trust act (the host's "explicit" source).
 *
 * The package directory is the file's folder, or the folder named; the entry must lie inside it
 * after symlinks are followed. A package that declares several extensions is refused with their
 * list: each is loaded by naming its file.
 */
import { readFile, realpath, stat } from "node:fs/promises";
import { basename, extname, isAbsolute, join, relative, resolve, sep } from "node:path";
import {
  RPI_CAPABILITIES,
  RPI_ID_PATTERN,
  RPI_MAX_ID_CHARS,
  RPI_QUICKJS_EXCLUDED_CAPABILITIES,
  RPI_UI_CAPABILITIES,
  type RpiManifest,
} from "../manifest/rpi-manifest.js";

export interface PiExtensionSource {
  /** The extension id: the file's name without its extension, or the folder's name (sanitized). */
  id: string;
  /** Canonical folder every file of the extension must stay in. */
  packageDir: string;
  /** Canonical entry file inside packageDir. */
  entry: string;
  /** The synthesized manifest (entry relative to packageDir). */
  manifest: RpiManifest;
}

export type PiSourceResult = { ok: true; source: PiExtensionSource } | { ok: false; error: string };

const ENTRY_EXTENSIONS = [".ts", ".mts", ".js", ".mjs"];
const INDEX_FILES = ENTRY_EXTENSIONS.map((e) => `index${e}`);

/** The id octet gives the pi extension at `path` (no filesystem access): see PiExtensionSource.id. */
export function piExtensionId(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, "");
  const name = basename(trimmed);
  const ext = extname(name);
  const stem = ENTRY_EXTENSIONS.includes(ext) ? name.slice(0, -ext.length) : name;
  const id = stem.replace(/[^A-Za-z0-9_.-]/g, "-").slice(0, RPI_MAX_ID_CHARS);
  return RPI_ID_PATTERN.test(id) && id !== "." && id !== ".." ? id : "pi-extension";
}

/** The manifest a pi extension loaded by path stands in for. */
export function synthesizedPiManifest(id: string, entry: string): RpiManifest {
  return {
    schemaVersion: 1,
    id,
    runtime: "quickjs",
    arguments: [],
    entry,
    capabilities: RPI_CAPABILITIES.filter((c) => !RPI_QUICKJS_EXCLUDED_CAPABILITIES.includes(c)),
    uiCapabilities: [...RPI_UI_CAPABILITIES],
  };
}

function isInside(dir: string, child: string): boolean {
  const rel = relative(dir, child);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() === true;
}

/** The entries a folder's package.json declares under `pi.extensions`, or null when it has none. */
async function declaredEntries(dir: string, shown: string): Promise<string[] | { error: string } | null> {
  const text = await readFile(join(dir, "package.json"), "utf8").catch(() => null);
  if (text === null) return null;
  let pkg: unknown;
  try {
    pkg = JSON.parse(text);
  } catch (error) {
    return { error: `${shown}/package.json is not valid JSON (${(error as Error).message})` };
  }
  const pi = (pkg as { pi?: { extensions?: unknown } } | null)?.pi;
  if (pi === undefined || pi.extensions === undefined) return null;
  const list = pi.extensions;
  if (!Array.isArray(list) || !list.every((e): e is string => typeof e === "string"))
    return { error: `${shown}/package.json: key "pi.extensions" must be an array of paths` };
  return list;
}

async function entryOf(dir: string, written: string, shown: string): Promise<string | { error: string }> {
  const target = resolve(dir, written);
  if ((await stat(target).catch(() => null))?.isDirectory() === true) {
    for (const index of INDEX_FILES) if (await isFile(join(target, index))) return join(target, index);
    return { error: `${shown}: ${JSON.stringify(written)} is a folder with no ${INDEX_FILES.join(", ")}` };
  }
  if (await isFile(target)) return target;
  return { error: `${shown}: ${JSON.stringify(written)} does not exist (globs are not supported)` };
}

/** Resolves a pi extension path (see the module contract); `base` resolves a relative path. */
export async function resolvePiExtensionPath(path: string, base = process.cwd()): Promise<PiSourceResult> {
  const shown = path;
  const full = resolve(base, path);
  const st = await stat(full).catch(() => null);
  if (st === null) return { ok: false, error: `pi extension ${shown} does not exist` };
  let packageDir: string;
  let entry: string;
  if (st.isFile()) {
    if (!ENTRY_EXTENSIONS.includes(extname(full)))
      return { ok: false, error: `pi extension ${shown} must be a ${ENTRY_EXTENSIONS.join(", ")} file or a folder` };
    entry = await realpath(full);
    packageDir = await realpath(resolve(entry, ".."));
  } else if (st.isDirectory()) {
    packageDir = await realpath(full);
    const declared = await declaredEntries(packageDir, shown);
    if (declared !== null && "error" in declared) return { ok: false, error: declared.error };
    let found: string | { error: string };
    if (declared !== null) {
      if (declared.length !== 1)
        return {
          ok: false,
          error:
            `pi package ${shown} declares ${declared.length} extensions (${declared.join(", ")}) in "pi.extensions"; ` +
            `octet loads one per path: name each file`,
        };
      found = await entryOf(packageDir, declared[0]!, shown);
    } else {
      found = { error: `pi extension folder ${shown} has no package.json "pi" entry and no ${INDEX_FILES.join(", ")}` };
      for (const name of INDEX_FILES)
        if (await isFile(join(packageDir, name))) {
          found = join(packageDir, name);
          break;
        }
    }
    if (typeof found !== "string") return { ok: false, error: found.error };
    entry = await realpath(found);
  } else return { ok: false, error: `pi extension ${shown} is neither a file nor a folder` };
  if (!isInside(packageDir, entry) || !ENTRY_EXTENSIONS.includes(extname(entry)))
    return { ok: false, error: `pi extension ${shown}: its entry must be a script file inside ${shown}` };
  const id = piExtensionId(full);
  const rel = `./${relative(packageDir, entry).split(sep).join("/")}`;
  return { ok: true, source: { id, packageDir, entry, manifest: synthesizedPiManifest(id, rel) } };
}
