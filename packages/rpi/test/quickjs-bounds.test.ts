// The QuickJS sandbox's bounds: memory (QJS-15), stack and outbound frames (QJS-18); the
// bytecode budget and the watchdog (QJS-16) are in quickjs-interrupt.test.ts. Budgets are small
// (200 ms + 300 ms grace); nothing asserts how long a stop took, only that it happened and how it
// was reported.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { launchQuickJs, type RpiTransport, type RpiTransportEvent } from "../src/index.js";
import { RUNNER, STAND_IN_PRELUDE, connectPi, exited, launch, makePackage, settle, start } from "./quickjs-harness.js";

const MiB = 1024 * 1024;

test(
  "QJS-15: allocating past 64 MiB in many small pieces fails inside the runtime (the extension catches it); the " +
    "wasm memory is exactly 64 MiB and refused to grow; the instance ends as 'memory' and the host and other " +
    "instances are unaffected",
  async (t) => {
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
      t.diagnostic(
        `torn down after ${Math.round(performance.now() - started)} ms; wasm memory ` +
          `${inst.transport.stats()?.wasmMemoryBytes} bytes`,
      );
      const caught = inst.frames().find((f) => "caught" in f) as { caught: string; pieces: number } | undefined;
      assert.ok(
        caught,
        `the extension saw the failed allocation; events: ${JSON.stringify(inst.events).slice(0, 500)}`,
      );
      // At the exact ceiling QuickJS may not even have room for the InternalError object: it then
      // throws null. Either way the allocation failed inside the runtime and was catchable.
      assert.match(caught.caught, /^(InternalError: out of memory|null)$/);
      assert.ok(caught.pieces > 100_000, `many small pieces were allocated first (${caught.pieces})`);
      assert.equal(exit.code, "memory");
      assert.match(exit.reason, /64 MiB limit while handling a host frame/);
      // The engine's grow wrapper saw the heap ask for more and the Memory refuse it: a Memory that
      // could grow (a larger maximum) would have grown instead, and the bound would not be 64 MiB.
      assert.match(exit.reason, /the wasm memory \(1024 pages, its maximum\) refused to grow by \d+ pages/);
      // Read from the Memory's buffer after the last entry: exactly the limit, not one page more.
      assert.equal(inst.transport.stats()?.wasmMemoryBytes, 64 * MiB);
      // The host process and the other instance carry on.
      assert.equal((await other.run("return 'still serving'")).value, "still serving");
      const fresh = await launch();
      assert.equal((await fresh.run("return 6 * 7")).value, 42);
      await fresh.transport.terminate("test done");
    } finally {
      await inst.transport.terminate("test done");
      await other.transport.terminate("test done");
    }
  },
);

test(
  "QJS-15: one allocation larger than the limit is refused by QuickJS before the heap grows; the error is " +
    "catchable and the instance keeps serving",
  async () => {
    const inst = await launch();
    try {
      const r = await inst.run(`try { return "x".repeat(2 ** 27).length; } catch (e) { return String(e); }`);
      assert.match(String(r.value), /out of memory|invalid string length/);
      const buffer = await inst.run(
        `try { return new ArrayBuffer(200 * 1024 * 1024).byteLength; } catch (e) { return e.name; }`,
      );
      assert.match(String(buffer.value), /RangeError|InternalError/);
      assert.equal((await inst.run("return 'alive'")).value, "alive");
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test(
  "QJS-15: the stack is bounded (at most 256 KiB): deep recursion throws a catchable error inside the VM and the " +
    "instance keeps working",
  async () => {
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
  },
);

test(
  "QJS-18: a frame of exactly maxFrameBytes bytes is sent; one byte more throws a RangeError inside the VM naming " +
    "the size and the limit",
  async () => {
    const inst = await launch();
    try {
      // JSON.stringify adds the two quotes.
      const atLimit = await inst.run(`api.sendText(JSON.stringify("x".repeat(${1048576 - 2}))); return "sent";`);
      assert.equal(atLimit.value, "sent");
      const frame = inst.events.find((e) => e.kind === "frame" && e.text.length === 1048576);
      assert.ok(frame, "the 1 MiB frame reached the host");
      const over = await inst.run(
        `try { api.sendText(JSON.stringify("x".repeat(${1048576 - 1}))); return "sent"; } catch (e) { return [e ` +
          `instanceof RangeError, e.message]; }`,
      );
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
      assert.equal(
        (await small.run(`api.sendText(JSON.stringify("é".repeat(499) + "x")); return "sent";`)).value,
        "sent",
      );
      const over = await small.run(
        `try { api.sendText(JSON.stringify("é".repeat(499) + "xy")); } catch (e) { return [e instanceof RangeError, ` +
          `e.message]; }`,
      );
      assert.deepEqual(over.value, [
        true,
        "__octet_host.send: the frame is 1002 bytes of UTF-8, over the 1001-byte limit (maxFrameBytes); it was not " +
          "sent",
      ]);
      const type = await small.run(
        `try { api.sendText({}); } catch (e) { return [e instanceof TypeError, e.message]; }`,
      );
      assert.deepEqual(type.value, [true, "__octet_host.send: a frame must be a string (got object)"]);
    } finally {
      await small.transport.terminate("test done");
    }
  },
);

/** Launches RUNNER without attaching a listener, so that the transport buffers what the instance sends. */
async function unread(): Promise<{ transport: RpiTransport; buffered: () => number }> {
  const dir = makePackage({ "index.mjs": RUNNER });
  const transport = await launchQuickJs({
    entry: join(dir, "index.mjs"),
    packageDir: dir,
    prelude: STAND_IN_PRELUDE,
    env: {},
    interruptAfterMs: 5000,
    watchdogGraceMs: 300,
  });
  return { transport, buffered: () => (transport as unknown as { bufferedEvents: number }).bufferedEvents };
}

/** Waits until `n` events are buffered (the instance finished sending), then a little longer. */
async function bufferedReach(u: { buffered: () => number }, n: number): Promise<void> {
  assert.equal(await settle(u.buffered, n, 10_000), n);
  await new Promise((r) => setTimeout(r, 200));
}

test(
  "QJS-15, QJS-18: events buffered before a listener is attached are bounded: 1024 events are kept and delivered, " +
    "one more ends the instance as 'fatal' naming the limit",
  async () => {
    // {factory} + 1022 frames + the answer = 1024 events.
    const at = await unread();
    try {
      at.transport.send(JSON.stringify({ id: 1, code: "for (let i = 0; i < 1022; i++) api.send({ n: i });" }));
      await bufferedReach(at, 1024);
      const got: RpiTransportEvent[] = [];
      at.transport.onEvent((e) => got.push(e));
      assert.equal(got.length, 1024);
      assert.equal(got[1023]?.kind === "frame" && got[1023].text, JSON.stringify({ id: 1, value: null }));
      at.transport.send(JSON.stringify({ id: 2, code: "return 'still serving'" }));
      await settle(() => got.length, 1025);
      assert.equal(got[1024]?.kind === "frame" && got[1024].text, JSON.stringify({ id: 2, value: "still serving" }));
    } finally {
      await at.transport.terminate("test done");
    }
    const past = await unread();
    past.transport.send(JSON.stringify({ id: 1, code: "for (let i = 0; i < 1023; i++) api.send({ n: i });" }));
    const exit = await Promise.race([
      past.transport.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no exit")), 10_000)),
    ]);
    assert.equal(exit.code, "fatal");
    assert.match(
      exit.reason,
      new RegExp(
        /^1025 events of \d+ bytes were buffered with no listener attached, past the limit of 1024 events or /.source +
          /8388608 bytes \(8 MiB\)/.source,
      ),
    );
  },
);

test(
  "QJS-15, QJS-18: bytes buffered before a listener is attached are bounded: exactly 8 MiB is kept and delivered, " +
    "one byte more ends the instance as 'fatal'",
  async () => {
    // {"factory":"function"} (22 bytes) + 8 frames + {"id":1,"value":null} (21 bytes) = 8 MiB exactly.
    const frames = (
      extra: number,
    ): string => `for (let i = 0; i < 7; i++) api.sendText(JSON.stringify("x".repeat(${MiB - 2})));
    api.sendText(JSON.stringify("y".repeat(${MiB - 2 - 43 + extra})));`;
    const at = await unread();
    try {
      at.transport.send(JSON.stringify({ id: 1, code: frames(0) }));
      await bufferedReach(at, 10);
      let bytes = 0;
      at.transport.onEvent((e) => {
        bytes += e.kind === "frame" ? Buffer.byteLength(e.text) : 0;
      });
      assert.equal(bytes, 8 * MiB);
    } finally {
      await at.transport.terminate("test done");
    }
    const past = await unread();
    past.transport.send(JSON.stringify({ id: 1, code: frames(1) }));
    const exit = await Promise.race([
      past.transport.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no exit")), 10_000)),
    ]);
    assert.equal(exit.code, "fatal");
    assert.match(exit.reason, /^10 events of 8388609 bytes were buffered with no listener attached, past the limit/);
  },
);

test(
  "QJS-18: outbound bytes are bounded per second (maxOutboundBytesPerSecond): frames up to the limit are sent, " +
    "the next throws a RangeError naming the rate and the limit, and the next second sends again",
  async () => {
    const inst = await launch(undefined, { maxOutboundBytesPerSecond: 100_000, interruptAfterMs: 2000 });
    try {
      // Let the window of the load's {factory} frame pass, so the frames below start a fresh one.
      await new Promise((r) => setTimeout(r, 1100));
      inst.fire(`
      let sent = 0;
      for (let i = 0; i < 100; i++) { api.sendText(JSON.stringify("x".repeat(998))); sent += 1000; }
      let refused;
      try { api.sendText('""'); } catch (e) { refused = [e instanceof RangeError, e.message]; }
      api.setTimeout(() => api.send({ sent, refused }), 1100);`);
      const report = (await inst.waitFor((f) => "sent" in f, 10_000)) as unknown as {
        sent: number;
        refused: [boolean, string];
      };
      assert.equal(report.sent, 100_000);
      assert.deepEqual(report.refused, [
        true,
        "__octet_host.send: the extension sent 100000 bytes of frames within the last second; this 2-byte frame " +
          "would pass the outbound rate limit of 100000 bytes per second (maxOutboundBytesPerSecond); it was not sent",
      ]);
      assert.equal(inst.events.filter((e) => e.kind === "frame" && e.text.length === 1000).length, 100);
      assert.equal((await inst.run("return 'the next second'")).value, "the next second");
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test(
  "QJS-18: an extension that floods updates is stopped by the outbound rate: the pi prelude answers the " +
    "invocation with an error naming the rate and the limit, and the instance keeps serving",
  async () => {
    const { connection } = await connectPi(
      `export default function (pi) {
    pi.registerTool({ name: "flood", description: "d", async execute(_id, _p, _signal, onUpdate) { for (;;) ` +
        `onUpdate(1); } });
    pi.registerTool({ name: "ok", description: "d", execute: async () => "still serving" });
  }\n`,
      {},
      { maxOutboundBytesPerSecond: 20_000 },
    );
    try {
      await connection.start();
      let updates = 0;
      // The updates spend the second's bytes to within one update, so the error answer waits for the next second.
      const r = await connection.invoke(
        { kind: "tool", name: "flood", callId: "c1", arguments: {} },
        { onUpdate: () => updates++ },
      );
      assert.equal(r.status, "error");
      assert.match(
        r.status === "error" ? r.error.message : "",
        new RegExp(
          /^an update of tool "flood" could not be sent: __octet_host\.send: the extension sent \d+ bytes of /.source +
            /frames within the last second; this \d+-byte frame would pass the outbound rate limit of 20000 /.source +
            /bytes per second \(maxOutboundBytesPerSecond\)/.source,
        ),
      );
      assert.ok(updates > 100 && updates < 1000, `${updates} updates reached the host`);
      const next = await connection.invoke({ kind: "tool", name: "ok", callId: "c2", arguments: {} });
      assert.deepEqual(next, { status: "success", value: { content: [{ type: "text", text: "still serving" }] } });
    } finally {
      await connection.shutdown("test done");
    }
  },
);
