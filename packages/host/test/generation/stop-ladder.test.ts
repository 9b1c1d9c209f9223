/**
 * The stop ladder over an in-memory child (issue 14.3): shutdown answered, shutdown unanswered,
 * an exit that does not come, and the child exiting during each stage. Budgets and stage bounds
 * are small so no test waits out the 2 s stages; nothing here asserts a duration.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Connection } from "../../src/generation/connection.js";
import { reap, runStopLadder, type LadderSubject } from "../../src/generation/stop-ladder.js";
import type { GenerationState } from "../../src/events.js";
import { FakeChild } from "./fake-child.js";
import { started } from "./harness.js";
import { withDeadline } from "../helpers/wait.js";

test(
  "SHUT-01, SHUT-02: a shutdown that is acknowledged and followed by the exit ends the ladder: nothing " +
    "running is killed",
  async () => {
    const h = await started("0.2");
    const stopping = h.g.stop();
    const shutdown = await h.child.next("shutdown");
    assert.deepEqual(shutdown.params, {});
    h.child.reply(shutdown, {});
    h.child.exit(0);
    await stopping;
    assert.equal(h.g.state, "stopped");
    assert.deepEqual(
      h.child.frames().map((f) => f.method),
      ["initialize", "shutdown"],
    );
    // The last rung always signals the group (it may hold grandchildren); the child itself was gone.
    assert.ok(
      h.child.kills.every((k) => !k.running),
      JSON.stringify(h.child.kills),
    );
    assert.deepEqual(h.diagnostics(), []);
    assert.equal(h.child.released, true);
    const states = h.events.flatMap((e) => (e.type === "state" ? [e.state] : []));
    assert.deepEqual(states, ["initializing", "ready", "draining", "stopped"]);
  },
);

test(
  "SHUT-03, SHUT-05: an unanswered shutdown: after the acknowledgement and exit stages the group is killed " +
    "while the child runs",
  async () => {
    const h = await started("0.1");
    await h.g.stop(200);
    assert.equal(h.g.state, "stopped");
    assert.equal(h.child.kills[0]?.running, true, "the kill came while the child was still running");
    const d = h.diagnostics();
    const noAck = /^warning: no shutdown acknowledgement: shutdown \(id 2\) got no response within \d+ ms/;
    const noExit = /^warning: did not exit within \d+ ms of the shutdown request; killing its process group/;
    assert.ok(
      d.some((x) => noAck.test(x)),
      d.join("\n"),
    );
    assert.ok(
      d.some((x) => noExit.test(x)),
      d.join("\n"),
    );
    // API 0.1 has no draining phase (SHUT-09).
    assert.ok(!h.events.some((e) => e.type === "state" && e.state === "draining"));
  },
);

test("SHUT-04: a shutdown acknowledged but never followed by the exit: killed after the exit stage", async () => {
  const h = await started("0.2");
  const stopping = h.g.stop(300);
  h.child.reply(await h.child.next("shutdown"), {});
  await stopping;
  assert.equal(h.child.kills[0]?.running, true);
  const d = h.diagnostics();
  assert.ok(!d.some((x) => x.includes("no shutdown acknowledgement")), d.join("\n"));
  assert.ok(
    d.some((x) => x.includes("did not exit within")),
    d.join("\n"),
  );
});

test(
  "SHUT-08: a child that exits while the ladder drains is not killed alive and ends stopped, " + "not crashed",
  async () => {
    const h = await started("0.2");
    const call = h.g.request("tool/call", { name: "echo", arguments: {} }, { timeoutMs: 10_000 });
    const refused = call.catch((err: unknown) => err);
    await h.child.next("tool/call");
    const stopping = h.g.stop(400);
    h.child.exit(1);
    await stopping;
    assert.equal(h.g.state, "stopped");
    assert.ok(h.child.kills.every((k) => !k.running));
    assert.match(String(await refused), /cancelled: shutdown|transport_closed|was stopped/);
    assert.equal(h.g.lastError, null, "an exit during a requested stop is not a crash");
  },
);

test(
  "SHUT-02: a child that exits after acknowledging, during the exit stage, ends that stage without " + "a warning",
  async () => {
    const h = await started("0.1");
    // A stage bound far beyond the test's own deadline: only the exit can end the wait in time.
    const stopping = h.g.stop(60_000);
    const shutdown = await h.child.next("shutdown");
    h.child.reply(shutdown, {});
    setTimeout(() => h.child.exit(0), 20);
    await withDeadline(stopping, 20_000, "the stop to end at the exit");
    assert.ok(!h.diagnostics().some((x) => x.includes("did not exit")));
    assert.ok(h.child.kills.every((k) => !k.running));
  },
);

/** The ladder alone, over a real connection to a fake child, with short stages. */
interface Subject {
  s: LadderSubject;
  said: string[];
  states: string[];
}

function subject(child: FakeChild, state: GenerationState = "ready"): Subject {
  const said: string[] = [];
  const states: string[] = [];
  const ended = new AbortController();
  const conn = new Connection({
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    inbox: { request: async () => null, notification: () => undefined, cancel: () => undefined },
    childCancels: true,
    progress: () => false,
    onStderr: () => undefined,
    onViolation: (m) => said.push(`violation: ${m}`),
    onTransportEnded: () => undefined,
    diagnose: (level, m) => said.push(`${level}: ${m}`),
    ended: ended.signal,
  });
  let exited = false;
  void child.exited.then(() => (exited = true));
  let current = state;
  const s: LadderSubject = {
    name: "fake",
    api: "0.2",
    state: () => current,
    peer: conn.peer,
    requests: null,
    exited: child.exited,
    hasExited: () => exited,
    setState: (next) => {
      current = next;
      states.push(next);
    },
    drained: () => states.push("(drained)"),
    diagnose: (level, m) => said.push(`${level}: ${m}`),
  };
  return { s, said, states };
}

test(
  "SHUT-03: a child that exits during the acknowledgement stage is not killed alive; the stage runs out " +
    "without an answer",
  async () => {
    const child = new FakeChild();
    const { s, said, states } = subject(child);
    const ladder = runStopLadder(s, Number.POSITIVE_INFINITY, 100);
    await child.next("shutdown");
    child.exit(0);
    await ladder;
    await reap(child, () => undefined, 100);
    assert.deepEqual(states, ["draining", "(drained)"]);
    assert.ok(
      said.some((x) => x.startsWith("warning: no shutdown acknowledgement")),
      said.join("\n"),
    );
    assert.ok(!said.some((x) => x.includes("did not exit")), said.join("\n"));
    assert.ok(child.kills.every((k) => !k.running));
  },
);

test(
  "SHUT-05: the ladder does nothing for a child that already exited or a generation not live; reap still " +
    "kills and destroys the pipes",
  async () => {
    const gone = new FakeChild();
    gone.exit(0);
    const a = subject(gone);
    await gone.exited;
    await runStopLadder(a.s, Number.POSITIVE_INFINITY, 100);
    assert.deepEqual(gone.frames(), []);
    const starting = new FakeChild();
    const b = subject(starting, "starting");
    await runStopLadder(b.s, Number.POSITIVE_INFINITY, 100);
    assert.deepEqual(starting.frames(), []);
    starting.exitOnKill = false;
    await reap(starting, () => undefined, 50);
    assert.deepEqual(starting.kills, [{ running: true }]);
    assert.ok(starting.stdin.destroyed && starting.stdout.destroyed && starting.stderr.destroyed);
  },
);

test("SHUT-05: a kill that cannot be sent is diagnosed, and the pipes are destroyed all the same", async () => {
  const child = new FakeChild();
  child.kill = () => {
    throw new Error("EPERM");
  };
  const said: string[] = [];
  child.exit(0);
  await reap(child, (level, m) => said.push(`${level}: ${m}`), 50);
  assert.deepEqual(said, ["error: could not kill process group 4000000: EPERM"]);
  assert.ok(child.stdout.destroyed && child.stderr.destroyed);
});
