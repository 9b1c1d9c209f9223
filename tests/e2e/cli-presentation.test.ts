/**
 * `/extensions show` in the interactive shell on piped input, against the background-worker
 * example: the snapshot as an explicit view (status, activities with metrics, the tree, the
 * selected detail, the actions) and an action run through its declared command.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLES, processesMentioning, runCli } from "./helpers.js";

// A workspace of this file's own: the extension's environment names it (OCTET_WORKSPACE), so the
// check for processes left over sees this file's workers, not another test file's.
const WORKSPACE = await mkdtemp(join(tmpdir(), "octet-cli-pres-"));
const WORKER = ["--extension-dir", EXAMPLES, "--workspace", WORKSPACE, "--enable-extension", "background-worker"];

test("PRES-22, PRES-25: /extensions show prints the newest snapshot as an explicit view", async () => {
  const input = [
    "/extensions show background-worker",
    '/call start_job {"name":"index","steps":3,"step_ms":60000}',
    "/extensions show background-worker",
    "",
  ].join("\n");
  const r = await runCli(WORKER, { input });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /background-worker has published no presentation/);
  assert.match(r.stdout, /background-worker 0\.1\.0, generation 1, revision 0, session /);
  assert.match(r.stdout, /status: running — 1 running, 0 finished/);
  assert.match(r.stdout, /running {5}job1 \[job\] index: step 0 of 3 · background timer/);
  assert.match(r.stdout, /tools 0 · in 0 · out 0 \(reasoning 0\)/);
  assert.match(r.stdout, /Jobs \(tree\):\n {2}> index {2}running {2}0\/3 {2}\[job1\] actions: cancel:job1/);
  assert.match(r.stdout, /detail: index \[job1\]\n {2}Job job1 \(index\)\n {2}state: running/);
  assert.match(r.stdout, /cancel:job1 {2}Cancel index -> \/jobs cancel job1 \(destructive\)/);
  assert.match(r.stdout, /clear {2}Clear finished jobs -> \/jobs clear/);
  assert.doesNotMatch(r.stdout, /\u001b/, "no escape sequence reaches the terminal");
  assert.deepEqual(processesMentioning(WORKSPACE), []);
});

test(
  "PRES-15, PRES-23: /extensions show NAME ACTION runs the action's " +
    "declared command; a destructive one needs a yes",
  async () => {
    const input = [
      '/call start_job {"name":"index","steps":3,"step_ms":60000}',
      "/extensions show background-worker cancel:job1",
      "/extensions show background-worker clear",
      "/extensions show background-worker nope",
      "",
    ].join("\n");
    const r = await runCli(WORKER, { input });
    assert.equal(r.code, 0, r.stderr);
    // Piped input cannot answer a confirmation: the destructive action is refused, not guessed.
    assert.match(r.stdout, /error: presentation action "Cancel index" of "background-worker" was not confirmed/);
    assert.match(r.stdout, /cleared 0 finished jobs/);
    assert.match(
      r.stdout,
      /error: presentation of "background-worker" has no action "nope"; its actions: cancel:job1, clear/,
    );
    const yes = await runCli([...WORKER, "--yes"], {
      input: [
        '/call start_job {"name":"index","steps":3,"step_ms":60000}',
        "/extensions show background-worker cancel:job1",
        "",
      ].join("\n"),
    });
    assert.match(yes.stdout, /cancelled job1/);
  },
);
