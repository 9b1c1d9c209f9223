/**
 * The first launch of a host process is its own containment trial (process/spawn-contained.ts).
 * Each case runs a fresh node process (a fresh host has no verdict yet) that launches one real
 * extension-like command with spawnContained and adoptChild, and reports what it saw as JSON:
 * the tier, the processes it spawned, the child's output and exit. A machine that refuses
 * namespaces is made for real: a user namespace whose max_user_namespaces is 0.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { withTempDir } from "../helpers/temp-dir.js";
import { withDeadline } from "../helpers/wait.js";

const SRC = new URL("../../src/", import.meta.url).href;

/** Launches argv[2..] like an extension, then prints {tier, known, spawned, stdout, stderr, exit}. */
const HOST = `
import { ChildProcess } from "node:child_process";
const { spawnContained } = await import("${SRC}process/spawn-contained.js");
const { knownContainment } = await import("${SRC}process/containment.js");
const { adoptChild } = await import("${SRC}generation/child.js");
const spawned = [];
const original = ChildProcess.prototype.spawn;
ChildProcess.prototype.spawn = function (options) {
  spawned.push(options.args.join(" "));
  return original.call(this, options);
};
const [command, ...args] = process.argv.slice(2);
const env = { PATH: process.env.PATH };
const stopAfter = Number(process.env.STOP_AFTER_MS ?? 0);
const stop = new AbortController();
if (stopAfter > 0) setTimeout(() => stop.abort(), stopAfter);
const t0 = performance.now();
const { child, tier } = await spawnContained({ command, args, cwd: process.cwd(), env }, process.env, stop.signal);
if (stopAfter > 0) {
  const elapsed = performance.now() - t0;
  process.kill(-child.pid, "SIGKILL");
  console.log(JSON.stringify({ tier, spawned, elapsed }));
  process.exit(0);
}
const adopted = adoptChild(child);
let stdout = "", stderr = "";
child.stdout.on("data", (b) => (stdout += b));
child.stderr.on("data", (b) => (stderr += b));
child.stdin.end();
const exit = await adopted.exited;
await new Promise((r) => setTimeout(r, 50));
const known = knownContainment(process.env);
console.log(JSON.stringify({ tier, known: known?.tier, reason: known?.fallbackReason, spawned, stdout, stderr, exit }));
`;

/** Appends its pid to STARTS, says hello on both streams, exits 0 at stdin's end. */
const EXTENSION = (starts: string): string => `#!${process.execPath}
require("node:fs").appendFileSync(${JSON.stringify(starts)}, process.pid + "\\n");
process.stdout.write("ready\\n");
process.stderr.write("extension stderr\\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`;

interface Report {
  tier: string;
  /** With STOP_AFTER_MS: how long spawnContained took. */
  elapsed?: number;
  known: string | undefined;
  reason: string | null | undefined;
  spawned: string[];
  stdout: string;
  stderr: string;
  exit: { code: number | null; signal: string | null };
}

/** Runs HOST for `command` (wrapped in `prefix`, e.g. a refusing user namespace) and parses its report. */
async function launch(
  dir: string,
  prefix: string[],
  command: string,
  env: NodeJS.ProcessEnv = {},
  args: string[] = [],
): Promise<Report> {
  const host = path.join(dir, "host.mjs");
  await writeFile(host, HOST);
  const argv = [...prefix, process.execPath, host, command, ...args];
  const proc = spawn(argv[0]!, argv.slice(1), {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  let out = "";
  let err = "";
  proc.stdout.on("data", (b: Buffer) => (out += b.toString()));
  proc.stderr.on("data", (b: Buffer) => (err += b.toString()));
  const code = await withDeadline(
    new Promise<number | null>((resolve) => proc.once("close", resolve)),
    20_000,
    "the launching host",
  );
  assert.equal(code, 0, `host exited ${code}: ${err}`);
  return JSON.parse(out.trim().split("\n").pop()!) as Report;
}

async function extension(dir: string, name: string): Promise<{ path: string; starts: string }> {
  const starts = path.join(dir, `${name}.starts`);
  const file = path.join(dir, name);
  await writeFile(file, EXTENSION(starts));
  await chmod(file, 0o755);
  return { path: file, starts };
}

/**
 * A command that is unshare itself (a link named unshare to the launcher's own program): neither
 * its program nor its name in /proc changes when it starts, so it is never seen as started and
 * only its exit, the grace or a stop ends the watch of a first launch.
 */
async function unshareLink(dir: string): Promise<string> {
  const link = path.join(dir, "unshare");
  await symlink(UNSHARE, link);
  return link;
}

async function startCount(starts: string): Promise<number> {
  return (await readFile(starts, "utf8")).trim().split("\n").length;
}

const UNSHARE = ["/usr/bin/unshare", "/bin/unshare"].find((p) => existsSync(p)) ?? "/usr/bin/unshare";
const namespacesWork =
  process.platform === "linux" &&
  spawnSync("/usr/bin/setpriv", ["--pdeathsig", "KILL", "--", "unshare", "--user", "--map-current-user", "true"])
    .status === 0;
/** A user namespace where no further one may be made: the refusal some containers give. */
const REFUSING = [
  "unshare",
  "--user",
  "--map-root-user",
  "--",
  "/bin/sh",
  "-c",
  'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"',
  "sh",
];
const refusalPossible = namespacesWork && spawnSync(REFUSING[0]!, [...REFUSING.slice(1), "true"]).status === 0;

test("the first launch is its own trial: its command seen running in the namespace settles the tier", {
  skip: namespacesWork ? false : "this machine has no unprivileged user namespaces",
}, async () => {
  await withTempDir("octet-contained-", async (dir) => {
    const ext = await extension(dir, "ext.js");
    const report = await launch(dir, [], ext.path);
    assert.equal(report.tier, "pid-namespace");
    assert.equal(report.known, "pid-namespace", "the verdict is cached for the next launch");
    assert.equal(report.spawned.length, 1, `one process spawned, the extension's: ${report.spawned.join(" | ")}`);
    assert.match(report.spawned[0]!, /setpriv --pdeathsig KILL -- \S*unshare .* -- \S*ext\.js$/);
    assert.equal(report.stdout, "ready\n");
    assert.equal(report.stderr, "extension stderr\n");
    assert.deepEqual(report.exit, { code: 0, signal: null });
    assert.equal(await startCount(ext.starts), 1);
  });
});

test("a first launch that ends before it is seen keeps its exit and output once the trial confirms namespaces", {
  skip: namespacesWork ? false : "this machine has no unprivileged user namespaces",
}, async () => {
  await withTempDir("octet-contained-", async (dir) => {
    // Refusing an unknown option, it exits at once with 1, never seen: the trial decides after.
    const report = await launch(dir, [], await unshareLink(dir), {}, ["--no-such-option"]);
    assert.equal(report.tier, "pid-namespace");
    assert.equal(report.spawned.length, 2, `the extension, then the trial: ${report.spawned.join(" | ")}`);
    assert.match(report.spawned[1]!, /sh -c exit 0$/);
    assert.deepEqual(report.exit, { code: 1, signal: null }, "the exit seen before adoption is kept");
    assert.equal(report.stdout, "");
    assert.match(report.stderr, /unrecognized option '--no-such-option'/, "its output is kept");
  });
});

test("a stop during the watch of a first launch ends it at once, without a trial", {
  skip: namespacesWork ? false : "this machine has no unprivileged user namespaces",
}, async () => {
  await withTempDir("octet-contained-", async (dir) => {
    // unshare --fork waits for its sleep as unshare: never seen, so only the 2 s grace or the stop ends the watch.
    const report = await launch(dir, [], await unshareLink(dir), { STOP_AFTER_MS: "100" }, [
      "--fork",
      "--",
      "sleep",
      "30",
    ]);
    assert.ok(report.elapsed! < 1_000, `returned ${Math.round(report.elapsed!)} ms after the launch`);
    assert.equal(report.spawned.length, 1, `the extension only: ${report.spawned.join(" | ")}`);
  });
});

test("where namespaces are refused, the refused launch is dropped unread and the extension starts once in its group", {
  skip: refusalPossible ? false : "no user namespace can be made here to refuse namespaces in",
}, async () => {
  await withTempDir("octet-contained-", async (dir) => {
    const ext = await extension(dir, "ext.js");
    const report = await launch(dir, REFUSING, ext.path);
    assert.equal(report.tier, "process-group");
    assert.match(report.reason ?? "", /a PID namespace could not be created: .*No space left on device/);
    assert.equal(report.spawned.length, 3, `refused launch, trial, extension: ${report.spawned.join(" | ")}`);
    assert.equal(report.spawned[2], ext.path, "the extension itself, without launchers");
    assert.equal(report.stdout, "ready\n");
    assert.equal(report.stderr, "extension stderr\n", "nothing of the refused launch's stderr");
    assert.deepEqual(report.exit, { code: 0, signal: null });
    assert.equal(await startCount(ext.starts), 1, "started once");
  });
});
