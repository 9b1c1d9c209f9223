/**
 * Scratch directories carry their host's pid and start time, so the next host can remove those
 * of hosts that died without cleaning up (issue 13), and never one of a live host.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { createScratch, removeStaleScratch } from "../../src/process/scratch.js";

function startTimeOf(pid: number): number {
  const text = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[19]);
}

test(
  "issue 13.13: scratch directories of dead hosts are removed; a live host's, unowned names and " + "symlinks are kept",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "octet-scratch-test-"));
    try {
      const live = await createScratch("ext", 1, root);
      assert.match(basename(live), new RegExp(`^octet-scratch-${process.pid}\\.${startTimeOf(process.pid)}-ext-1-`));
      // A host that has exited: its pid is free (or someone else's, with another start time).
      const gone = spawnSync(process.execPath, ["-e", "0"]).pid!;
      const dead = join(root, `octet-scratch-${gone}.12345-ext-2-abcdef`);
      // A live process (our parent) with another start time: its pid was reused, the owner is gone.
      const reusedPid = join(root, `octet-scratch-${process.ppid}.1-x-1-abcdef`);
      const unowned = join(root, "octet-scratch-ext-1-abcdef");
      for (const dir of [dead, reusedPid, unowned]) mkdirSync(join(dir, "nested"), { recursive: true });
      const target = mkdtempSync(join(tmpdir(), "octet-scratch-target-"));
      const link = join(root, `octet-scratch-${gone}.1-link-1-abcdef`);
      symlinkSync(target, link);
      const removed = await removeStaleScratch(root);
      assert.deepEqual(removed.sort(), [dead, reusedPid].sort());
      assert.ok(existsSync(live), "this host's directory stays");
      assert.ok(existsSync(unowned), "a name without an owner is not judged");
      assert.ok(existsSync(link) && existsSync(target), "a symlink is never followed or removed");
      rmSync(target, { recursive: true, force: true });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test(
  "issue 13.13 (review): a name made without /proc (start time 0) is judged by the pid alone: a live " +
    "host's stays, a dead one's goes",
  async () => {
    const root = mkdtempSync(join(tmpdir(), "octet-scratch-test-"));
    try {
      const liveNoProc = join(root, `octet-scratch-${process.ppid}.0-x-1-abcdef`);
      const gone = spawnSync(process.execPath, ["-e", "0"]).pid!;
      const deadNoProc = join(root, `octet-scratch-${gone}.0-x-1-abcdef`);
      for (const dir of [liveNoProc, deadNoProc]) mkdirSync(dir);
      assert.deepEqual(await removeStaleScratch(root), [deadNoProc]);
      assert.ok(existsSync(liveNoProc), "a live pid keeps its directory when its start time is unknown");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);
