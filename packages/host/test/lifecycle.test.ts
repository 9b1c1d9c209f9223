import { test } from "node:test";
import assert from "node:assert/strict";
import { LifecycleHub, type LifecycleMethod, type LifecycleTarget } from "../src/generation/lifecycle.js";

function target(subscribed: LifecycleMethod[]): LifecycleTarget & { got: [string, Record<string, unknown>][] } {
  const got: [string, Record<string, unknown>][] = [];
  return { got, subscribes: (m) => subscribed.includes(m), notify: (m, p) => void got.push([m, p]) };
}

const turn = { session_id: "s", run_id: "r1", turn_id: "t1" };

test("LIFE-04: only subscribed methods are delivered", () => {
  const hub = new LifecycleHub();
  const a = target(["turn/started", "turn/settled"]);
  const b = target(["session/started"]);
  hub.emit("turn/started", turn, [a, b]);
  assert.deepEqual(a.got, [["turn/started", turn]]);
  assert.deepEqual(b.got, []);
});

test("LIFE-07, LIFE-08: a malformed settled event (unknown outcome) is refused before anything is sent", () => {
  const hub = new LifecycleHub();
  const a = target(["turn/settled"]);
  assert.throws(
    () => hub.emit("turn/settled", { ...turn, outcome: "exploded", duration_ms: 3, reason: null }, [a]),
    /invalid turn\/settled event/,
  );
  assert.deepEqual(a.got, []);
});

test("LIFE-10: a target that throws does not stop delivery to the others", () => {
  const hub = new LifecycleHub();
  const bad: LifecycleTarget = {
    subscribes: () => true,
    notify: () => {
      throw new Error("pipe closed");
    },
  };
  const good = target(["turn/started"]);
  hub.emit("turn/started", turn, [bad, good]);
  assert.equal(good.got.length, 1);
});

test(
  "LIFE-11, LIFE-12: open scopes are settled for a stopping generation, innermost first, with " + "outcome shutdown",
  () => {
    const hub = new LifecycleHub();
    const a = target([
      "session/settled",
      "turn/settled",
      "tool/settled",
      "session/started",
      "turn/started",
      "tool/started",
    ]);
    hub.emit("session/started", { session_id: "s" }, []);
    hub.emit("turn/started", turn, []);
    hub.emit("tool/started", { ...turn, tool_call_id: "c1", tool_name: "echo" }, []);
    hub.emit(
      "tool/settled",
      { ...turn, tool_call_id: "c1", tool_name: "echo", outcome: "completed", duration_ms: 1, reason: null },
      [],
    );
    hub.settleOpen(a, "reload");
    assert.deepEqual(
      a.got.map(([m, p]) => [m, p["outcome"], p["reason"]]),
      [
        ["turn/settled", "shutdown", "reload"],
        ["session/settled", "shutdown", "reload"],
      ],
    );
    assert.equal(a.got[0]![1]["turn_id"], "t1");
  },
);

test(
  "LIFE-10: session and turn events not written within 250 ms are withdrawn and reported; tool events wait " +
    "in the writer queue",
  () => {
    const timers: { fn: () => void; ms: number }[] = [];
    const hub = new LifecycleHub({ setTimer: (fn, ms) => void timers.push({ fn, ms }) });
    const dropped: [string, number][] = [];
    // A target whose writer is stuck: nothing it was given has started to be written.
    const stuck: LifecycleTarget = {
      subscribes: () => true,
      notify: () => ({ withdraw: () => true }),
      lifecycleDropped: (m, ms) => void dropped.push([m, ms]),
    };
    // A target whose frames were already written: withdraw() is refused.
    const flowing: LifecycleTarget = {
      subscribes: () => true,
      notify: () => ({ withdraw: () => false }),
      lifecycleDropped: (m) => void dropped.push([`flowing ${m}`, 0]),
    };
    hub.emit("turn/started", turn, [stuck, flowing]);
    hub.emit("tool/started", { ...turn, tool_call_id: "c1", tool_name: "x" }, [stuck, flowing]);
    assert.deepEqual(
      timers.map((t) => t.ms),
      [250, 250],
      "one deadline per turn event and target; none for tool events",
    );
    for (const t of timers) t.fn();
    assert.deepEqual(dropped, [["turn/started", 250]], "only the undelivered one is dropped and reported");
  },
);
