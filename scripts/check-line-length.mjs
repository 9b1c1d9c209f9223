#!/usr/bin/env node
// No line over 120 characters in a source file (issue 14.6). Biome wraps code at 120 but leaves
// long strings, comments and Python alone, so this check covers what the formatter cannot.
//
// Files: every tracked source file (`git ls-files` in --root, default the repository), or, with
// --paths, the given files and folders (folders walked). Only .ts .js .mjs .py .toml count; dist,
// node_modules and package-lock are skipped. Length is counted in characters (code points), not
// bytes, so a line with non-ASCII text is not over the limit early.
// Prints `file:line: N characters` for each long line and exits 1; exits 0 when none is.
//
//   node scripts/check-line-length.mjs [--root DIR] [--max N] [--paths PATH...]
// checkLineLength() is the same check for the checker's own tests.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const MAX_LINE = 120;
const SOURCE = /\.(ts|js|mjs|py|toml)$/;
const SKIPPED_DIRS = new Set(["dist", "node_modules", ".git"]);

/** Whether a path (relative, with / separators) is a source file this check covers. */
function covered(path) {
  if (!SOURCE.test(path) || /(^|\/)package-lock\.json$/.test(path)) return false;
  return !path.split("/").some((part) => SKIPPED_DIRS.has(part));
}

/** Every file under dir, sorted so the output is stable. */
function walk(dir, out = []) {
  for (const name of readdirSync(dir).sort()) {
    if (SKIPPED_DIRS.has(name)) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

function trackedFiles(root) {
  const r = spawnSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`git ls-files failed in ${root}: ${String(r.stderr).trim()}`);
  return r.stdout
    .split("\0")
    .filter((p) => p !== "")
    .map((p) => join(root, p));
}

/**
 * The long lines of the covered files under root (all tracked files, or `paths` when given), as
 * `file:line: N characters` with file relative to root.
 */
export function checkLineLength(root, paths = null, max = MAX_LINE) {
  const files = [];
  if (paths === null) files.push(...trackedFiles(root));
  else {
    for (const p of paths) {
      const abs = resolve(root, p);
      if (!existsSync(abs)) throw new Error(`check-line-length: ${p} does not exist`);
      if (statSync(abs).isDirectory()) walk(abs, files);
      else files.push(abs);
    }
  }
  const problems = [];
  for (const file of files) {
    const rel = relative(root, file).split("\\").join("/");
    // A tracked file deleted in the work tree is not there to read.
    if (!covered(rel) || !existsSync(file)) continue;
    const lines = readFileSync(file, "utf8").split(/\r?\n/);
    lines.forEach((line, i) => {
      const n = [...line].length;
      if (n > max) problems.push(`${rel}:${i + 1}: ${n} characters`);
    });
  }
  return problems;
}

function main(argv) {
  let root = resolve(fileURLToPath(new URL("..", import.meta.url)));
  let max = MAX_LINE;
  let paths = null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--root") root = resolve(argv[++i] ?? "");
    else if (arg === "--max") max = Number(argv[++i]);
    else if (arg === "--paths") {
      paths = argv.slice(i + 1);
      break;
    } else {
      console.error(`check-line-length: unknown argument ${arg}; usage: [--root DIR] [--max N] [--paths PATH...]`);
      return 2;
    }
  }
  if (!Number.isInteger(max) || max < 1) {
    console.error(`check-line-length: --max must be a positive integer, got ${String(max)}`);
    return 2;
  }
  const problems = checkLineLength(root, paths, max);
  for (const p of problems) console.error(p);
  if (problems.length > 0) {
    console.error(`check-line-length: ${problems.length} line(s) over ${max} characters`);
    return 1;
  }
  console.log(`check-line-length: no line over ${max} characters`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = main(process.argv.slice(2));
}
