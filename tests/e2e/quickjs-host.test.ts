import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { EXAMPLES, runCli, waitUntil } from "./helpers.js";

/** Tools that each try to escape or exhaust the sandbox; `probe` reports the global names it can see. */
const ESCAPES = `
export default function (pi) {
  const tool = (name, run) => pi.registerTool({ name, label: name, description: name,
    parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: String(await run()) }] }) });
  tool("probe", () => JSON.stringify({
    names: Object.getOwnPropertyNames(globalThis).sort(),
    reach: ["process", "require", "fetch", "console", "Buffer", "setImmediate", "WebAssembly", "__octet_host",
      "module", "global", "Deno", "Bun"].filter((n) => typeof globalThis[n] !== "undefined"),
  }));
  tool("spin", () => { for (;;) {} });
  tool("recurse", () => { const f = (n) => f(n + 1) + 1; try { return f(0); } catch (e) { return "caught: " + e; } });
  tool("allocate", () => { const keep = []; for (let i = 0; ; i++) keep.push("x".repeat(1024) + i); });
  tool("builtin", () => Array.prototype.indexOf.call({ length: 2 ** 50 }, 1));
  tool("storm", () => { const f = () => Promise.resolve().then(f); f(); return "started"; });
  tool("never", () => new Promise(() => {}));
  tool("ok", () => "still here");
  tool("big", () => "x".repeat(2 * 1024 * 1024));
}
`;

async function withSandbox(
  fn: (host: ExtensionHost, events: HostEvent[]) => Promise<void>,
  interruptAfterMs = 300,
  invocationMs = 2000,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-qjs-"));
  const ext = join(dir, "escapes");
  await mkdir(ext);
  await writeFile(join(ext, "index.mjs"), ESCAPES);
  await writeFile(
    join(ext, "pi-extension.json"),
    JSON.stringify({
      schemaVersion: 1,
      id: "escapes",
      runtime: "quickjs",
      entry: "./index.mjs",
      capabilities: ["tools"],
    }),
  );
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    extensionDirs: [dir, EXAMPLES],
    workspace: dir,
    enable: ["escapes", "pi-weather"],
    octetHome: join(dir, "home"),
    runtimes: [rpiRuntime({ timeouts: { invocationMs }, quickjs: { interruptAfterMs, watchdogGraceMs: 300 } })],
    supervision: { policy: { baseMs: 10, capMs: 50 } },
    onEvent: (e) => events.push(e),
  });
  try {
    assert.deepEqual(
      host
        .status()
        .filter((s) => s.state === "ready")
        .map((s) => `${s.name}:${s.runtime}`)
        .sort(),
      ["escapes:quickjs", "pi-weather:rpi-process"],
    );
    await fn(host, events);
  } finally {
    await host.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}

/** After an escape attempt: the host serves the other extension, and the sandboxed one comes back in a new runtime. */
async function survives(host: ExtensionHost, generationBefore: number, restarted: boolean): Promise<void> {
  const weather = await host.callTool("weather", { city: "Paris" });
  assert.equal(weather.text, "18 °C, sunny");
  if (restarted)
    await waitUntil(
      () =>
        host.status().find((s) => s.name === "escapes")!.generation > generationBefore &&
        host.status().find((s) => s.name === "escapes")!.state === "ready",
      10_000,
      "a new QuickJS runtime",
    );
  const ok = await host.callTool("ok", {});
  assert.equal(ok.text, "still here");
}

const gen = (host: ExtensionHost): number => host.status().find((s) => s.name === "escapes")!.generation;

test(
  "QJS-17: extension code reaches no host global: no process, require, fetch, console, Buffer, WebAssembly or the " +
    "host bridge",
  async () => {
    await withSandbox(async (host) => {
      const r = await host.callTool("probe", {});
      const { names, reach } = JSON.parse(r.text) as { names: string[]; reach: string[] };
      assert.deepEqual(reach, []);
      for (const n of ["process", "require", "fetch", "console", "Buffer", "__octet_host"])
        assert.ok(!names.includes(n), n);
    });
  },
);

test(
  "QJS-16: for(;;){} is interrupted at the budget; the runtime is torn down and restarted, the host and other " +
    "extensions keep running",
  async () => {
    await withSandbox(async (host, events) => {
      const before = gen(host);
      await assert.rejects(host.callTool("spin", {}), /runaway|ran past|budget|interrupted/i);
      await survives(host, before, true);
      assert.ok(
        events.some((e) => e.type === "diagnostic" && /escapes/.test(e.extension) && /restart/.test(e.message)),
      );
    });
  },
);

test(
  "QJS-15: allocating past 64 MiB in small pieces fails inside the " +
    "runtime; the runtime is torn down and restarted",
  async () => {
    await withSandbox(
      async (host) => {
        const before = gen(host);
        const rssBefore = process.memoryUsage().rss;
        await assert.rejects(host.callTool("allocate", {}), /heap reached its 64 MiB limit/);
        // The host's own memory did not take the extension's heap (64 MiB is the most it can have had).
        assert.ok(process.memoryUsage().rss - rssBefore < 256 * 1024 * 1024);
        await survives(host, before, true);
        // Filling 64 MiB in small pieces takes ~1 s idle and ~4 s on a loaded 2-core machine: the
        // budgets are generous so the test checks the memory limit, not the machine's speed.
      },
      30_000,
      30_000,
    );
  },
);

test("QJS-16: a builtin that never polls the interrupt handler is stopped by the watchdog", async () => {
  await withSandbox(async (host) => {
    const before = gen(host);
    await assert.rejects(host.callTool("builtin", {}), /watchdog|did not return|terminated/i);
    await survives(host, before, true);
  });
});

test(
  "QJS-16: a microtask storm is a runaway; deep recursion is a " + "catchable error and the runtime keeps serving",
  async () => {
    await withSandbox(async (host) => {
      const before = gen(host);
      const deep = await host.callTool("recurse", {});
      assert.match(deep.text, /caught: .*(stack overflow|call stack)/i);
      assert.equal(gen(host), before);
      await host.callTool("storm", {}).catch(() => undefined);
      await waitUntil(
        () => gen(host) > before && host.status().find((s) => s.name === "escapes")!.state === "ready",
        10_000,
        "the restart after the storm",
      );
      await survives(host, before, true);
    });
  },
);

test("a never-settling promise is answered by the invocation timeout; the runtime keeps serving", async () => {
  await withSandbox(async (host) => {
    const before = gen(host);
    const r = await host.callTool("never", {});
    assert.equal(r.is_error, true);
    assert.match(r.text, /no response within 2000 ms \(invocation timeout\)/);
    assert.equal(gen(host), before);
    await survives(host, before, false);
  });
});

test("QJS-18: an outbound frame over 1 MiB is refused inside the runtime and answered as an error", async () => {
  await withSandbox(async (host) => {
    const before = gen(host);
    const r = await host.callTool("big", {});
    assert.equal(r.is_error, true);
    assert.match(r.text, /1048576/);
    await survives(host, before, false);
  });
});

test(
  "QJS-21, QJS-04, QJS-05: the reference example runs from the CLI: a command with a UI action, a tool, session " +
    "actions refused without a session",
  async () => {
    const base = ["--extension-dir", EXAMPLES, "--enable-extension", "quickjs-example"];
    const hello = await runCli([...base, "command", "hello"]);
    assert.equal(hello.code, 0, hello.stderr);
    assert.match(hello.stderr, /\[quickjs-example\] info: quickjs-example — Hello from QuickJS/);
    const count = await runCli([...base, "call", "word_count", '{"text":"the quick brown fox"}']);
    assert.equal(count.code, 0, count.stderr);
    assert.equal(count.stdout.trim(), '4 words; the longest is "quick"');
    const rename = await runCli([...base, "command", "name-session", "demo"]);
    assert.equal(rename.code, 0, rename.stderr);
    assert.match(rename.stderr, /could not rename the session: the host cannot process the action "set_session_name"/);
    const status = await runCli([
      ...base,
      "--enable-extension",
      "pi-weather",
      "--enable-extension",
      "hello-world",
      "extensions",
      "status",
    ]);
    assert.match(status.stdout, /quickjs-example\s+quickjs\s+ready/);
    assert.match(status.stdout, /pi-weather\s+rpi-process\s+ready/);
    assert.match(status.stdout, /hello-world\s+octet 0\.1\s+ready/);
  },
);

test(
  "QJS-21: the reference example's event hook blocks a " + "destructive command through octet's before_tool_call",
  async () => {
    const host = await ExtensionHost.start({
      extensionDirs: [EXAMPLES],
      workspace: EXAMPLES,
      enable: ["quickjs-example"],
      runtimes: [rpiRuntime()],
      octetHome: join(tmpdir(), "octet-no-home"),
    });
    try {
      const blocked = await host.runHook("before_tool_call", { name: "bash", arguments: { command: "rm -rf /" } });
      assert.deepEqual(blocked.denied, { extension: "quickjs-example", reason: "refusing rm -rf on an absolute path" });
      const fine = await host.runHook("before_tool_call", { name: "bash", arguments: { command: "ls" } });
      assert.equal(fine.denied, null);
    } finally {
      await host.shutdown();
    }
  },
);
