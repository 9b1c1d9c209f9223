/**
 * Process groups on real processes (reliability P12, P16, P17): signalGroup refuses groups that
 * would hit the host or everything, kills a detached child together with a grandchild that ignores
 * SIGTERM, and reports a vanished group as "gone"; liveness reads /proc and counts a zombie as
 * dead; the /proc stat parser survives a command name with spaces and parentheses.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { groupMembers, isAlive, readProcStat, signalGroup } from "../../src/process/process-group.js";
import { cleanup, exited, firstLine } from "../helpers/child.js";
import { waitUntil } from "../helpers/wait.js";

test("signalGroup refuses pgid 0, 1, negatives and non-integers without signalling", () => {
  // SIGCONT is harmless even if a refusal were missing (0 is our own group, -1 is everyone).
  for (const pgid of [0, 1, -1, -1234, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
    assert.throws(
      () => signalGroup(pgid, "SIGCONT"),
      (e: unknown) => e instanceof RangeError && e.message.includes(`process group ${pgid}`),
      String(pgid),
    );
  }
});

const GRANDCHILD = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log('up')";
const PARENT = `
const { spawn } = require("node:child_process");
const gc = spawn(process.execPath, ["-e", ${JSON.stringify(GRANDCHILD)}], { stdio: ["ignore", "pipe", "inherit"] });
gc.stdout.once("data", () => console.log(JSON.stringify({ gc: gc.pid })));
setInterval(() => {}, 1000);
`;

test("ENV-09: signalGroup kills a detached child and its grandchild in the same group", async () => {
  const child = spawn(process.execPath, ["-e", PARENT], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const pgid = child.pid!;
    const { gc } = JSON.parse(await firstLine(child)) as { gc: number };
    assert.equal(readProcStat(gc)?.pgid, pgid, "the grandchild stayed in the child's group");
    assert.deepEqual(groupMembers(pgid).sort(), [pgid, gc].sort());
    assert.equal(signalGroup(pgid, "SIGTERM"), "sent");
    await exited(child);
    assert.ok(isAlive(gc), "the grandchild ignores SIGTERM");
    assert.equal(signalGroup(pgid, "SIGKILL"), "sent");
    await waitUntil(() => !isAlive(gc) && groupMembers(pgid).length === 0, 5_000, "the grandchild to die");
  } finally {
    await cleanup(child);
  }
});

test("signalGroup returns gone for a group that no longer exists", async () => {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
  try {
    await new Promise<void>((resolve, reject) => child.once("spawn", resolve).once("error", reject));
    const pgid = child.pid!;
    assert.equal(signalGroup(pgid, "SIGKILL"), "sent");
    await exited(child); // Node reaps its own child, so the group is empty, not a zombie
    assert.equal(signalGroup(pgid, "SIGKILL"), "gone");
    assert.equal(isAlive(pgid), false);
    assert.equal(readProcStat(pgid), null);
  } finally {
    await cleanup(child);
  }
});

test("isAlive is false for a zombie, which kill(pid, 0) still reports as present", async () => {
  // Node reaps its own children, so the zombie is a grandchild whose parent (exec'd into sleep)
  // never waits for it.
  const child = spawn("sh", ["-c", "sleep 0 & echo $!; exec sleep 30"], {
    detached: true,
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const zombie = Number(await firstLine(child));
    await waitUntil(() => readProcStat(zombie)?.state === "Z", 5_000, `process ${zombie} to become a zombie`);
    assert.equal(isAlive(zombie), false);
    assert.doesNotThrow(() => process.kill(zombie, 0), "kill(pid, 0) cannot tell a zombie from a live process");
    assert.equal(readProcStat(zombie)?.ppid, child.pid);
    assert.deepEqual(groupMembers(child.pid!), [child.pid], "a zombie is not a live group member");
    assert.equal(isAlive(child.pid!), true);
  } finally {
    await cleanup(child);
  }
});

test("isAlive is false after a child exits and is reaped", async () => {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  const pid = child.pid!;
  await exited(child);
  assert.equal(isAlive(pid), false);
});

test("readProcStat parses a command name with spaces and parentheses", async () => {
  const dir = await mkdtemp(path.join(tmpdir(), "octet-procstat-"));
  // comm becomes the script's name: it contains ") S 1 (" to fool a parser that splits on the first ")".
  const name = "a) S 1 (b c";
  const script = path.join(dir, name);
  await writeFile(script, "#!/bin/sh\necho up\nsleep 30\n");
  await chmod(script, 0o755);
  const child = spawn(script, [], { detached: true, stdio: ["ignore", "pipe", "inherit"] });
  try {
    assert.equal(await firstLine(child), "up");
    const stat = readProcStat(child.pid!);
    assert.ok(stat, "stat readable");
    assert.deepEqual(
      { ...stat, state: "?", start: 0 },
      { pid: child.pid, comm: name, state: "?", ppid: process.pid, pgid: child.pid, start: 0 },
    );
    assert.ok(Number.isInteger(stat.start) && stat.start > 0, `start ${stat.start}`);
    assert.ok(["R", "S", "D"].includes(stat.state), `state ${stat.state}`);
  } finally {
    await cleanup(child);
    await rm(dir, { recursive: true, force: true });
  }
});

test("readProcStat of our own process matches what Node reports", () => {
  const stat = readProcStat(process.pid);
  assert.ok(stat);
  assert.equal(stat.pid, process.pid);
  assert.equal(stat.ppid, process.ppid);
  assert.ok(Number.isSafeInteger(stat.pgid) && stat.pgid > 0);
  assert.ok(isAlive(process.pid));
  assert.equal(readProcStat(2 ** 22 + 12345), null, "a pid above pid_max has no stat");
});
