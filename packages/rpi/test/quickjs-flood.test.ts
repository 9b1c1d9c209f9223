// Issue 13a: what one QuickJS instance can put in flight towards the host. The engine with the
// stand-in prelude: counts and bounds only, never timings.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MAX_BATCHES_IN_FLIGHT, MAX_BATCH_MESSAGES } from "../src/quickjs/channel.js";
import { launch } from "./quickjs-harness.js";

test(
  "issue 13a: a synchronous run's frames come in bounded batches, and the worker waits for the host before " +
    "sending more",
  async () => {
    const inst = await launch(undefined, { interruptAfterMs: 20_000 });
    try {
      await inst.run("return 1");
      const counted = (): number => inst.frames().filter((f) => "f" in f).length;
      let firstBurst = -1;
      let armed = false;
      inst.transport.onEvent((e) => {
        // The frames delivered before the host's event loop turns once: what was queued for it.
        if (e.kind !== "frame" || armed) return;
        armed = true;
        setImmediate(() => (firstBurst = counted()));
      });
      inst.fire(`for (let i = 0; i < 5000; i++) api.send({ f: i }); return "flooded";`);
      await Promise.resolve(); // the frame is posted to the worker
      // The host's thread is busy: it handles nothing while the worker runs the flood.
      const until = Date.now() + 1500;
      while (Date.now() < until) {
        // busy
      }
      await inst.waitFor((f) => f.value === "flooded", 30_000);
      assert.ok(firstBurst > 0, "some frames were queued while the host was busy");
      assert.ok(
        firstBurst <= MAX_BATCHES_IN_FLIGHT * MAX_BATCH_MESSAGES,
        `at most ${MAX_BATCHES_IN_FLIGHT} batches of ${MAX_BATCH_MESSAGES} frames were in flight; ${firstBurst} were`,
      );
      assert.equal(counted(), 5000, "backpressure delays frames, it drops none");
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test(
  "issue 13a: frames past maxOutboundFramesPerSecond are refused inside the VM with a RangeError naming the " +
    "limit, and the host hears of it once",
  async () => {
    const inst = await launch(undefined, { maxOutboundFramesPerSecond: 100, interruptAfterMs: 5000 });
    try {
      const r = await inst.run(
        `return (async () => {
      let sent = 0, error = null, range = false, refused = 0;
      for (let i = 0; i < 1000; i++) {
        try { api.send({ n: i }); sent++; } catch (e) { refused++; if (error === null) { error = e.message; range = ` +
          `e instanceof RangeError; } }
      }
      // The answer itself needs the next window.
      await new Promise((resolve) => api.setTimeout(resolve, 1100));
      return { sent, refused, error, range };
    })();`,
      );
      const v = r.value as { sent: number; refused: number; error: string; range: boolean };
      assert.ok(v.sent > 0 && v.sent <= 100, `at most 100 frames in the window; ${v.sent} were sent`);
      assert.equal(v.sent + v.refused, 1000);
      assert.equal(v.range, true);
      assert.match(
        v.error,
        /the outbound rate limit of 100 frames per second \(maxOutboundFramesPerSecond\); this frame was not sent/,
      );
      assert.equal(inst.frames().filter((f) => "n" in f).length, v.sent, "what was refused never reached the host");
      const told = inst.events.filter((e) => e.kind === "diagnostic");
      assert.equal(told.length, 1, "one diagnostic per window, not one per refused frame");
      assert.match(
        told[0]!.kind === "diagnostic" ? told[0]!.message : "",
        /refusing the extension's frames for the rest of this second: .*100 frames per second/,
      );
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test("issue 13 review: time parked for a slow host's credit is not engine time: a throttled run goes on", async () => {
  // A 1 s budget with 300 ms of watchdog grace (a loaded machine may slow the engine's own work
  // several times over); the host takes 60 ms per frame, so the 60 frames of 60,000 characters
  // (three to a batch) keep the worker parked for over 3 s.
  const inst = await launch(undefined, { interruptAfterMs: 1000, watchdogGraceMs: 300 });
  try {
    let slowFrames = 0;
    inst.transport.onEvent((e) => {
      if (e.kind !== "frame" || !e.text.startsWith('{"u":')) return;
      slowFrames++;
      const until = Date.now() + 60;
      while (Date.now() < until) {
        // The host is busy with each frame.
      }
    });
    const r = await inst.run(
      `const s = "x".repeat(60000);
      for (let i = 0; i < 60; i++) api.sendText(JSON.stringify({ u: i, s }));
      return "all sent";`,
      60_000,
    );
    assert.equal(r.value, "all sent");
    assert.equal(slowFrames, 60);
    assert.equal(inst.frames().filter((f) => "u" in f).length, 60, "every frame arrived");
    // The budget still holds for work inside the engine.
    inst.fire("for (;;) {}");
    const exit = await inst.transport.exited;
    assert.equal(exit.code, "runaway");
  } finally {
    await inst.transport.terminate("test done");
  }
});
