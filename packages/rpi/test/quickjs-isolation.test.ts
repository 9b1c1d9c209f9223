// Isolation and lifecycle of QuickJS instances: a thread, runtime and context each (QJS-14),
// no host globals or modules (QJS-17), terminate joins the thread and frees the runtime
// (QJS-20), engine failures end an instance as "fatal", and instances outlive each other.
import { test } from "node:test";
import assert from "node:assert/strict";
import { exited, launch, settle, threadCount, type Instance } from "./quickjs-harness.js";

/** The QuickJS transport's own flag (not part of RpiTransport). */
const freed = (inst: Instance): boolean => (inst.transport as unknown as { runtimeFreed: boolean }).runtimeFreed;

/** What ECMAScript itself puts on the global object and its prototype chain (QuickJS 2025-09). */
const ECMASCRIPT_GLOBALS = new Set([
  "globalThis",
  "Infinity",
  "NaN",
  "undefined",
  "eval",
  "isFinite",
  "isNaN",
  "parseFloat",
  "parseInt",
  "decodeURI",
  "decodeURIComponent",
  "encodeURI",
  "encodeURIComponent",
  "escape",
  "unescape",
  "AggregateError",
  "Array",
  "ArrayBuffer",
  "BigInt",
  "BigInt64Array",
  "BigUint64Array",
  "Boolean",
  "DataView",
  "Date",
  "Error",
  "EvalError",
  "FinalizationRegistry",
  "Float16Array",
  "Float32Array",
  "Float64Array",
  "Function",
  "Int8Array",
  "Int16Array",
  "Int32Array",
  "InternalError",
  "Iterator",
  "JSON",
  "Map",
  "Math",
  "Number",
  "Object",
  "Promise",
  "Proxy",
  "RangeError",
  "ReferenceError",
  "Reflect",
  "RegExp",
  "Set",
  "SharedArrayBuffer",
  "String",
  "Symbol",
  "SyntaxError",
  "TypeError",
  "URIError",
  "Uint8Array",
  "Uint8ClampedArray",
  "Uint16Array",
  "Uint32Array",
  "WeakMap",
  "WeakRef",
  "WeakSet",
  // Object.prototype
  "constructor",
  "toString",
  "toLocaleString",
  "valueOf",
  "hasOwnProperty",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "__proto__",
  "__defineGetter__",
  "__defineSetter__",
  "__lookupGetter__",
  "__lookupSetter__",
]);

const HOST_NAMES = [
  "process",
  "require",
  "module",
  "exports",
  "global",
  "fetch",
  "console",
  "setTimeout",
  "setInterval",
  "setImmediate",
  "clearTimeout",
  "clearInterval",
  "queueMicrotask",
  "structuredClone",
  "Buffer",
  "WebAssembly",
  "__octet_host",
  "Deno",
  "Bun",
  "XMLHttpRequest",
  "WebSocket",
  "navigator",
  "performance",
  "TextEncoder",
  "TextDecoder",
  "URL",
  "crypto",
  "std",
  "os",
  "scriptArgs",
  "print",
  "Atomics",
  "importScripts",
  "postMessage",
  "__filename",
  "__dirname",
];

test(
  "QJS-14: each instance has its own thread, runtime and context: one spinning instance does not stop " + "another",
  async () => {
    const before = threadCount();
    const a = await launch(undefined, { interruptAfterMs: 10_000, watchdogGraceMs: 300 });
    const b = await launch();
    try {
      if (before !== null) assert.ok((threadCount() ?? 0) >= before + 2, "one OS thread per instance");
      await a.run("globalThis.mark = 'A'; return Object.prototype.mine = 'A'");
      assert.deepEqual((await b.run("return [typeof mark, ({}).mine === undefined]")).value, ["undefined", true]);
      a.fire("for (;;) {}");
      // While A is inside its entry (its budget is 10 s), B answers and the main thread runs.
      assert.equal((await b.run("return 'B serves'")).value, "B serves");
      const stillRunning = await Promise.race([
        a.transport.exited.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), 100)),
      ]);
      assert.equal(stillRunning, true, "A is still in its loop");
      await a.transport.terminate("stuck instance");
      assert.deepEqual(await exited(a), { code: "terminated", reason: "stuck instance" });
    } finally {
      await a.transport.terminate("test done");
      await b.transport.terminate("test done");
    }
  },
);

test(
  "QJS-17: the global object holds ECMAScript names only; no process, require, fetch, console, Buffer, " +
    "WebAssembly or other host global",
  async () => {
    const inst = await launch();
    try {
      const names = (
        await inst.run(`
      const names = [];
      for (let o = globalThis; o !== null; o = Object.getPrototypeOf(o)) names.push(...Object.getOwnPropertyNames(o));
      return names;`)
      ).value as string[];
      const extra = names.filter((n) => !ECMASCRIPT_GLOBALS.has(n));
      assert.deepEqual(extra, [], `unexpected globals: ${extra.join(", ")}`);
      assert.equal(names.includes("Object") && names.includes("Promise"), true);
      const tried = (
        await inst.run(`
      return ${JSON.stringify(HOST_NAMES)}.map((name) => {
        let evaluated;
        try { evaluated = typeof (0, eval)(name); } catch (e) { evaluated = e.name; }
        return [name, typeof globalThis[name], evaluated];
      });`)
      ).value as [string, string, string][];
      for (const [name, viaGlobal, viaEval] of tried) {
        assert.equal(viaGlobal, "undefined", `globalThis.${name}`);
        assert.equal(viaEval, "ReferenceError", `${name} as an identifier`);
      }
      assert.equal((await inst.run("return Function('return this')() === globalThis")).value, true);
      for (const specifier of ["os", "std", "fs", "node:fs", "node:child_process", "child_process", "net"]) {
        const r = await inst.run(
          `return import(${JSON.stringify(specifier)}).then(() => 'loaded', (e) => 'refused: ' + e.message)`,
        );
        assert.match(String(r.value), /^refused: .*only relative imports/, specifier);
      }
    } finally {
      await inst.transport.terminate("test done");
    }
  },
);

test(
  "QJS-20: terminate joins the thread and frees the runtime; exited resolves with the reason; terminate is " +
    "idempotent",
  async () => {
    // A first instance warms up what stays for the process (the compiled module, pool threads).
    const warm = await launch();
    await warm.transport.terminate("warm-up");
    const baseline = threadCount();
    const insts: Instance[] = [await launch(), await launch()];
    for (const inst of insts) {
      // Live state when the stop comes: armed timers, a pending promise, objects, a closure cycle.
      await inst.run(`
      api.setTimeout(() => api.send({ late: true }), 60_000);
      globalThis.pending = new Promise(() => {});
      const a = {}; const b = { a }; a.b = b; globalThis.cycle = a;
      globalThis.big = new Array(10000).fill("x").map((x, i) => x + i);
      return "ready";`);
    }
    if (baseline !== null) assert.ok((threadCount() ?? 0) >= baseline + 2);
    const [first, second] = insts as [Instance, Instance];
    const stopping = first.transport.terminate("session ended");
    const again = first.transport.terminate("a second reason is ignored");
    await Promise.all([stopping, again]);
    assert.deepEqual(await exited(first), { code: "terminated", reason: "session ended" });
    await first.transport.terminate("after the exit");
    first.transport.send(JSON.stringify({ id: 99, code: "return 1" })); // dropped, not thrown
    assert.deepEqual(first.stderr(), [], "freeing the context and runtime reported no error");
    assert.equal(freed(first), true, "the worker freed its context and runtime");
    assert.equal((await second.run("return 'second still serves'")).value, "second still serves");
    await second.transport.terminate("session ended");
    assert.deepEqual(second.stderr(), []);
    assert.equal(freed(second), true);
    if (baseline !== null) assert.equal(await settle(threadCount, baseline), baseline, "the worker threads are gone");
  },
);

test("QJS-20: an instance stuck in the VM is killed by terminate after the grace, and its thread is gone", async () => {
  const baseline = threadCount();
  const inst = await launch(undefined, { interruptAfterMs: 10_000, watchdogGraceMs: 300 });
  inst.fire("for (;;) {}");
  await new Promise((r) => setTimeout(r, 50));
  await inst.transport.terminate("stop now");
  assert.deepEqual(await exited(inst), { code: "terminated", reason: "stop now" });
  assert.equal(
    freed(inst),
    false,
    "a thread killed inside the VM frees nothing itself; its memory goes with the thread",
  );
  if (baseline !== null) assert.equal(await settle(threadCount, baseline), baseline);
});

test("QJS-20: an engine failure inside the worker ends the instance as 'fatal' with the error's message", async () => {
  const inst = await launch();
  // A message the engine cannot handle (the type system forbids it; this bypasses it).
  inst.transport.send(undefined as unknown as string);
  const exit = await exited(inst);
  assert.equal(exit.code, "fatal");
  assert.match(exit.reason, /the QuickJS engine failed: \w*Error: /);
});

test("QJS-14, QJS-20: several instances run at once; tearing one down leaves the others serving", async () => {
  const insts = await Promise.all([launch(), launch(), launch(), launch()]);
  try {
    const answers = await Promise.all(insts.map((inst, i) => inst.run(`return ${i} * 10`)));
    assert.deepEqual(
      answers.map((a) => a.value),
      [0, 10, 20, 30],
    );
    const [victim, ...rest] = insts as [Instance, ...Instance[]];
    victim.fire("for (;;) {}");
    assert.equal((await exited(victim)).code, "runaway");
    const after = await Promise.all(rest.map((inst, i) => inst.run(`return "instance ${i + 1} ok"`)));
    assert.deepEqual(
      after.map((a) => a.value),
      ["instance 1 ok", "instance 2 ok", "instance 3 ok"],
    );
  } finally {
    await Promise.all(insts.map((inst) => inst.transport.terminate("test done")));
  }
});
