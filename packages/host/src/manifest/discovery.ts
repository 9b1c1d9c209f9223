/**
 * Discovery: finds extension.toml files in the three sources (explicit --extension-dir, project
 * <workspace>/.octet/extensions, global $OCTET_HOME/extensions), reads each through the bounded
 * reader, validates it, and resolves duplicate names by precedence. Nothing here starts a process
 * or decides trust; problems become error entries, never exceptions.
 */
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import type { ManifestSource } from "@octet/protocol";
import { MANIFEST_FILE_NAME, parseManifestDetailed } from "./manifest.js";
import { readManifestFile } from "./manifest-file.js";
import type { ExtensionManifest, ManifestError } from "./manifest.js";
import { foreignManifest, type ForeignExtension, type ForeignRuntime } from "../foreign-runtime.js";

export interface DiscoveredExtension {
  /** The manifest's name; the directory name when the manifest has no valid name; "" for a bad directory. */
  name: string;
  source: ManifestSource;
  /** Absolute path of extension.toml (path.resolve, symlinks kept as written). */
  manifestPath: string;
  /** Absolute path of the extension's directory. */
  dir: string;
  /** The validated manifest, or null when it could not be read or is invalid. */
  manifest: ExtensionManifest | null;
  /** Empty when the entry is usable; shadowed entries carry one "shadowed" error. */
  errors: ManifestError[];
  /** manifestPath of the entry that won this name, or null for winners and unnamed entries. */
  shadowedBy: string | null;
  /** Set for an extension of a foreign runtime (e.g. a pi-extension.json): it launches it. */
  foreign?: ForeignExtension;
}

export interface DiscoverOptions {
  /** The workspace; relative extensionDirs resolve against it. */
  workspace: string;
  /** --extension-dir values, in the order given. */
  extensionDirs?: readonly string[];
  /** The octet home; undefined falls back to $OCTET_HOME, then <homeDir>/.octet. */
  octetHome?: string | undefined;
  /** Home directory for the ~/.octet default (default os.homedir()). */
  homeDir?: string;
  /** Environment consulted for OCTET_HOME (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Host version checked against requires_octet (default OCTET_VERSION). */
  hostVersion?: string;
  /** Foreign runtimes whose manifests are found in the same places (e.g. rpi's pi-extension.json). */
  runtimes?: readonly ForeignRuntime[];
}

interface Candidate {
  source: ManifestSource;
  dir: string;
  manifestPath: string;
  runtime?: ForeignRuntime;
}

/**
 * The manifest of one extension directory: extension.toml, or one foreign runtime's file. Two
 * manifests in one directory are ambiguous: an error entry, never a guess.
 */
async function manifestIn(
  dir: string,
  source: ManifestSource,
  runtimes: readonly ForeignRuntime[],
): Promise<Candidate | DiscoveredExtension | null> {
  const found: Candidate[] = [];
  if ((await lstat(path.join(dir, MANIFEST_FILE_NAME)).catch(() => null)) !== null)
    found.push({ source, dir, manifestPath: path.join(dir, MANIFEST_FILE_NAME) });
  for (const runtime of runtimes) {
    const p = path.join(dir, runtime.manifestFile);
    if ((await lstat(p).catch(() => null)) !== null) found.push({ source, dir, manifestPath: p, runtime });
  }
  if (found.length > 1)
    return dirError(
      source,
      dir,
      "manifest_conflict",
      `holds ${found.map((c) => path.basename(c.manifestPath)).join(" and ")}; an extension directory has ` +
        `exactly one manifest`,
    );
  return found[0] ?? null;
}

const PRECEDENCE = "explicit beats global beats project; within a source the first directory in sorted order wins";

function errnoCode(err: unknown): string {
  return (err as NodeJS.ErrnoException | undefined)?.code ?? "error";
}

function dirError(source: ManifestSource, dir: string, rule: string, text: string): DiscoveredExtension {
  return {
    name: "",
    source,
    manifestPath: dir,
    dir,
    manifest: null,
    errors: [{ file: dir, key: "", rule, message: `${dir}: ${text}`, code: "manifest_invalid" }],
    shadowedBy: null,
  };
}

/** Code-unit order, so the result does not depend on the locale. */
function byName(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Lists root/<child>/extension.toml, one level deep, children sorted by name. A missing root
 * yields nothing; a root that exists but cannot be listed yields one error entry.
 */
async function scanRoot(
  root: string,
  source: ManifestSource,
  label: string,
  out: Candidate[],
  errors: DiscoveredExtension[],
  runtimes: readonly ForeignRuntime[],
): Promise<void> {
  let names: string[];
  try {
    names = (await readdir(root)).sort(byName);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT") return;
    if (code === "ENOTDIR") {
      // A missing parent (e.g. .octet is a file) reads as "no extensions"; the root itself being a file is an error.
      const st = await lstat(root).catch(() => null);
      if (st !== null) errors.push(dirError(source, root, "extension_dir", `${label} is not a directory`));
      return;
    }
    errors.push(dirError(source, root, "extension_dir", `cannot list ${label} (${code})`));
    return;
  }
  for (const name of names) {
    const dir = path.join(root, name);
    const st = await stat(dir).catch(() => null);
    if (st === null || !st.isDirectory()) continue;
    const found = await manifestIn(dir, source, runtimes);
    if (found === null) continue;
    if ("errors" in found) errors.push(found);
    else out.push(found);
  }
}

async function explicitCandidates(
  dir: string,
  out: Candidate[],
  errors: DiscoveredExtension[],
  runtimes: readonly ForeignRuntime[],
): Promise<void> {
  let st;
  try {
    st = await stat(dir);
  } catch (err) {
    const code = errnoCode(err);
    const text = code === "ENOENT" ? "--extension-dir does not exist" : `--extension-dir cannot be read (${code})`;
    errors.push(dirError("explicit", dir, "extension_dir", text));
    return;
  }
  if (!st.isDirectory()) {
    errors.push(dirError("explicit", dir, "extension_dir", "--extension-dir is not a directory"));
    return;
  }
  // A directory that itself holds a manifest is one extension; otherwise it holds extensions.
  const own = await manifestIn(dir, "explicit", runtimes);
  if (own !== null) {
    if ("errors" in own) errors.push(own);
    else out.push(own);
    return;
  }
  await scanRoot(dir, "explicit", "--extension-dir", out, errors, runtimes);
}

async function realOrSelf(p: string): Promise<string> {
  return realpath(p).catch(() => p);
}

/** The global octet home: octetHome, then a non-empty $OCTET_HOME, then ~/.octet. */
export function resolveOctetHome(options: Pick<DiscoverOptions, "octetHome" | "homeDir" | "env">): string {
  const env = options.env ?? process.env;
  const fromEnv = env["OCTET_HOME"];
  const home = options.octetHome ?? (fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined);
  return path.resolve(home ?? path.join(options.homeDir ?? homedir(), ".octet"));
}

/**
 * Discovers every extension of the three sources. Order of the result: directory error entries
 * (name ""), then explicit (dirs in the order given), global, project; within one directory,
 * children sorted by name. Every found
 * manifest is listed, including invalid and shadowed ones, so a CLI can show why it will not run.
 */
export async function discoverExtensions(options: DiscoverOptions): Promise<DiscoveredExtension[]> {
  const workspace = path.resolve(options.workspace);
  const candidates: Candidate[] = [];
  const dirErrors: DiscoveredExtension[] = [];
  const runtimes = options.runtimes ?? [];

  for (const d of options.extensionDirs ?? []) {
    await explicitCandidates(path.resolve(workspace, d), candidates, dirErrors, runtimes);
  }
  // Paths named for a foreign runtime (--pi-extension): explicit too, loaded by the runtime itself.
  for (const runtime of runtimes)
    for (const p of runtime.explicitPaths ?? []) {
      const file = path.resolve(workspace, p);
      candidates.push({ source: "explicit", dir: file, manifestPath: file, runtime });
    }
  const projectRoot = path.join(workspace, ".octet", "extensions");
  const globalRoot = path.join(resolveOctetHome(options), "extensions");
  // When the workspace is the home directory both roots are one directory: it is global, not project.
  // Global before project: a repository must not be able to replace an extension the user
  // installed (and granted trust by name) with one of its own of the same name.
  await scanRoot(globalRoot, "global", "global extensions directory", candidates, dirErrors, runtimes);
  if ((await realOrSelf(projectRoot)) !== (await realOrSelf(globalRoot))) {
    await scanRoot(projectRoot, "project", "project extensions directory", candidates, dirErrors, runtimes);
  }

  const found: DiscoveredExtension[] = [];
  const seenFiles = new Set<string>();
  const parseOptions = options.hostVersion === undefined ? {} : { hostVersion: options.hostVersion };
  for (const cand of candidates) {
    // One file reached twice (an --extension-dir that is also the project root) is listed once, at its best source.
    const real = await realOrSelf(cand.manifestPath);
    if (seenFiles.has(real)) continue;
    seenFiles.add(real);
    const dirName = path.basename(cand.dir);
    if (cand.runtime) {
      const { runtime, ...where } = cand;
      const loaded = await runtime.load(cand.manifestPath, { source: cand.source, workspace });
      if (loaded.ok)
        found.push({
          ...where,
          name: loaded.extension.name,
          manifest: foreignManifest(loaded.extension),
          errors: [],
          shadowedBy: null,
          foreign: loaded.extension,
        });
      else
        found.push({
          ...where,
          name: dirName,
          manifest: null,
          errors: loaded.errors.map((message) => ({
            file: cand.manifestPath,
            key: "",
            rule: runtime.manifestFile,
            message,
            code: "manifest_invalid" as const,
          })),
          shadowedBy: null,
        });
      continue;
    }
    const read = await readManifestFile(cand.manifestPath);
    if ("error" in read) {
      found.push({ ...cand, name: dirName, manifest: null, errors: [read.error], shadowedBy: null });
      continue;
    }
    const { result, name } = parseManifestDetailed(read.text, cand.manifestPath, parseOptions);
    found.push({
      ...cand,
      name: name ?? dirName,
      manifest: result.ok ? result.manifest : null,
      errors: result.ok ? [] : result.errors,
      shadowedBy: null,
    });
  }

  // Precedence follows list order, valid or not: a broken higher-precedence manifest still hides a
  // lower one, so fixing the file the user pointed at is the only way to change what runs.
  const winners = new Map<string, DiscoveredExtension>();
  for (const ext of found) {
    const winner = winners.get(ext.name);
    if (winner === undefined) {
      winners.set(ext.name, ext);
      continue;
    }
    ext.shadowedBy = winner.manifestPath;
    ext.errors.push({
      file: ext.manifestPath,
      key: "name",
      rule: "shadowed",
      message:
        `${ext.manifestPath}: key "name": ${ext.source} extension ${JSON.stringify(ext.name)} is shadowed by ` +
        `${winner.source} extension ${winner.manifestPath} (${PRECEDENCE})`,
      code: "manifest_invalid",
    });
  }
  return [...dirErrors, ...found];
}
