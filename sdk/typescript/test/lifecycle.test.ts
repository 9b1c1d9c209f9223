/**
 * Lifecycle handlers through a real child process: called with the notification's params when
 * subscribed and negotiated, best-effort (a throwing, rejecting or never-settling handler neither
 * breaks nor holds up dispatch), silent when not negotiated, refused on API 0.1.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { CONTEXT, WireHost, killAll, resultOf } from "./harness.js";

afterEach(killAll);

const TURN_SETTLED = {
  session_id: "abc123",
  run_id: "extension-run-7",
  turn_id: "extension-turn-7",
  outcome: "completed",
  duration_ms: 942,
  reason: null,
};

async function start(optional: string[]): Promise<WireHost> {
  const host = new WireHost("negotiated", ["0.2", "lifecycle"]);
  resultOf(await host.initialize("0.2", { optional }));
  return host;
}

/** A request round trip: every notification sent before it has been read by the child. */
async function roundTrip(host: WireHost): Promise<void> {
  resultOf(await host.request("tool/call", { name: "count", arguments: {}, context: CONTEXT }));
}

test("LIFE-06/LIFE-07: a subscribed handler is called with the notification's params", async () => {
  const host = await start(["lifecycle_events"]);
  host.notify("turn/settled", TURN_SETTLED);
  await host.waitForStderr("lifecycle turn/settled");
  const line = host.stderr.split("\n").find((l) => l.startsWith("lifecycle turn/settled ")) ?? "";
  assert.deepEqual(JSON.parse(line.slice("lifecycle turn/settled ".length)), TURN_SETTLED);
  // A notification has no reply: nothing was written for it.
  assert.equal(host.frames.length, 1, "only the initialize response");
});

test(
  "LIFE-10: a throwing, rejecting or never-settling handler goes to stderr and never holds " + "up dispatch",
  async () => {
    const host = await start(["lifecycle_events", "request_progress"]);
    host.notify("session/settled", { session_id: "s", outcome: "shutdown", duration_ms: 1, reason: null });
    host.notify("tool/started", { session_id: "s", run_id: "r", turn_id: "t", tool_call_id: "c1", tool_name: "grep" });
    host.notify("turn/started", { session_id: "s", run_id: "r", turn_id: "t" });
    await host.waitForStderr("the tool/started handler failed: Error: tool/started handler exploded");
    // The second handler of the same event still ran after the first one threw.
    await host.waitForStderr("lifecycle tool/started second handler saw grep");
    await host.waitForStderr("the turn/started handler failed: Error: async turn/started handler rejected");
    // Requests are served as before, while the session/settled handler never settles.
    await roundTrip(host);
    host.notify("turn/settled", TURN_SETTLED);
    await host.waitForStderr("lifecycle turn/settled");
    assert.deepEqual(host.violations, []);
  },
);

test("LIFE-04: without lifecycle_events negotiated no handler runs", async () => {
  const host = await start(["request_progress"]);
  host.notify("turn/settled", TURN_SETTLED);
  host.notify("tool/started", { session_id: "s", run_id: "r", turn_id: "t", tool_call_id: "c1", tool_name: "grep" });
  await roundTrip(host);
  assert.doesNotMatch(host.stderr, /lifecycle turn\/settled|tool\/started handler/);
});

test(
  "LIFE-04: an event the extension did not subscribe to runs no handler, and its params are " + "not required",
  async () => {
    const host = await start(["lifecycle_events"]);
    host.notify("tool/settled", {
      session_id: "s",
      run_id: "r",
      turn_id: "t",
      tool_call_id: "c",
      tool_name: "grep",
      outcome: "failed",
      duration_ms: 3,
      reason: "boom",
    });
    host.notify("session/started", { session_id: "s" });
    // A subscribed event whose params are not an object is ignored with a note, not delivered.
    host.notify("turn/settled", ["not", "an", "object"]);
    await host.waitForStderr("ignored turn/settled without an object of params");
    await roundTrip(host);
    assert.doesNotMatch(host.stderr, /lifecycle turn\/settled|handler failed/);
  },
);

test("LIFE-04: lifecycle handlers are refused at registration on API 0.1", async () => {
  const host = new WireHost("negotiated", ["0.1", "lifecycle"]);
  await host.waitForStderr(
    "lifecycle subscription refused: lifecycle events need API 0.2 or later (this extension speaks API 0.1)",
  );
});
