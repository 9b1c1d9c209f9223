#!/usr/bin/env node
// Runs every compiled test file with node's test runner: unit tests of each package
// (<pkg>/dist/test/**/*.test.js) and the end-to-end tests (tests/dist/**/*.test.js).
// Pass file-name fragments to run a subset: node scripts/run-tests.mjs decoder manifest
import { readdirSync, statSync, existsSync } from "node:fs";
import { join, relative } from "node:path";
import { spawnSync } from "node:child_process";

const root = new URL("..", import.meta.url).pathname;
const roots = ["packages/protocol", "packages/host", "packages/rpi", "packages/cli", "sdk/typescript"].map((p) => join(root, p, "dist", "test"));
roots.push(join(root, "tests", "dist"));

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith(".test.js")) out.push(p);
  }
  return out;
}

const filters = process.argv.slice(2);
let files = roots.flatMap((r) => walk(r, [])).sort();
if (filters.length > 0) files = files.filter((f) => filters.some((x) => relative(root, f).includes(x)));
if (files.length === 0) {
  console.error("run-tests: no test files found (did tsc -b run?)");
  process.exit(1);
}
// The packages export their bundles (scripts/bundle.mjs): rebuild them so a test never runs
// against a bundle older than the tsc output it was run after.
const bundled = spawnSync(process.execPath, [join(root, "scripts", "bundle.mjs")], { stdio: "inherit", cwd: root });
if (bundled.status !== 0) process.exit(bundled.status ?? 1);
// A hung test fails after 2 minutes instead of holding CI until its own limit.
const r = spawnSync(process.execPath, ["--test", "--test-timeout=120000", ...files], { stdio: "inherit", cwd: root });
process.exit(r.status ?? 1);
