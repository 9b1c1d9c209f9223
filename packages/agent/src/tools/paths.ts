/**
 * Where a tool's path lands: inside the workspace or refused. A path is relative to the workspace;
 * an absolute one is taken only when it names something inside. `..` that climbs out is refused,
 * and so is a symbolic link that leads out: the realpath of the nearest existing ancestor must be
 * inside the workspace's realpath, so a path that does not exist yet cannot be created through a
 * link to elsewhere. The tools then work on the real path, so a write replaces a linked file's
 * content instead of the link. (A link swapped in between this check and the use is out of scope:
 * the gate is against a model's mistakes, and the approval gate is against its intent.)
 */
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { describeFsError } from "./types.js";

/** A path a tool may use. */
export interface WorkspacePath {
  /** Absolute, symbolic links resolved (for the parts that exist). */
  real: string;
  /** Relative to the workspace's real path, "." for the workspace itself: for answers and details. */
  relative: string;
}

export type ResolvedPath = { ok: true; path: WorkspacePath } | { ok: false; error: string };

/** Resolves `input` (as the model wrote it) inside `workspace`. */
export async function resolveInWorkspace(workspace: string, input: string): Promise<ResolvedPath> {
  if (input.includes("\0")) return { ok: false, error: `the path ${JSON.stringify(input)} contains a NUL byte` };
  const root = path.resolve(workspace);
  let rootReal: string;
  try {
    rootReal = await realpath(root);
  } catch (err) {
    return { ok: false, error: `the workspace ${root} cannot be used: ${describeFsError(err)}` };
  }
  const target = path.isAbsolute(input) ? path.resolve(input) : path.resolve(root, input);
  if (!inside(root, target) && !inside(rootReal, target)) {
    return {
      ok: false,
      error: `the path ${JSON.stringify(input)} is outside the workspace ${root}; use a path inside it`,
    };
  }
  // Walk up to the nearest part that exists (lstat: a dangling link exists and is caught below).
  let existing = target;
  const missing: string[] = [];
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") {
        return { ok: false, error: `cannot use ${JSON.stringify(input)}: ${describeFsError(err)}` };
      }
      const parent = path.dirname(existing);
      if (parent === existing) break;
      missing.unshift(path.basename(existing));
      existing = parent;
    }
  }
  let existingReal: string;
  try {
    existingReal = await realpath(existing);
  } catch (err) {
    const why = (err as { code?: unknown }).code === "ENOENT" ? "a symbolic link whose target does not exist" : "";
    return {
      ok: false,
      error: `cannot use ${JSON.stringify(input)}: ${why === "" ? describeFsError(err) : `it goes through ${why}`}`,
    };
  }
  if (!inside(rootReal, existingReal)) {
    return {
      ok: false,
      error:
        `the path ${JSON.stringify(input)} leads through a symbolic link to ${existingReal}, outside the workspace ` +
        `${rootReal}; use a path inside it`,
    };
  }
  const real = missing.length === 0 ? existingReal : path.join(existingReal, ...missing);
  return { ok: true, path: { real, relative: path.relative(rootReal, real) || "." } };
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}
