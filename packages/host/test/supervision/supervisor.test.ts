import { test } from "node:test";
import assert from "node:assert/strict";
import { OctetError } from "@octet/protocol";
import {
  Supervisor,
  isPermanentRestartError,
  type SupervisorClock,
  type SupervisorEvent,
} from "../../src/supervision/supervisor.js";

/** A clock whose time moves only when told, and whose timers fire only then. */
class FakeClock implements SupervisorClock {
  time = 0;
  r = 0.5;
  timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  now(): number {
    return this.time;
  }
  random(): number {
    return this.r;
  }
  setTimer(fn: () => void, ms: number): () => void {
    const t = { at: this.time + ms, fn, cancelled: false };
    this.timers.push(t);
    return () => {
      t.cancelled = true;
    };
  }
  get pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
  /** Moves time forward, firing due timers in order, and lets their promises run. */
  async advance(ms: number): Promise<void> {
    this.time += ms;
    for (;;) {
      const due = this.timers.filter((t) => !t.cancelled && t.at <= this.time).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.cancelled = true;
      due.fn();
      await flush();
    }
    await flush();
  }
}

const flush = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function harness(restart: (n: number) => Promise<void>, permanent: (e: unknown) => boolean = isPermanentRestartError) {
  const clock = new FakeClock();
  const events: SupervisorEvent[] = [];
  let calls = 0;
  const sv = new Supervisor({
    clock,
    restart: async () => {
      calls++;
      await restart(calls);
      sv.ready(); // the host reports the swap as it happens
    },
    isPermanent: permanent,
    emit: (e) => events.push(e),
  });
  sv.ready();
  return { clock, events, sv, calls: () => calls };
}

test(
  "SUP-01, SUP-02: an unexpected end schedules a restart after the jittered delay; success counts a " +
    "restart and watches again",
  async () => {
    const h = harness(async () => undefined);
    h.sv.ended("process exited with code 1");
    assert.equal(h.sv.snapshot.state, "backoff");
    assert.deepEqual(h.events[0], {
      action: "restart_scheduled",
      attempt: 0,
      delayMs: 125,
      reason: "process exited with code 1",
    });
    assert.equal(h.sv.snapshot.nextRestartAt, 125);
    await h.clock.advance(124);
    assert.equal(h.calls(), 0, "not before the delay");
    await h.clock.advance(1);
    assert.equal(h.calls(), 1);
    assert.deepEqual(
      h.events.slice(1).map((e) => e.action),
      ["restarting", "restarted"],
    );
    assert.deepEqual(h.sv.snapshot, {
      state: "watching",
      restarts: 1,
      attempts: 1,
      nextRestartAt: null,
      parkedReason: null,
    });
  },
);

test(
  "SUP-04: a crash loop parks after eight failed restart attempts (nine generations), with the last " +
    "failure in the reason",
  async () => {
    // Each restart "succeeds" (the candidate initializes), then the generation ends again at once.
    const h = harness(async () => undefined);
    for (let i = 0; i < 9; i++) {
      h.sv.ended(`exit ${i}`);
      await h.clock.advance(30_000);
    }
    assert.equal(h.calls(), 8, "eight restarts: nine generations in all");
    assert.equal(h.sv.snapshot.state, "parked");
    assert.match(h.sv.snapshot.parkedReason ?? "", /8 restart attempts failed; last failure: exit 8/);
    assert.equal(h.clock.pending, 0, "nothing scheduled once parked");
    h.sv.ended("again");
    assert.equal(h.clock.pending, 0, "a parked watcher ignores further ends");
  },
);

test("SUP-04: candidates that fail to start count as failed attempts too, with growing delays", async () => {
  const h = harness(async () => {
    throw new OctetError("initialize_failed", "candidate crashed");
  });
  h.clock.r = 0.999;
  h.sv.ended("exit 1");
  for (let i = 0; i < 9; i++) await h.clock.advance(30_000);
  assert.equal(h.calls(), 8);
  assert.equal(h.sv.snapshot.state, "parked");
  const delays = h.events.flatMap((e) => (e.action === "restart_scheduled" ? [e.delayMs] : []));
  assert.deepEqual(delays, [250, 500, 999, 1998, 3996, 7992, 15984, 29970]);
  assert.equal(h.events.filter((e) => e.action === "restart_failed").length, 8);
});

test("SUP-05: a generation ready for 30 s before it ends gets a fresh budget", async () => {
  const h = harness(async () => undefined);
  for (let i = 0; i < 7; i++) {
    h.sv.ended("exit");
    await h.clock.advance(30_000);
  }
  assert.equal(h.sv.snapshot.attempts, 7);
  await h.clock.advance(30_000); // continuously ready for 30 s
  h.sv.ended("exit after a long run");
  assert.equal(h.sv.snapshot.attempts, 1, "the budget restarted from 0");
  const last = h.events.at(-1);
  assert.equal(last?.action === "restart_scheduled" ? last.attempt : -1, 0);
});

test("SUP-06: a permanent error from the candidate (re-registration required) parks at once", async () => {
  const h = harness(async () => {
    throw new OctetError("reregistration_required", "tools changed");
  });
  h.sv.ended("exit");
  await h.clock.advance(1_000);
  assert.equal(h.calls(), 1);
  assert.equal(h.sv.snapshot.state, "parked");
  assert.equal(h.sv.snapshot.parkedReason, "tools changed");
  assert.equal(isPermanentRestartError(new OctetError("initialize_failed", "x")), false);
});

test("SUP-07: shutdown cancels a scheduled restart and no restart follows", async () => {
  const h = harness(async () => undefined);
  h.sv.ended("exit");
  h.sv.stop();
  await h.clock.advance(60_000);
  assert.equal(h.calls(), 0);
  assert.equal(h.sv.snapshot.state, "stopped");
  h.sv.ended("exit");
  h.sv.ready();
  assert.equal(h.sv.snapshot.state, "stopped", "a stopped supervisor stays stopped");
});

test("SUP-07: shutdown during a restart attempt: its outcome schedules nothing", async () => {
  let fail!: (e: Error) => void;
  const h = harness(() => new Promise<void>((_, reject) => (fail = reject)));
  h.sv.ended("exit");
  await h.clock.advance(1_000);
  assert.equal(h.sv.snapshot.state, "restarting");
  h.sv.stop();
  fail(new OctetError("shutdown", "abandoned"));
  await h.clock.advance(60_000);
  assert.equal(h.calls(), 1);
  assert.equal(h.clock.pending, 0);
});

test(
  "SUP-09: a manual reload preempts a scheduled restart and revives a parked watcher with a " + "fresh budget",
  async () => {
    const h = harness(async () => {
      throw new OctetError("reregistration_required", "tools changed");
    });
    h.sv.ended("exit");
    h.sv.preempt();
    await h.clock.advance(60_000);
    assert.equal(h.calls(), 0, "the scheduled restart was dropped");
    h.sv.park("reload failed");
    assert.equal(h.sv.snapshot.state, "parked");
    h.sv.revived();
    assert.deepEqual(h.sv.snapshot, {
      state: "watching",
      restarts: 0,
      attempts: 0,
      nextRestartAt: null,
      parkedReason: null,
    });
    assert.equal(h.events.at(-1)?.action, "revived");
  },
);

test(
  "SUP-11: the supervisor acts only on reported ends: with a watched, healthy generation it never " +
    "schedules anything",
  async () => {
    const h = harness(async () => undefined);
    await h.clock.advance(10 * 60_000);
    assert.equal(h.clock.timers.length, 0);
    assert.equal(h.calls(), 0);
  },
);
