// The QuickJS sandbox's bytecode budget and watchdog (QJS-16), split from quickjs-bounds.test.ts
// so that neither file runs long. Budgets are small (200 ms + 300 ms grace); nothing asserts how
// long a stop took, only that it happened and how it was reported.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RUNNER, exited, launch, start } from "./quickjs-harness.js";

test(
  "QJS-16: for(;;){} is interrupted at interruptAfterMs and the instance is torn down as 'runaway' with what ran " +
    "and the budget",
  async () => {
    const inst = await launch();
    inst.fire("for (;;) {}");
    const exit = await exited(inst);
    assert.equal(exit.code, "runaway");
    assert.match(exit.reason, /longer than its 200 ms budget \(interruptAfterMs\) while handling a host frame/);
    // try/catch in extension code cannot swallow the interruption.
    const catching = await launch();
    catching.fire("try { for (;;) {} } catch (e) { api.send({ swallowed: String(e) }); } for (;;) {}");
    assert.equal((await exited(catching)).code, "runaway");
    assert.equal(
      catching.frames().some((f) => "swallowed" in f),
      false,
    );
  },
);

test(
  "QJS-16: a runaway timer callback, a runaway entry module and a catastrophic regexp are interrupted " + "too",
  async () => {
    const timer = await launch();
    assert.equal((await timer.run("api.setTimeout(() => { for (;;) {} }, 10); return 'armed'")).value, "armed");
    const exit = await exited(timer);
    assert.equal(exit.code, "runaway");
    assert.match(exit.reason, /while running a timer/);

    const entry = await start({ "index.mjs": `for (;;) {}\n${RUNNER}` }, { loadBudgetMs: 200 });
    assert.match((await exited(entry)).reason, /200 ms budget \(loadBudgetMs\) while evaluating the entry module/);

    const regexp = await launch();
    regexp.fire(`return /(a+)+b/.test("a".repeat(40))`);
    assert.equal((await exited(regexp)).code, "runaway");
  },
);

test(
  "QJS-16: a frame sent with a budget (send(text, budgetMs)) is interrupted at that budget, not interruptAfterMs; " +
    "frames without one and timers keep interruptAfterMs",
  async () => {
    const inst = await launch(undefined, { interruptAfterMs: 5000 });
    assert.throws(
      () => inst.transport.send(JSON.stringify({ id: 0, code: "" }), 0),
      /budgetMs must be a positive number/,
    );
    // Work longer than 150 ms is fine without a frame budget, and in a timer armed by a budgeted frame.
    assert.equal((await inst.run("const t = Date.now(); while (Date.now() - t < 400) {} return 'long'")).value, "long");
    inst.transport.send(
      JSON.stringify({
        id: 100,
        code:
          "api.setTimeout(() => { const t = Date.now(); while (Date.now() - t < 400) {} api.send({ timer: 'done' " +
          "}); }, 0); return 'armed'",
      }),
      150,
    );
    assert.equal((await inst.waitFor((f) => f.id === 100)).value, "armed");
    await inst.waitFor((f) => "timer" in f);
    inst.transport.send(JSON.stringify({ id: 101, code: "for (;;) {}" }), 150);
    const exit = await exited(inst);
    assert.equal(exit.code, "runaway");
    assert.match(
      exit.reason,
      /longer than its 150 ms budget \(the budget the host gave this frame\) while handling a host frame/,
    );

    // The watchdog uses the frame's budget too.
    const builtin = await launch(undefined, { interruptAfterMs: 5000, watchdogGraceMs: 300 });
    builtin.transport.send(
      JSON.stringify({ id: 1, code: "return Array.prototype.indexOf.call({ length: 2 ** 50 }, 1)" }),
      150,
    );
    const stopped = await exited(builtin);
    assert.equal(stopped.code, "watchdog");
    assert.match(stopped.reason, /within its 150 ms budget plus 300 ms grace/);
  },
);

test("QJS-16: a microtask storm is a runaway; a promise that never settles is not an engine error", async () => {
  const storm = await launch();
  storm.fire("function f() { Promise.resolve().then(f); } f();");
  const exit = await exited(storm);
  assert.equal(exit.code, "runaway");
  assert.match(exit.reason, /handling a host frame \(running promise jobs\)/);

  const pending = await launch();
  try {
    pending.fire("return new Promise(() => {})");
    assert.equal((await pending.run("return 'next frame served'")).value, "next frame served");
    assert.equal((await pending.run("return 'and the next'")).value, "and the next");
  } finally {
    await pending.transport.terminate("test done");
  }
});

test(
  "QJS-16: a builtin that never polls the interrupt handler is stopped by the main-thread watchdog ('watchdog'), " +
    "and other instances keep serving",
  async (t) => {
    const other = await launch();
    const inst = await launch();
    try {
      const started = performance.now();
      inst.fire("return Array.prototype.indexOf.call({ length: 2 ** 50 }, 1)");
      const exit = await exited(inst);
      t.diagnostic(`stopped after ${Math.round(performance.now() - started)} ms (budget 200 + grace 300)`);
      assert.equal(exit.code, "watchdog");
      assert.match(exit.reason, /200 ms budget plus 300 ms grace/);
      assert.equal((await other.run("return 'still serving'")).value, "still serving");
    } finally {
      await other.transport.terminate("test done");
    }
  },
);
