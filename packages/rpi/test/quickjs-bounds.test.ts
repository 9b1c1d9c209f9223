// The QuickJS sandbox's bounds: memory (QJS-15), stack, bytecode budget and watchdog (QJS-16)
// and outbound frame size (QJS-18). Budgets are small (200 ms + 300 ms grace); nothing asserts
// how long a stop took, only that it happened and how it was reported.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RUNNER, exited, launch } from "./quickjs-harness.js";

const MiB = 1024 * 1024;

test("QJS-15: allocating past 64 MiB in many small pieces fails inside the runtime; the wasm memory stays within 64 MiB; the instance ends as 'memory' and the host and other instances are unaffected", async (t) => {
  const other = await launch();
  const inst = await launch(undefined, { interruptAfterMs: 30_000 });
  try {
    assert.equal(inst.transport.stats()?.wasmMemoryBytes, 64 * MiB);
    const started = performance.now();
    inst.fire(`
      const keep = [];
      try {
        for (;;) keep.push("piece " + keep.length + " ".repeat(48));
      } catch (e) {
        const pieces = keep.length;
        keep.length = 0;
        api.send({ caught: String(e), pieces });
      }
      return "after the catch";`);
    const exit = await exited(inst);
    t.diagnostic(`torn down after ${Math.round(performance.now() - started)} ms; wasm memory ${inst.transport.stats()?.wasmMemoryBytes} bytes`);
    const caught = inst.frames().find((f) => "caught" in f) as { caught: string; pieces: number } | undefined;
    assert.ok(caught, `the extension saw the failed allocation; events: ${JSON.stringify(inst.events).slice(0, 500)}`);
    // At the exact ceiling QuickJS may not even have room for the InternalError object: it then
    // throws null. Either way the allocation failed inside the runtime and was catchable.
    assert.match(caught.caught, /^(InternalError: out of memory|null)$/);
    assert.ok(caught.pieces > 100_000, `many small pieces were allocated first (${caught.pieces})`);
    assert.equal(exit.code, "memory");
    assert.match(exit.reason, /64 MiB limit while handling a host frame/);
    assert.ok((inst.transport.stats()?.wasmMemoryBytes ?? Infinity) <= 64 * MiB);
    // The host process and the other instance carry on.
    assert.equal((await other.run("return 'still serving'")).value, "still serving");
    const fresh = await launch();
    assert.equal((await fresh.run("return 6 * 7")).value, 42);
    await fresh.transport.terminate("test done");
  } finally {
    await inst.transport.terminate("test done");
    await other.transport.terminate("test done");
  }
});

test("QJS-15: one allocation larger than the limit is refused by QuickJS before the heap grows; the error is catchable and the instance keeps serving", async () => {
  const inst = await launch();
  try {
    const r = await inst.run(`try { return "x".repeat(2 ** 27).length; } catch (e) { return String(e); }`);
    assert.match(String(r.value), /out of memory|invalid string length/);
    const buffer = await inst.run(`try { return new ArrayBuffer(200 * 1024 * 1024).byteLength; } catch (e) { return e.name; }`);
    assert.match(String(buffer.value), /RangeError|InternalError/);
    assert.equal((await inst.run("return 'alive'")).value, "alive");
  } finally {
    await inst.transport.terminate("test done");
  }
});

test("QJS-15: the stack is bounded (at most 256 KiB): deep recursion throws a catchable error inside the VM and the instance keeps working", async () => {
  const inst = await launch();
  try {
    const r = await inst.run(`
      let depth = 0;
      function down() { depth++; return down() + 1; }
      try { down(); } catch (e) { return [e.name, e.message, depth]; }`);
    const [name, message, depth] = r.value as [string, string, number];
    assert.match(`${name}: ${message}`, /stack overflow|Maximum call stack/);
    assert.ok(depth > 100, `recursion reached ${depth}`);
    assert.equal((await inst.run("return [1, 2, 3].map((x) => x * 2).join()")).value, "2,4,6");
  } finally {
    await inst.transport.terminate("test done");
  }
});

test("QJS-16: for(;;){} is interrupted at interruptAfterMs and the instance is torn down as 'runaway' with what ran and the budget", async () => {
  const inst = await launch();
  inst.fire("for (;;) {}");
  const exit = await exited(inst);
  assert.equal(exit.code, "runaway");
  assert.match(exit.reason, /longer than its 200 ms budget \(interruptAfterMs\) while handling a host frame/);
  // try/catch in extension code cannot swallow the interruption.
  const catching = await launch();
  catching.fire("try { for (;;) {} } catch (e) { api.send({ swallowed: String(e) }); } for (;;) {}");
  assert.equal((await exited(catching)).code, "runaway");
  assert.equal(catching.frames().some((f) => "swallowed" in f), false);
});

test("QJS-16: a runaway timer callback, a runaway entry module and a catastrophic regexp are interrupted too", async () => {
  const timer = await launch();
  assert.equal((await timer.run("api.setTimeout(() => { for (;;) {} }, 10); return 'armed'")).value, "armed");
  const exit = await exited(timer);
  assert.equal(exit.code, "runaway");
  assert.match(exit.reason, /while running a timer/);

  await assert.rejects(launch({ "index.mjs": `for (;;) {}\n${RUNNER}` }), /200 ms budget \(interruptAfterMs\) while evaluating the entry module/);

  const regexp = await launch();
  regexp.fire(`return /(a+)+b/.test("a".repeat(40))`);
  assert.equal((await exited(regexp)).code, "runaway");
});

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

test("QJS-16: a builtin that never polls the interrupt handler is stopped by the main-thread watchdog ('watchdog'), and other instances keep serving", async (t) => {
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
});

test("QJS-18: a frame of exactly maxFrameBytes bytes is sent; one byte more throws a RangeError inside the VM naming the size and the limit", async () => {
  const inst = await launch();
  try {
    // JSON.stringify adds the two quotes.
    const atLimit = await inst.run(`api.sendText(JSON.stringify("x".repeat(${1048576 - 2}))); return "sent";`);
    assert.equal(atLimit.value, "sent");
    const frame = inst.events.find((e) => e.kind === "frame" && e.text.length === 1048576);
    assert.ok(frame, "the 1 MiB frame reached the host");
    const over = await inst.run(`try { api.sendText(JSON.stringify("x".repeat(${1048576 - 1}))); return "sent"; } catch (e) { return [e instanceof RangeError, e.message]; }`);
    const [isRange, message] = over.value as [boolean, string];
    assert.equal(isRange, true);
    assert.match(message, /1048577 bytes of UTF-8, over the 1048576-byte limit \(maxFrameBytes\)/);
    assert.equal(inst.events.filter((e) => e.kind === "frame" && e.text.length > 1048576).length, 0);
    const long = await inst.run(`try { api.sendText("y".repeat(3 * 1048576)); } catch (e) { return e.message; }`);
    assert.match(String(long.value), /at least 3145728 bytes/);
  } finally {
    await inst.transport.terminate("test done");
  }

  // Bytes, not characters: "é" is two bytes of UTF-8.
  const small = await launch(undefined, { maxFrameBytes: 1001 });
  try {
    assert.equal((await small.run(`api.sendText(JSON.stringify("é".repeat(499) + "x")); return "sent";`)).value, "sent");
    const over = await small.run(`try { api.sendText(JSON.stringify("é".repeat(499) + "xy")); } catch (e) { return [e instanceof RangeError, e.message]; }`);
    assert.deepEqual(over.value, [true, "__octet_host.send: the frame is 1002 bytes of UTF-8, over the 1001-byte limit (maxFrameBytes); it was not sent"]);
    const type = await small.run(`try { api.sendText({}); } catch (e) { return [e instanceof TypeError, e.message]; }`);
    assert.deepEqual(type.value, [true, "__octet_host.send: a frame must be a string (got object)"]);
  } finally {
    await small.transport.terminate("test done");
  }
});
