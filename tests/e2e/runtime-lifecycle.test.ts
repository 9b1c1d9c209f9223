/**
 * Lifecycle notifications against real processes: delivered only to generations that negotiated
 * lifecycle_events and subscribed to the method, in the validated shape, and every scope still
 * open when a generation stops (shutdown, reload) is settled for it first.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { LifecycleMethod } from "@octet/host";
import { REQUIRED, withRuntime, type Frame } from "./runtime-helpers.js";

const LIFECYCLE = [...REQUIRED, "lifecycle_events"];
const ALL_SIX = ["session/started", "session/settled", "turn/started", "turn/settled", "tool/started", "tool/settled"];
const session = { session_id: "s-1" };
const turn = { ...session, run_id: "run-1", turn_id: "turn-1" };
const tool = { ...turn, tool_call_id: "call-1", tool_name: "grep" };

function lifecycleOf(frames: Frame[], generation?: number): { method: string; params: Record<string, unknown> }[] {
  return frames
    .filter(
      (f) => f.dir === "in" && ALL_SIX.includes(f.msg.method ?? "") && (generation === undefined || f.g === generation),
    )
    .map((f) => ({ method: f.msg.method!, params: f.msg.params }));
}

test(
  "LIFE-04, LIFE-05, INIT-24: only generations that negotiated lifecycle_events get the methods they subscribed to; " +
    "an omitted list means all six",
  async () => {
    const specs = [
      { name: "turns", tools: ["echo"], config: { features: LIFECYCLE, lifecycle: ["turn/started", "turn/settled"] } },
      { name: "all", tools: ["frames"], config: { features: LIFECYCLE } },
      { name: "none", tools: ["hold"] },
    ];
    await withRuntime(specs, {}, async ({ host, frames }) => {
      host.emitLifecycle("session/started", session);
      host.emitLifecycle("turn/started", turn);
      host.emitLifecycle("tool/started", tool);
      host.emitLifecycle("tool/settled", { ...tool, outcome: "completed", duration_ms: 5, reason: null });
      host.emitLifecycle("turn/settled", { ...turn, outcome: "completed", duration_ms: 9, reason: null });
      host.emitLifecycle("session/settled", { ...session, outcome: "completed", duration_ms: 12, reason: null });
      // One writer per child: a request written after the events arrives after them.
      await Promise.all([host.callTool("echo", {}), host.callTool("frames", {}), host.callTool("hold", { ms: 1 })]);
      assert.deepEqual(
        lifecycleOf(frames("turns")).map((e) => e.method),
        ["turn/started", "turn/settled"],
      );
      assert.deepEqual(
        lifecycleOf(frames("all")).map((e) => e.method),
        ["session/started", "turn/started", "tool/started", "tool/settled", "turn/settled", "session/settled"],
      );
      assert.deepEqual(lifecycleOf(frames("none")), []);
      assert.deepEqual(host.status().find((s) => s.name === "all")!.features, LIFECYCLE);
    });
  },
);

test(
  "LIFE-06, LIFE-07, LIFE-09: start events carry their ids, settled ones outcome, duration_ms and reason (null when " +
    "absent); nothing else is forwarded",
  async () => {
    await withRuntime(
      [{ name: "obs", tools: ["echo"], config: { features: LIFECYCLE } }],
      {},
      async ({ host, frames }) => {
        host.emitLifecycle("tool/started", { ...tool, embedder_private: "not for extensions" });
        host.emitLifecycle("tool/settled", { ...tool, outcome: "failed", duration_ms: 7 });
        host.emitLifecycle("turn/settled", {
          ...turn,
          outcome: "cancelled",
          duration_ms: 0,
          reason: "r".repeat(4_096),
        });
        await host.callTool("echo", {});
        assert.deepEqual(lifecycleOf(frames("obs")), [
          { method: "tool/started", params: tool },
          { method: "tool/settled", params: { ...tool, outcome: "failed", duration_ms: 7, reason: null } },
          {
            method: "turn/settled",
            params: { ...turn, outcome: "cancelled", duration_ms: 0, reason: "r".repeat(4_096) },
          },
        ]);
      },
    );
  },
);

test(
  "LIFE-07, LIFE-08: a malformed observation (unknown outcome, reason over 4 KiB, missing ids) is refused before " +
    "anything is sent",
  async () => {
    await withRuntime(
      [{ name: "obs", tools: ["echo"], config: { features: LIFECYCLE } }],
      {},
      async ({ host, frames }) => {
        const bad: [LifecycleMethod, Record<string, unknown>, RegExp][] = [
          ["turn/settled", { ...turn, outcome: "exploded", duration_ms: 1 }, /outcome/],
          ["turn/settled", { ...turn, outcome: "failed", duration_ms: 1, reason: "r".repeat(4_097) }, /4096/],
          ["tool/started", { ...turn }, /tool_call_id/],
          ["turn/settled", { ...turn, outcome: "failed", duration_ms: -1 }, /duration_ms/],
        ];
        for (const [method, params, pattern] of bad) assert.throws(() => host.emitLifecycle(method, params), pattern);
        assert.throws(
          () => host.emitLifecycle("turn/paused" as LifecycleMethod, turn),
          /not one of the six lifecycle events/,
        );
        for (const outcome of [
          "completed",
          "failed",
          "cancelled",
          "interrupted",
          "frontend_disconnected",
          "shutdown",
          "limit_reached",
        ]) {
          host.emitLifecycle("turn/settled", { ...turn, outcome, duration_ms: 1 });
        }
        await host.callTool("echo", {});
        assert.equal(lifecycleOf(frames("obs")).length, 7, "only the seven valid outcomes were sent");
      },
    );
  },
);

test(
  "LIFE-11, LIFE-12: on shutdown every open scope is settled with outcome shutdown, innermost first, before the " +
    "shutdown request; settled ones are not repeated",
  async () => {
    const specs = [
      { name: "obs", tools: ["echo"], config: { features: LIFECYCLE } },
      { name: "turns", tools: ["frames"], config: { features: LIFECYCLE, lifecycle: ["turn/settled"] } },
    ];
    let wire: Record<string, Frame[]> = {};
    await withRuntime(specs, {}, async ({ host, frames }) => {
      host.emitLifecycle("session/started", session);
      host.emitLifecycle("turn/started", { ...turn, turn_id: "done" });
      host.emitLifecycle("turn/settled", {
        ...turn,
        turn_id: "done",
        outcome: "completed",
        duration_ms: 3,
        reason: null,
      });
      host.emitLifecycle("turn/started", turn);
      host.emitLifecycle("tool/started", tool);
      await host.shutdown();
      wire = { obs: frames("obs"), turns: frames("turns") };
    });
    const events = lifecycleOf(wire["obs"]!);
    const closing = events.slice(5);
    assert.deepEqual(
      closing.map((e) => [e.method, e.params["outcome"], e.params["reason"]]),
      [
        ["tool/settled", "shutdown", "shutdown"],
        ["turn/settled", "shutdown", "shutdown"],
        ["session/settled", "shutdown", "shutdown"],
      ],
    );
    assert.deepEqual(closing[0]!.params, {
      ...tool,
      outcome: "shutdown",
      duration_ms: closing[0]!.params["duration_ms"],
      reason: "shutdown",
    });
    assert.ok(
      Number.isInteger(closing[0]!.params["duration_ms"]) && (closing[0]!.params["duration_ms"] as number) >= 0,
    );
    assert.equal(
      events.filter((e) => e.method === "turn/settled" && e.params["turn_id"] === "done").length,
      1,
      "a settled turn is settled once",
    );
    const methods = wire["obs"]!.filter((f) => f.dir === "in").map((f) => f.msg.method);
    assert.ok(
      methods.lastIndexOf("session/settled") < methods.indexOf("shutdown"),
      "settled before the shutdown request",
    );
    assert.deepEqual(
      lifecycleOf(wire["turns"]!).map((e) => [e.method, e.params["turn_id"], e.params["outcome"]]),
      [
        ["turn/settled", "done", "completed"],
        ["turn/settled", "turn-1", "shutdown"],
      ],
      "only the subscribed method, for the open turn",
    );
  },
);

test(
  "LIFE-12: a reload settles the open scopes for the old generation before it stops; the new generation gets later " +
    "events",
  async () => {
    await withRuntime(
      [{ name: "obs", tools: ["echo"], config: { features: LIFECYCLE } }],
      {},
      async ({ host, frames }) => {
        host.emitLifecycle("turn/started", turn);
        await host.reload("obs");
        host.emitLifecycle("turn/settled", { ...turn, outcome: "completed", duration_ms: 4, reason: null });
        await host.callTool("echo", {});
        assert.deepEqual(
          lifecycleOf(frames("obs"), 1).map((e) => [e.method, e.params["outcome"], e.params["reason"]]),
          [
            ["turn/started", undefined, undefined],
            ["turn/settled", "shutdown", "reload"],
          ],
        );
        assert.deepEqual(
          lifecycleOf(frames("obs"), 2).map((e) => [e.method, e.params["outcome"]]),
          [["turn/settled", "completed"]],
        );
      },
    );
  },
);
