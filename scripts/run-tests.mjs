#!/usr/bin/env node
// Runs every compiled test file with node's test runner: unit tests of each package
// (<pkg>/dist/test/**/*.test.js) and the end-to-end tests (tests/dist/**/*.test.js).
// Pass file-name fragments to run a subset: node scripts/run-tests.mjs decoder manifest
//
// Each file runs in its own `node --test` process, several at a time (--concurrency N or
// OCTET_TEST_CONCURRENCY; default: cores + 1, at least 3, because most files wait on child
// processes rather than compute; node's own default is cores - 1, which is 1 on a 2-core
// machine). A file's TAP output is printed whole when it ends, with its duration; the run ends
// with the slowest files, so a CI log shows where the time goes. A file that runs past
// FILE_LIMIT_MS is killed (its whole process group) and fails, naming the limit.
import {
  readdirSync,
  statSync,
  existsSync,
  readFileSync,
  writeFileSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
} from "node:fs";
import { join, relative, dirname } from "node:path";
import { spawn, spawnSync } from "node:child_process";
import { availableParallelism, tmpdir } from "node:os";

const root = new URL("..", import.meta.url).pathname;
const roots = [
  "packages/protocol",
  "packages/host",
  "packages/rpi",
  "packages/agent",
  "packages/cli",
  "sdk/typescript",
].map((p) => join(root, p, "dist", "test"));
roots.push(join(root, "tests", "dist"));
// A hung test fails after 90 s, named by the test runner, instead of holding CI; a whole file is
// killed at 120 s. The file's bound is the larger, or the test's could never fire first.
const TEST_LIMIT_MS = 90_000;
const FILE_LIMIT_MS = 120_000;
// The files that install octet's packed tarballs with npm or its wheel with pip, as a user would:
// most of their time is npm's and pip's (unpacking pi-ai's provider libraries is tens of seconds
// on a busy disk), so they get a limit of their own rather than sitting near the common one.
const INSTALL_FILES = /[/\\](packages-install[^/\\]*|init-python)\.test\.js$/;
const INSTALL_TEST_LIMIT_MS = 180_000;
const INSTALL_FILE_LIMIT_MS = 210_000;
// Last run's per-file durations: the slowest known files start first, so the run does not end
// waiting on one long file started last. Outside the repository; a fresh clone has none.
const TIMINGS = join(root, "node_modules", ".cache", "octet-test-durations.json");

function walk(dir, out) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith(".test.js")) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
let concurrency = Number(process.env["OCTET_TEST_CONCURRENCY"] || Math.max(3, availableParallelism() + 1));
const filters = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--concurrency") concurrency = Number(args[++i]);
  else filters.push(args[i]);
}
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`run-tests: the concurrency must be a positive integer, got ${String(concurrency)}`);
  process.exit(2);
}
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

const env = { ...process.env };
const binDir = directPython(env);

let known = {};
try {
  known = JSON.parse(readFileSync(TIMINGS, "utf8"));
} catch {
  // No earlier run: alphabetical order.
}
const rel = (f) => relative(root, f);
// Without a record, the end-to-end and conformance files (real processes, the longest) go first.
const weight = (f) => known[rel(f)] ?? (rel(f).startsWith("tests/") ? 1 : 0);
const queue = [...files].sort((a, b) => weight(b) - weight(a));
const results = [];
/** Files still running, so that an interrupted run takes their process groups with it. */
const live = new Set();
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    for (const child of live) killGroup(child);
    if (binDir) rmSync(binDir, { recursive: true, force: true });
    process.exit(130);
  });
}
const started = Date.now();
console.log(`run-tests: ${files.length} files, ${concurrency} at a time`);

await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) results.push(await runFile(file));
  }),
);

if (binDir) rmSync(binDir, { recursive: true, force: true });
const wall = Date.now() - started;
const failed = results.filter((r) => !r.ok);
const totals = results.reduce(
  (t, r) => ({
    tests: t.tests + r.tests,
    pass: t.pass + r.pass,
    fail: t.fail + r.fail,
    skipped: t.skipped + r.skipped,
  }),
  { tests: 0, pass: 0, fail: 0, skipped: 0 },
);
console.log("\n# slowest files");
for (const r of [...results].sort((a, b) => b.ms - a.ms).slice(0, 10))
  console.log(`#   ${(r.ms / 1000).toFixed(1).padStart(6)} s  ${rel(r.file)}`);
console.log(
  `# ${results.length} files, ${totals.tests} tests: ${totals.pass} passed, ${totals.fail} ` +
    `failed, ${totals.skipped} skipped, in ${(wall / 1000).toFixed(1)} s (${concurrency} at a time)`,
);
for (const r of failed) console.log(`# FAILED ${rel(r.file)}${r.why ? `: ${r.why}` : ""}`);
try {
  mkdirSync(dirname(TIMINGS), { recursive: true });
  const kept = Object.entries(known).filter(([f]) => existsSync(join(root, f)));
  writeFileSync(
    TIMINGS,
    JSON.stringify(
      { ...Object.fromEntries(kept), ...Object.fromEntries(results.map((r) => [rel(r.file), r.ms])) },
      null,
      1,
    ),
  );
} catch {
  // Scheduling hints only.
}
// The closing line CI reads, alone on its line: a file that failed without a failed test (killed
// at its limit, crashed) counts as one failure.
const fileOnly = failed.filter((r) => r.fail === 0).length;
console.log(`tests: ${totals.pass} passed, ${totals.fail + fileOnly} failed, ${totals.skipped} skipped`);
process.exit(failed.length > 0 ? 1 : 0);

/** One file in its own `node --test` process group; its output is printed whole when it ends. */
function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const install = INSTALL_FILES.test(file);
    const testLimit = install ? INSTALL_TEST_LIMIT_MS : TEST_LIMIT_MS;
    const fileLimit = install ? INSTALL_FILE_LIMIT_MS : FILE_LIMIT_MS;
    const child = spawn(process.execPath, ["--test", "--test-reporter=tap", `--test-timeout=${testLimit}`, file], {
      cwd: root,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    live.add(child);
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (s) => (out += s));
    child.stderr.setEncoding("utf8").on("data", (s) => (out += s));
    let why = "";
    const timer = setTimeout(() => {
      why = `still running after the ${fileLimit / 1000} s per-file limit; killed`;
      killGroup(child);
    }, fileLimit);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - t0;
      // A file that ended leaves nothing behind it: kill what is left of its group.
      killGroup(child);
      live.delete(child);
      // The runner's own summary lines come last, unindented.
      const count = (name) => Number([...out.matchAll(new RegExp(`^# ${name} (\\d+)$`, "gm"))].at(-1)?.[1] ?? 0);
      const ok = code === 0 && why === "";
      if (!ok && !why) why = signal ? `ended by ${signal}` : `exit code ${String(code)}`;
      process.stdout.write(
        `\n# file: ${rel(file)} (${(ms / 1000).toFixed(1)} s)${ok ? "" : ` FAILED: ${why}`}\n${out}`,
      );
      resolve({
        file,
        ms,
        ok,
        why,
        tests: count("tests"),
        pass: count("pass"),
        fail: count("fail"),
        skipped: count("skipped"),
      });
    });
  });
}

function killGroup(child) {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is already empty.
  }
}

/**
 * When `python3` on PATH is a script (a pyenv shim), every start pays for the shim's version
 * lookup, over a second on a loaded machine, and the tests start Python hundreds of times. Resolve
 * it once: a directory first on PATH whose python3 execs the interpreter the shim chose.
 */
function directPython(env) {
  const which = spawnSync("sh", ["-c", "command -v python3"], { encoding: "utf8", env });
  const onPath = which.stdout.trim();
  if (which.status !== 0 || onPath === "") return null;
  let head = "";
  try {
    head = readFileSync(onPath).subarray(0, 2).toString("latin1");
  } catch {
    return null;
  }
  if (head !== "#!") return null;
  const exe = spawnSync(onPath, ["-c", "import sys; print(sys.executable)"], { encoding: "utf8", env });
  const real = exe.stdout.trim();
  if (exe.status !== 0 || real === "" || real === onPath) return null;
  const dir = mkdtempSync(join(tmpdir(), "octet-test-bin-"));
  writeFileSync(join(dir, "python3"), `#!/bin/sh\nexec '${real.replaceAll("'", "'\\''")}' "$@"\n`, { mode: 0o755 });
  env["PATH"] = `${dir}:${env["PATH"] ?? ""}`;
  console.log(`run-tests: python3 on PATH is a script (${onPath}); the tests run ${real} directly`);
  return dir;
}
