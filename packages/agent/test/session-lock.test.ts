import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { test } from "node:test";
import { SessionFile, SessionLockedError } from "../src/session/index.js";
import { exited, spawnScript, tempDirs, userMessage, waitForLine } from "./session-helpers.js";

/** A child that opens the session, appends one entry and waits (holding the lock) until killed. */
const HOLDER = `
const s = await SESSION.SessionFile.open(process.argv[2]);
await s.append({ type: "custom", entry_type: "holder", data: process.pid });
console.log("holding " + process.pid);
setInterval(() => {}, 1000);
`;

test("a second opener gets SessionLockedError naming the holder; the lock is taken over once it dies", async () => {
  const { root, home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  await s.append(userMessage("first"));
  await s.close();
  assert.equal(existsSync(`${s.path}.lock`), false, "close() releases the lock");

  const child = spawnScript(root, "holder", HOLDER, [s.path]);
  await waitForLine(child, /^holding /);
  const lock = JSON.parse(readFileSync(`${s.path}.lock`, "utf8"));
  assert.deepEqual([lock.pid, lock.hostname], [child.pid, hostname()]);
  await assert.rejects(SessionFile.open(s.path), (e: unknown) => {
    assert.ok(e instanceof SessionLockedError);
    assert.equal(e.holder?.pid, child.pid);
    assert.match(e.message, new RegExp(`in use by process ${child.pid} on `));
    assert.match(e.message, /close the other octet, or start a new session/);
    return true;
  });

  // SIGKILL skips every exit hook: the lock stays behind, naming a dead pid.
  child.kill("SIGKILL");
  await exited(child);
  assert.equal(existsSync(`${s.path}.lock`), true);
  const again = await SessionFile.open(s.path);
  assert.equal(again.warnings.length, 1);
  assert.match(again.warnings[0] ?? "", new RegExp(`took over a stale lock .*process ${child.pid} .* is gone`));
  assert.equal(JSON.parse(readFileSync(`${s.path}.lock`, "utf8")).pid, process.pid);
  assert.deepEqual(
    again.entries().map((e) => e.type),
    ["message", "custom"],
  );
  await again.close();
});

test("a second SessionFile on the same file in one process is refused too", async () => {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  await assert.rejects(SessionFile.open(s.path), SessionLockedError);
  await s.close();
  const reopened = await SessionFile.open(s.path);
  assert.deepEqual(reopened.warnings, []);
  await reopened.close();
});

test("a stale lock written by hand (dead pid on this host) is taken over with a warning", async () => {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  await s.close();
  const dead = spawnSync(process.execPath, ["-e", "0"]).pid;
  assert.ok(dead);
  writeFileSync(`${s.path}.lock`, JSON.stringify({ pid: dead, hostname: hostname(), started: 1 }));
  const again = await SessionFile.open(s.path);
  assert.match(again.warnings.join("\n"), new RegExp(`stale lock .* process ${dead} on ${hostname()} is gone`));
  await again.close();
});

test("a lock from another host or an unreadable lock is respected, not taken over", async () => {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  await s.close();
  writeFileSync(`${s.path}.lock`, JSON.stringify({ pid: 1, hostname: `not-${hostname()}`, started: 1 }));
  await assert.rejects(SessionFile.open(s.path), { name: "SessionLockedError", message: /process 1 on not-/ });
  writeFileSync(`${s.path}.lock`, "{tor");
  await assert.rejects(SessionFile.open(s.path), { message: /lock file is unreadable; delete it if no other octet/ });
});

test("a process that exits without close() releases its lock in the exit hook", async () => {
  const { root, home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  await s.close();
  const child = spawnScript(
    root,
    "exiter",
    `const s = await SESSION.SessionFile.open(process.argv[2]);
const fs = await import("node:fs");
console.log("locked " + fs.existsSync(process.argv[2] + ".lock"));
process.exit(0);`,
    [s.path],
  );
  assert.equal(await waitForLine(child, /^locked /), "locked true");
  assert.deepEqual(await exited(child), { code: 0, signal: null });
  assert.equal(existsSync(`${s.path}.lock`), false);
});
