/**
 * Validation of a parsed manifest against the filesystem, before launch (RPI-13..16, QJS-19):
 * project trust, containment of the executable or entry in the package directory (symlinks
 * resolved), existence, regular-file and execute-bit checks. The result names canonical paths,
 * which the launcher must use as they are: re-resolving the written path later would reopen the
 * symlink race this check closes. Starting the process or the QuickJS worker is not done here.
 */
import { constants } from "node:fs";
import type { Stats } from "node:fs";
import { access, realpath, stat } from "node:fs/promises";
import path from "node:path";
import { entryKind, errnoCode } from "./fs-facts.js";
import { relativePathProblem, scriptExtensionProblem, quote } from "./relative-path.js";
import type { ManifestSource } from "@octet/protocol";
import type { RpiManifest } from "./rpi-manifest.js";

/** Where a manifest was found: named explicitly, in the user's global packages, or in the project. */
export type RpiManifestSource = ManifestSource;

export interface RpiLaunchOptions {
  source: RpiManifestSource;
  /** Whether the user trusts the current project; project manifests need it (RPI-16). */
  projectTrusted: boolean;
}

export type RpiLaunch =
  | { kind: "process"; packageDir: string; executable: string; arguments: string[] }
  | { kind: "quickjs"; packageDir: string; entry: string }
  /** A script entry run by the Node runner (src/node/runner.ts) in a child process. */
  | { kind: "node"; packageDir: string; entry: string };

/**
 * On failure, `key` is the manifest key the problem is about ("executable", "entry"), or "" for the
 * manifest as a whole.
 */
export type RpiLaunchResult = { ok: true; launch: RpiLaunch } | { ok: false; error: string; key: string };

/** The message every untrusted project manifest gets, from the loader and from the launcher. */
export function untrustedProjectMessage(manifestPath: string, id?: string): string {
  const which = id === undefined ? "" : ` for extension ${quote(id)}`;
  return (
    `${manifestPath}: untrusted project manifest${which}: project extensions load only in a trusted project; ` +
    `trust the project to load it`
  );
}

/** Whether `child` (canonical) lies strictly inside `dir` (canonical). */
function isInside(dir: string, child: string): boolean {
  const rel = path.relative(dir, child);
  return rel !== "" && rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
}

/**
 * The canonical path of `written` (relative to packageDir), checked to exist, to stay inside the
 * package directory after every symlink is followed, and to be a regular file.
 */
async function containedFile(
  manifestPath: string,
  packageDir: string,
  key: "executable" | "entry",
  written: string,
): Promise<{ path: string; stats: Stats } | { error: string }> {
  const where = `${manifestPath}: key ${JSON.stringify(key)}: ${quote(written)}`;
  const syntax = relativePathProblem(written);
  if (syntax !== null) return { error: `${manifestPath}: key ${JSON.stringify(key)}: ${syntax}` };
  let real: string;
  try {
    real = await realpath(path.join(packageDir, written));
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ENOTDIR")
      return { error: `${where} does not exist in the package directory ${packageDir}` };
    if (code === "ELOOP") return { error: `${where} is a symlink loop` };
    return { error: `${where} cannot be resolved (${code})` };
  }
  if (real === packageDir) return { error: `${where} resolves to the package directory itself, not a file inside it` };
  if (!isInside(packageDir, real)) {
    return {
      error:
        `${where} resolves to ${real}, outside the package directory ${packageDir}; a symlink must not escape ` +
        `the package`,
    };
  }
  let st: Stats;
  try {
    st = await stat(real);
  } catch (err) {
    return { error: `${where} cannot be read (${errnoCode(err)})` };
  }
  if (!st.isFile()) return { error: `${where} must be a regular file, but it is ${entryKind(st)}` };
  return { path: real, stats: st };
}

/**
 * Checks a parsed manifest before launch and returns what to start, with canonical paths; fails
 * closed on the first problem (see the module contract). `manifestPath` is the pi-extension.json
 * path; its directory, canonicalized, is the package directory every path must stay in.
 */
export async function resolveRpiLaunch(
  manifest: RpiManifest,
  manifestPath: string,
  options: RpiLaunchOptions,
): Promise<RpiLaunchResult> {
  // A project's manifest arrives with the repository, so nothing in it is looked at until the
  // user trusts the project (RPI-16, QJS-19).
  if (options.source === "project" && !options.projectTrusted) {
    return { ok: false, key: "", error: untrustedProjectMessage(manifestPath, manifest.id) };
  }
  let packageDir: string;
  try {
    packageDir = await realpath(path.dirname(path.resolve(manifestPath)));
  } catch (err) {
    return {
      ok: false,
      key: "",
      error: `${manifestPath}: the manifest directory cannot be resolved (${errnoCode(err)})`,
    };
  }

  if (manifest.runtime === "process") {
    if (manifest.executable === undefined || manifest.entry !== undefined) {
      return {
        ok: false,
        key: "executable",
        error: `${manifestPath}: key "executable": a process manifest needs an executable and no entry`,
      };
    }
    const file = await containedFile(manifestPath, packageDir, "executable", manifest.executable);
    if ("error" in file) return { ok: false, key: "executable", error: file.error };
    // Windows has no execute bit; there the file type alone decides what runs.
    if (process.platform !== "win32") {
      const where = `${manifestPath}: key "executable": ${quote(manifest.executable)} (${file.path})`;
      const mode = `0${(file.stats.mode & 0o777).toString(8)}`;
      if ((file.stats.mode & 0o111) === 0) {
        return {
          ok: false,
          key: "executable",
          error:
            `${where} is not executable (mode ${mode}); process executables must have an execute bit on Unix ` +
            `(chmod +x)`,
        };
      }
      try {
        await access(file.path, constants.X_OK);
      } catch {
        return {
          ok: false,
          key: "executable",
          error:
            `${where} is not executable by this user (mode ${mode}); process executables must be executable on ` +
            `Unix`,
        };
      }
    }
    return {
      ok: true,
      launch: { kind: "process", packageDir, executable: file.path, arguments: [...manifest.arguments] },
    };
  }

  if (manifest.entry === undefined || manifest.executable !== undefined || manifest.arguments.length > 0) {
    return {
      ok: false,
      key: "entry",
      error:
        `${manifestPath}: key "entry": a ${manifest.runtime === "node" ? "node" : "QuickJS"} manifest needs an entry ` +
        "and no executable or arguments",
    };
  }
  const ext = scriptExtensionProblem(manifest.entry);
  if (ext !== null) return { ok: false, key: "entry", error: `${manifestPath}: key "entry": ${ext}` };
  const file = await containedFile(manifestPath, packageDir, "entry", manifest.entry);
  if ("error" in file) return { ok: false, key: "entry", error: file.error };
  // A symlink named index.mjs may point at index.ts: the rule holds for the file that runs.
  const canonical = scriptExtensionProblem(file.path);
  if (canonical !== null) {
    return {
      ok: false,
      key: "entry",
      error: `${manifestPath}: key "entry": ${quote(manifest.entry)} resolves through a symlink to ${canonical}`,
    };
  }
  return { ok: true, launch: { kind: manifest.runtime, packageDir, entry: file.path } };
}
