/**
 * Where session files live: <home>/sessions/<workspace-dir>/<ISO-stamp>_<id>.jsonl. The
 * workspace directory is the absolute path made safe for a file name, readable like pi's
 * `--home-user-proj--`. It is reversible enough for a person to recognise; the exact path is the
 * header's cwd, and listing a workspace compares that, so two paths that map to one directory
 * never mix.
 */
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";

/** A workspace directory name is at most this many bytes (ASCII after encoding). */
export const MAX_WORKSPACE_DIR_BYTES = 200;

const SAFE = /[A-Za-z0-9._-]/;

/**
 * `/` becomes `-`; a byte outside [A-Za-z0-9._-] becomes %XX (so spaces, colons and non-ASCII
 * names stay portable). Past MAX_WORKSPACE_DIR_BYTES the tail of the path is kept (the project's
 * own name is at the end) and a short hash of the whole path keeps long paths apart.
 */
export function workspaceDirName(workspace: string): string {
  const abs = resolve(workspace);
  let body = "";
  for (const ch of abs) {
    if (ch === "/" || ch === "\\") body += "-";
    else if (SAFE.test(ch)) body += ch;
    else for (const b of Buffer.from(ch, "utf8")) body += `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  body = body.replace(/^-+|-+$/g, "");
  const name = `--${body}--`;
  if (name.length <= MAX_WORKSPACE_DIR_BYTES) return name;
  const hash = createHash("sha256").update(abs).digest("hex").slice(0, 12);
  // "--" + tail + "-" + hash + "--"; a tail cut inside a %XX escape only costs readability.
  const tail = body.slice(body.length - (MAX_WORKSPACE_DIR_BYTES - 4 - 1 - hash.length));
  return `--${tail}-${hash}--`;
}

export function sessionsRoot(home: string): string {
  return join(home, "sessions");
}

export function workspaceSessionsDir(home: string, workspace: string): string {
  return join(sessionsRoot(home), workspaceDirName(workspace));
}

/** `2026-12-02T01-31-57-123Z`: an ISO stamp without the colons some file systems refuse. */
export function fileStamp(unixMs: number): string {
  return new Date(unixMs).toISOString().replace(/[:.]/g, "-");
}

export function sessionFileName(unixMs: number, id: string): string {
  return `${fileStamp(unixMs)}_${id}.jsonl`;
}
