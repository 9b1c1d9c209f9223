/**
 * The pool of kept conformance extensions (pool.ts), against the hand-written raw extension
 * (fixtures/raw-extension.ts): which transcripts may run on a kept extension, that one really
 * serves several transcripts in turn, and that a failed or unsettled one is killed, never kept.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { ExtensionPool, shareable } from "./pool.js";
import { runTranscript, type Implementation } from "./runner.js";
import type { Step, Transcript } from "./transcript.js";

const RAW = fileURLToPath(new URL("./fixtures/raw-extension.js", import.meta.url));
const raw = (behaviour: string): Implementation => ({
  name: `raw-${behaviour}`,
  command: [process.execPath, RAW],
  env: { RAW_BEHAVIOUR: behaviour },
});
const transcript = (steps: Step[]): Transcript => ({
  id: "TEST-01",
  title: "pool self-test",
  api: ["0.1"],
  steps,
  file: "inline",
});
const CALL: Step = {
  request: { method: "tool/call", params: { name: "anything", arguments: {}, context: "$owner_context" } },
  as: "call",
};
const EXPECT_OK: Step = { expect: { id: "$id:call", result: { content: "ok", is_error: false } } };

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test(
  "issue 13.12: only a transcript that starts with the standard initialize and never ends or reconfigures the " +
    "extension is shareable",
  () => {
    const init: Step = { initialize: {} };
    assert.equal(
      shareable(
        transcript([
          init,
          CALL,
          EXPECT_OK,
          { refute: { method: "x" } },
          { notify: { method: "$/cancelRequest", params: { id: 2 } } },
        ]),
      ),
      true,
    );
    for (const steps of [
      [{ initialize: { protocol: "$absent" } }, CALL],
      [{ initialize: {}, result: { api_version: "0.1" } }, CALL],
      [init, { request: { method: "shutdown", params: {} } }],
      [init, { close_stdin: true }],
      [init, { expect_exit: null }],
      [init, { send: { jsonrpc: "2.0" } }],
      [init, { send_raw: "x\n" }],
      [init, { notify: { method: "turn/settled", params: {} } }],
      [CALL, EXPECT_OK],
    ] as Step[][]) {
      assert.equal(shareable(transcript(steps)), false, JSON.stringify(steps));
    }
  },
);

test("issue 13.12: shareable transcripts run in turn on one kept extension, their request ids going on", async () => {
  const pool = new ExtensionPool();
  try {
    await runTranscript(raw("ok"), transcript([{ initialize: {} }, CALL, EXPECT_OK]), "0.1", pool);
    const first = pool.take("0.1");
    assert.ok(first, "the extension was kept");
    assert.equal(first.nextId, 3);
    pool.give("0.1", first);
    // The second transcript skips its initialize; its call is request 3 on the same process.
    await runTranscript(
      raw("ok"),
      transcript([{ initialize: {} }, CALL, { expect: { id: 3, result: { content: "ok" } } }]),
      "0.1",
      pool,
    );
    const second = pool.take("0.1");
    assert.equal(second?.proc.child.pid, first.proc.child.pid);
    assert.equal(second?.nextId, 4);
    pool.give("0.1", second!);
  } finally {
    await pool.close();
  }
});

test(
  "issue 13.12: a failed transcript's extension, and a passed one with a request still unanswered, are killed, not " +
    "kept",
  async () => {
    const pool = new ExtensionPool();
    try {
      await assert.rejects(
        runTranscript(
          raw("ok"),
          transcript([
            { initialize: {} },
            CALL,
            { expect: { id: "$id:call", result: { content: "no" } }, within_ms: 200 },
          ]),
          "0.1",
          pool,
        ),
      );
      assert.equal(pool.take("0.1"), undefined);
      // raw "hang" never answers tool/call: the transcript passes without waiting for it.
      await runTranscript(raw("hang"), transcript([{ initialize: {} }, CALL]), "0.1", pool);
      assert.equal(pool.take("0.1"), undefined);
      // A kept extension is killed when the pool closes.
      await runTranscript(raw("ok"), transcript([{ initialize: {} }, CALL, EXPECT_OK]), "0.1", pool);
      const kept = pool.take("0.1");
      assert.ok(kept && alive(kept.proc.child.pid!));
      pool.give("0.1", kept);
      await pool.close();
      assert.equal(alive(kept.proc.child.pid!), false);
    } finally {
      await pool.close();
    }
  },
);

/** Polls `ready` until it holds (a late frame and its stderr line come on two pipes). */
async function until(ready: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !ready(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ready(), `no ${what} within 5 s`);
}

test("issue 13 review: take() drops frames that came while the extension waited; its stderr starts anew", async () => {
  const pool = new ExtensionPool();
  try {
    await runTranscript(raw("ok"), transcript([{ initialize: {} }, CALL, EXPECT_OK]), "0.1", pool);
    const lease = pool.take("0.1")!;
    assert.equal(lease.proc.stderrTail, "", "the first user's stderr (the start line) is not the next one's");
    pool.give("0.1", lease);
    // While it waits in the pool, the extension writes a frame and a stderr line nobody asked for.
    process.kill(lease.proc.child.pid!, "SIGUSR1");
    await until(() => lease.proc.queue.length === 1 && lease.proc.stderrTail.includes("late stderr"), "late frame");
    const again = pool.take("0.1");
    assert.equal(again?.proc.child.pid, lease.proc.child.pid, "the same extension, still alive");
    assert.deepEqual(again!.proc.queue, [], "the late frame is not the next transcript's");
    assert.equal(again!.proc.stderrTail, "", "the late stderr line is not the next transcript's");
    pool.give("0.1", again!);
    // A transcript on it now runs clean: its failure report would carry only its own stderr.
    const refuteLate: Step = { refute: { method: "raw/late" } };
    await runTranscript(raw("ok"), transcript([{ initialize: {} }, CALL, EXPECT_OK, refuteLate]), "0.1", pool);
  } finally {
    await pool.close();
  }
});

test(
  "issue 13 review: a kept extension that exited while it waited is " + "reaped at take(); the next one starts fresh",
  async () => {
    const pool = new ExtensionPool();
    try {
      await runTranscript(raw("ok"), transcript([{ initialize: {} }, CALL, EXPECT_OK]), "0.1", pool);
      const lease = pool.take("0.1")!;
      pool.give("0.1", lease);
      process.kill(lease.proc.child.pid!, "SIGTERM");
      await lease.proc.waitFor(() => lease.proc.exit ?? undefined, 5_000, "exit", true);
      assert.equal(pool.take("0.1"), undefined, "a dead extension is never handed out");
      // The next shareable transcript runs on a new process, from its own initialize (request 1).
      const second: Step = { expect: { id: 2, result: { content: "ok" } } };
      await runTranscript(raw("ok"), transcript([{ initialize: {} }, CALL, second]), "0.1", pool);
      const fresh = pool.take("0.1");
      assert.ok(fresh && fresh.proc.child.pid !== lease.proc.child.pid && alive(fresh.proc.child.pid!));
      pool.give("0.1", fresh);
    } finally {
      await pool.close();
    }
  },
);
