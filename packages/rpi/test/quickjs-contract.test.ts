// The engine's contract with the prelude (Contract 1) and the transport's start (Contract 2),
// run against a stand-in prelude (quickjs-harness.ts), not the pi API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { launchQuickJs } from "../src/index.js";
import type { RpiExit } from "../src/index.js";
import {
  RUNNER,
  STAND_IN_PRELUDE,
  exited,
  launch,
  makePackage,
  start,
  type LaunchOverrides,
} from "./quickjs-harness.js";

test(
  "QJS-02: the prelude's completion value is the bridge; frames pass both ways in order and env reaches " +
    "__octet_host.env",
  async () => {
    const inst = await launch();
    try {
      assert.deepEqual(inst.frames()[0], { factory: "function" });
      assert.deepEqual((await inst.run("return api.env")).value, {
        PI_EXTENSION_ID: "test-ext",
        PI_EXTENSION_MAX_FRAME_BYTES: "1048576",
      });
      // The host object is gone after the prelude and the bridge was never a global.
      assert.deepEqual((await inst.run("return [typeof __octet_host, 'bridge' in globalThis, typeof receive]")).value, [
        "undefined",
        false,
        "undefined",
      ]);
      for (let i = 0; i < 50; i++) inst.fire(`api.send({ seq: ${i} })`);
      await inst.waitFor((f) => (f as { seq?: number }).seq === 49);
      const seqs = inst.frames().flatMap((f) => ("seq" in f ? [(f as { seq: number }).seq] : []));
      assert.deepEqual(
        seqs,
        Array.from({ length: 50 }, (_, i) => i),
      );
      assert.equal(inst.transport.pid, null);
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test(
  "QJS-02: promise jobs are drained after every entry, so a handler can await an answer that arrives as a later " +
    "frame",
  async () => {
    const inst = await launch();
    try {
      const waiting = inst.run("return new Promise((resolve) => { globalThis.answer = resolve; }).then((v) => v * 2)");
      assert.equal((await inst.run("globalThis.answer(21); return 'answered'")).value, "answered");
      assert.equal((await waiting).value, 42);
      assert.equal(
        (
          await inst.run(
            "return (async () => { let n = 0; for (let i = 0; i < 100; i++) n += await Promise.resolve(i); return n; " +
              "})()",
          )
        ).value,
        4950,
      );
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test(
  "QJS-02: host timers fire through bridge.fireTimer, clearTimer cancels, and the 1001st live timer throws a " +
    "RangeError naming the limit",
  async () => {
    const inst = await launch();
    try {
      assert.equal((await inst.run("return new Promise((r) => api.setTimeout(() => r('fired'), 10))")).value, "fired");
      const cleared = await inst.run(`
      const id = api.setTimeout(() => api.send({ cleared: 'fired anyway' }), 5);
      api.clearTimeout(id);
      return new Promise((r) => api.setTimeout(() => r('later'), 50));`);
      assert.equal(cleared.value, "later");
      assert.equal(
        inst.frames().some((f) => "cleared" in f),
        false,
      );
      const limit = await inst.run(`
      for (let i = 1; i <= 1000; i++) api.setTimer(i, 1e9);
      api.setTimer(5, 1e9); // re-arming a live id is not a new timer
      let refused;
      try { api.setTimer(1001, 1e9); } catch (e) { refused = [e instanceof RangeError, e.message]; }
      for (let i = 1; i <= 1000; i++) api.clearTimer(i);
      api.setTimer(1001, 1e9);
      api.clearTimer(1001);
      return refused;`);
      assert.equal((limit.value as [boolean, string])[0], true);
      assert.match((limit.value as [boolean, string])[1], /at most 1000 timers/);
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test(
  "QJS-02: an error escaping bridge.receive is reported as a stderr event and the instance keeps " + "serving",
  async () => {
    const inst = await launch();
    try {
      inst.transport.send("not json"); // the stand-in prelude's JSON.parse throws before its try
      assert.equal((await inst.run("return 'still serving'")).value, "still serving");
      assert.equal(inst.stderr().length, 1);
      assert.match(inst.stderr()[0] ?? "", /^quickjs: bridge\.receive threw: SyntaxError: .*\n.*octet:pi-prelude/s);
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test("QJS-03: the entry's default export goes to bridge.setFactory, undefined when there is none", async () => {
  const inst = await launch({ "index.mjs": "export const notDefault = 1;\n" });
  try {
    assert.deepEqual(inst.frames()[0], { factory: "undefined" });
  } finally {
    await inst.transport.terminate("test done");
  }
  const tla = await launch({ "index.mjs": `await new Promise((r) => Promise.resolve().then(r));\n${RUNNER}` });
  try {
    assert.deepEqual(tla.frames()[0], { factory: "function" });
    assert.equal((await tla.run("return 'ok'")).value, "ok");
  } finally {
    await tla.transport.terminate("test done");
  }
});

test(
  "QJS-03: an entry that throws, does not parse or whose top-level await rejects ends the instance as 'fatal' " +
    "(the entry failed to load), after a stderr event with its stack; so does a broken prelude",
  async () => {
    const failed = async (
      files: Record<string, string>,
      overrides: LaunchOverrides = {},
    ): Promise<{ exit: RpiExit; stderr: string[] }> => {
      const inst = await start(files, overrides);
      const exit = await exited(inst);
      return { exit, stderr: inst.stderr() };
    };
    const thrown = await failed({
      "index.mjs": "function boom() { throw new Error('boom at load'); }\nboom();\nexport default () => 1;\n",
    });
    assert.deepEqual(thrown.exit, { code: "fatal", reason: "the entry failed to load: Error: boom at load" });
    assert.equal(thrown.stderr.length, 1);
    // The stack names the module and line.
    assert.match(
      thrown.stderr[0] ?? "",
      /^quickjs: the entry \/.*index\.mjs failed to load: Error: boom at load\n\s+at boom \(.*index\.mjs:1/,
    );

    const syntax = await failed({ "index.mjs": "export default function (\n" });
    assert.equal(syntax.exit.code, "fatal");
    assert.match(syntax.exit.reason, /^the entry failed to load: SyntaxError: /);
    const rejected = await failed({ "index.mjs": "await Promise.reject(new TypeError('late failure'));\n" });
    assert.deepEqual(rejected.exit, { code: "fatal", reason: "the entry failed to load: TypeError: late failure" });
    assert.match(rejected.stderr[0] ?? "", /failed to load: TypeError: late failure/);
    const hung = await failed(
      { "index.mjs": "await new Promise(() => {});\nexport default () => 1;\n" },
      { loadBudgetMs: 300 },
    );
    assert.deepEqual(hung.exit, {
      code: "fatal",
      reason: "the entry failed to load: its top-level await did not settle within 300 ms (loadBudgetMs)",
    });
    const prelude = await failed({ "index.mjs": RUNNER }, { prelude: "throw new TypeError('bad prelude')" });
    assert.deepEqual(prelude.exit, {
      code: "fatal",
      reason: "the prelude (octet:pi-prelude) failed: TypeError: bad prelude",
    });
    const bridge = await failed({ "index.mjs": RUNNER }, { prelude: "({ receive() {} })" });
    assert.match(bridge.exit.reason, /must complete with the bridge .*setFactory is undefined/);
    // A prelude that keeps __octet_host does not leak it: the engine removes it.
    const keeps = await launch(
      { "index.mjs": RUNNER },
      { prelude: STAND_IN_PRELUDE.replace("delete globalThis.__octet_host;", "") },
    );
    try {
      assert.equal((await keeps.run("return typeof __octet_host")).value, "undefined");
    } finally {
      await keeps.transport.terminate("test done");
    }
  },
);

test("QJS-01: modules resolve inside the package only, and only .js/.mjs", async () => {
  const ok = await launch({
    "index.mjs":
      `import { twice } from "./lib/util.js";\nexport default (frame, api) => new Function("api", ` +
      `"twice", frame.code)(api, twice);\n`,
    "lib/util.js": `import { one } from "../one.mjs"; export const twice = (x) => x * 2 * one;`,
    "one.mjs": "export const one = 1;",
    "lib/late.js": "export const late = 'dynamic';",
  });
  try {
    assert.equal((await ok.run("return twice(21)")).value, 42);
    assert.equal((await ok.run("return import('./lib/late.js').then((m) => m.late)")).value, "dynamic");
    const refused = await ok.run("return import('node:fs').then(() => 'loaded', (e) => 'refused: ' + e.message)");
    assert.match(String(refused.value), /^refused: .*only relative imports/);
  } finally {
    await ok.transport.terminate("test done");
  }

  const root = makePackage({
    "outside.mjs": "export default 'escaped';",
    "pkg/data.json": "{}",
    "pkg/index.ts": "export default 1;",
  });
  const pkg = join(root, "pkg");
  symlinkSync(join(root, "outside.mjs"), join(pkg, "link.mjs"));
  mkdirSync(join(pkg, "dir.js"));
  const cases: [string, RegExp][] = [
    [`import x from "../outside.mjs";`, /refused: only existing \.js and \.mjs files inside the extension package/],
    [`import x from "./link.mjs";`, /refused: only existing \.js and \.mjs files inside the extension package/],
    [`import x from "./data.json";`, /only \.js and \.mjs modules/],
    [`import x from "./missing.js";`, /refused: only existing \.js and \.mjs files inside the extension package/],
    [`import x from "./dir.js";`, /refused: only existing \.js and \.mjs files inside the extension package/],
    [`import * as os from "os";`, /only relative imports/],
    [`import * as std from "std";`, /only relative imports/],
    [`import x from "lodash";`, /only relative imports/],
    [`import x from "${join(root, "outside.mjs")}";`, /only relative imports/],
  ];
  for (const [line, expected] of cases) {
    writeFileSync(join(pkg, "index.mjs"), `${line}\nexport default () => x;\n`);
    await assert.rejects(launch(pkg), expected, line);
  }
  await assert.rejects(launch(pkg, { entryName: "index.ts" }), /only \.js and \.mjs/);
  await assert.rejects(launch(pkg, { entryName: "link.mjs" }), /refused: only existing/);
});

test(
  "issue 13j: an import refusal names no host path and reads the same for a missing file and one outside the " +
    "package",
  async () => {
    const root = makePackage({
      "outside.mjs": "export default 1;",
      "pkg/index.mjs": `export default (frame, api) => new Function("api", frame.code)(api);\n`,
    });
    const pkg = join(root, "pkg");
    const probe = await launch(pkg);
    try {
      const attempt = async (specifier: string): Promise<string> =>
        String(
          (await probe.run(`return import(${JSON.stringify(specifier)}).then(() => "loaded", (e) => e.message)`)).value,
        );
      const exists = await attempt("../outside.mjs");
      const missing = await attempt("../missing.mjs");
      const deep = await attempt("../../../../../../../../etc/hostname.js");
      assert.match(exists, /refused/);
      assert.equal(
        exists.replace("outside", "X"),
        missing.replace("missing", "X"),
        "an existing outside file and a missing one are refused alike",
      );
      for (const message of [exists, missing, deep]) {
        assert.ok(!message.includes(root) && !message.includes(tmpdir()), `no host path in: ${message}`);
        assert.match(message, /from \.\/index\.mjs/);
      }
    } finally {
      await probe.transport.terminate("test done");
    }
  },
);

test("QJS-01: options are checked before a worker starts", async () => {
  const dir = makePackage({ "index.mjs": RUNNER });
  const base = { entry: join(dir, "index.mjs"), packageDir: dir, prelude: STAND_IN_PRELUDE, env: {} };
  await assert.rejects(
    launchQuickJs({ ...base, maxStackBytes: 256 * 1024 + 1 }),
    /maxStackBytes must be an integer of at most 262144/,
  );
  await assert.rejects(
    launchQuickJs({ ...base, memoryLimitBytes: 1024 * 1024 }),
    /memoryLimitBytes must be a multiple of 64 KiB between 16 MiB/,
  );
  await assert.rejects(launchQuickJs({ ...base, interruptAfterMs: 0 }), /interruptAfterMs must be a positive number/);
  await assert.rejects(launchQuickJs({ ...base, loadBudgetMs: -1 }), /loadBudgetMs must be a positive number/);
  await assert.rejects(
    launchQuickJs({ ...base, maxOutboundBytesPerSecond: 1.5 }),
    /maxOutboundBytesPerSecond must be an integer/,
  );
});
