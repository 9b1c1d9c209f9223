/**
 * spawnChild on real processes: no shell (ENV-10), its own process group (ENV-09), the workspace
 * as cwd (ENV-08), exactly the given environment, and spawn failures reported as spawn_failed
 * naming what went wrong (reliability P1, P2). Every spawned group is killed in a finally.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { chmod, writeFile } from "node:fs/promises";
import path from "node:path";
import { OctetError } from "@octet/protocol";
import { spawnChild, type SpawnSpec } from "../../src/process/spawn-child.js";
import { readProcStat } from "../../src/process/process-group.js";
import { allStdout, cleanup, firstLine } from "../helpers/child.js";
import { withTempDir } from "../helpers/temp-dir.js";

/** Prints one JSON line describing itself, then waits for stdin to close. */
const REPORT = `
const out = { argv: process.argv.slice(2), cwd: process.cwd(), env: Object.keys(process.env).sort(), pid: process.pid };
process.stdout.write(JSON.stringify(out) + "\\n");
process.stdin.resume();
process.stdin.on("end", () => process.exit(0));
`;

async function run(spec: SpawnSpec, fn: (child: ChildProcessWithoutNullStreams) => Promise<void>): Promise<void> {
  let child: ChildProcessWithoutNullStreams | undefined;
  try {
    child = await spawnChild(spec);
    await fn(child);
  } finally {
    await cleanup(child);
  }
}

async function spawnFailure(spec: SpawnSpec): Promise<OctetError> {
  let child: ChildProcessWithoutNullStreams | undefined;
  try {
    child = await spawnChild(spec);
  } catch (err) {
    assert.ok(err instanceof OctetError, `expected OctetError, got ${String(err)}`);
    assert.equal(err.code, "spawn_failed");
    return err;
  } finally {
    await cleanup(child);
  }
  assert.fail("spawnChild should have failed");
}

const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", OCTET_WORKSPACE: "x" };

test("ENV-10: arguments reach the child verbatim, with no shell between", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    const script = path.join(dir, "report.cjs");
    await writeFile(script, REPORT);
    const args = [
      "$(echo hi)",
      "; rm -rf /",
      "`id`",
      "a b",
      "*",
      "$HOME",
      "'q'",
      '"dq"',
      "x\ny",
      "",
      "-flag",
      "--",
      "|",
      "&& echo pwned",
    ];
    await run({ command: process.execPath, args: [script, ...args], cwd: dir, env }, async (child) => {
      const report = JSON.parse(await firstLine(child)) as { argv: string[] };
      assert.deepEqual(report.argv, args);
    });
  });
});

test("ENV-09: the child leads its own process group", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    await run({ command: process.execPath, args: ["-e", REPORT], cwd: dir, env }, async (child) => {
      await firstLine(child);
      const stat = readProcStat(child.pid!);
      assert.ok(stat);
      assert.equal(stat.pgid, child.pid, "pgid === pid");
      assert.notEqual(stat.pgid, readProcStat(process.pid)?.pgid, "not the host's group");
    });
  });
});

test("ENV-08: the child's working directory is the given workspace", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    await run({ command: process.execPath, args: ["-e", REPORT], cwd: dir, env }, async (child) => {
      const report = JSON.parse(await firstLine(child)) as { cwd: string };
      assert.equal(report.cwd, dir);
    });
  });
});

test("ENV-05: the child sees exactly the environment it was given", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    const given = { ...env, LANG: "C.UTF-8", OCTET_EXTENSION_NAME: "hello" };
    await run({ command: process.execPath, args: ["-e", REPORT], cwd: dir, env: given }, async (child) => {
      const report = JSON.parse(await firstLine(child)) as { env: string[] };
      assert.deepEqual(report.env, Object.keys(given).sort());
    });
  });
});

test("stdin EOF reaches the child and its stdout ends", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    await run({ command: process.execPath, args: ["-e", REPORT], cwd: dir, env }, async (child) => {
      const out = allStdout(child);
      child.stdin.end();
      assert.match(await out, /^\{"argv":/);
    });
  });
});

test("a missing command is spawn_failed naming the command and PATH", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    const e = await spawnFailure({
      command: "octet-no-such-command",
      args: [],
      cwd: dir,
      env: { PATH: "/nonexistent/bin" },
    });
    assert.match(e.message, /"octet-no-such-command" was not found \(PATH=\/nonexistent\/bin\)/);
  });
});

test("a missing workspace is spawn_failed naming the workspace, not the command", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    const missing = path.join(dir, "gone");
    const e = await spawnFailure({ command: process.execPath, args: [], cwd: missing, env });
    assert.equal(e.message, `workspace ${missing} does not exist`);
    const file = path.join(dir, "file");
    await writeFile(file, "");
    const f = await spawnFailure({ command: process.execPath, args: [], cwd: file, env });
    assert.equal(f.message, `workspace ${file} is not a directory`);
  });
});

test("a file without execute permission is spawn_failed: not executable", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    const file = path.join(dir, "ext.sh");
    await writeFile(file, "#!/bin/sh\necho hi\n");
    await chmod(file, 0o644);
    const e = await spawnFailure({ command: file, args: [], cwd: dir, env });
    assert.match(e.message, new RegExp(`"${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}" is not executable`));
  });
});

test("a directory as the command is spawn_failed", async () => {
  await withTempDir("octet-spawn-", async (dir) => {
    const e = await spawnFailure({ command: dir, args: [], cwd: dir, env });
    assert.ok(e.message.includes(dir), e.message);
  });
});
