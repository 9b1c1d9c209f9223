// The start of a QuickJS instance through the real engine (Contract 2 of launch-quickjs.ts):
// launchQuickJs returns once the thread runs, the load runs after it under its own budget, host
// frames wait for it, and the host's handshake timeout bounds a load that hangs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RUNNER, connectPi, exited, start } from "./quickjs-harness.js";

test(
  "QJS-03, RPI-31: launchQuickJs resolves before the entry has loaded; host frames sent meanwhile are delivered " +
    "in order after setFactory",
  async () => {
    // The entry takes ~300 ms to evaluate; the frames below are sent while it does.
    const inst = await start({ "index.mjs": `const t = Date.now(); while (Date.now() - t < 300) {}\n${RUNNER}` });
    try {
      assert.deepEqual(inst.frames(), [], "nothing was loaded yet when launchQuickJs resolved");
      for (let i = 0; i < 5; i++) inst.fire(`return ${i} * 10`);
      await inst.waitFor((f) => f.id === 5);
      assert.deepEqual(inst.frames(), [
        { factory: "function" },
        ...[0, 10, 20, 30, 40].map((value, i) => ({ id: i + 1, value })),
      ]);
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test(
  "QJS-03, QJS-16: the load has its own budget (loadBudgetMs, not interruptAfterMs), and an instance still " +
    "loading can be terminated",
  async () => {
    const spin = await start(
      { "index.mjs": `for (;;) {}\n${RUNNER}` },
      { loadBudgetMs: 300, interruptAfterMs: 10_000 },
    );
    const exit = await exited(spin);
    assert.equal(exit.code, "runaway");
    assert.match(exit.reason, /longer than its 300 ms budget \(loadBudgetMs\) while evaluating the entry module/);

    // Stuck in the entry's VM entry (budget 10 s): terminate kills the thread after the grace.
    const stuck = await start(
      { "index.mjs": `for (;;) {}\n${RUNNER}` },
      { loadBudgetMs: 10_000, watchdogGraceMs: 300 },
    );
    await new Promise((r) => setTimeout(r, 300));
    await stuck.transport.terminate("stop loading");
    assert.deepEqual(await exited(stuck, 5000), { code: "terminated", reason: "stop loading" });

    // Waiting on a top-level await (between entries): the worker stops and frees its runtime.
    const waiting = await start({ "index.mjs": `await new Promise(() => {});\n${RUNNER}` }, { loadBudgetMs: 10_000 });
    await new Promise((r) => setTimeout(r, 300));
    await waiting.transport.terminate("stop waiting");
    assert.deepEqual(await exited(waiting, 5000), { code: "terminated", reason: "stop waiting" });
    assert.deepEqual(waiting.stderr(), []);
    assert.equal((waiting.transport as unknown as { runtimeFreed: boolean }).runtimeFreed, true);
  },
);

test(
  "QJS-03, RPI-31, RPI-33: the pi prelude answers hello only once the entry loaded, so the host's handshake " +
    "timeout bounds a load that hangs",
  async () => {
    const hung = await connectPi("await new Promise(() => {});\nexport default function (pi) {}\n", {
      handshakeMs: 300,
    });
    await assert.rejects(hung.connection.start(), /no hello from the extension within 300 ms \(handshake timeout\)/);
    assert.equal((await hung.transport.exited).code, "terminated");

    // A slow load within the handshake timeout: hello, load and initialize go through.
    const slow = await connectPi(`const t = Date.now(); while (Date.now() - t < 200) {}
export default function (pi) { pi.registerTool({ name: "late", description: "d", execute: async () => "ok" }); }\n`);
    try {
      await slow.connection.start();
      assert.deepEqual(
        slow.connection.tools().map((t) => t.name),
        ["late"],
      );
      const r = await slow.connection.invoke({ kind: "tool", name: "late", callId: "c1", arguments: {} });
      assert.deepEqual(r, { status: "success", value: { content: [{ type: "text", text: "ok" }] } });
    } finally {
      await slow.connection.shutdown("test done");
    }

    // A load that fails ends the start with the engine's reason, the stack on stderr.
    const broken = await connectPi("throw new Error('no config file');\n");
    await assert.rejects(broken.connection.start(), /the entry failed to load: Error: no config file/);
    assert.equal((await broken.transport.exited).code, "fatal");
    assert.match(broken.stderr.join("\n"), /index\.mjs:1/);
  },
);
