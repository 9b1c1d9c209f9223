import { test } from "node:test";
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { EXAMPLES, ROOT, groupMembers, runCli, waitUntil } from "./helpers.js";

const FAKE = join(ROOT, "packages", "rpi", "test", "fixtures", "rpi-fake.mjs");

/** An rpi process extension in `root/<id>`: a manifest and a shell launcher of the fake (no PATH: absolute paths). */
async function rpiExtension(
  root: string,
  id: string,
  mode = "ok",
  manifest: Record<string, unknown> = {},
): Promise<string> {
  const dir = join(root, id);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "main"), `#!/bin/sh\nexec ${process.execPath} ${FAKE} ${mode} ${id}\n`);
  await chmod(join(dir, "main"), 0o755);
  await writeFile(
    join(dir, "pi-extension.json"),
    JSON.stringify({
      schemaVersion: 1,
      id,
      executable: "./main",
      capabilities: ["tools", "commands", "event_hooks", "ui", "session_actions"],
      uiCapabilities: ["confirm", "notify", "status"],
      ...manifest,
    }),
  );
  return dir;
}

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-rpi-"));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(
  "pi-weather from the CLI: octet call and octet command run " + "it; status lists it beside octet extensions",
  async () => {
    const base = ["--extension-dir", EXAMPLES, "--enable-extension", "pi-weather"];
    const call = await runCli([...base, "call", "weather", '{"city":"London"}']);
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout.trim(), "15 °C, cloudy");
    const unknown = await runCli([...base, "call", "weather", '{"city":"Atlantis"}']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stdout + unknown.stderr, /no weather for 'Atlantis' \(known: London, Oslo, Paris, Tokyo\)/);
    const cmd = await runCli([...base, "command", "forecast"]);
    assert.equal(cmd.code, 0, cmd.stderr);
    assert.match(cmd.stdout, /^London: 15 °C, cloudy$/m);
    assert.match(cmd.stdout, /^Tokyo: 22 °C, light rain$/m);
    const status = await runCli([...base, "--enable-extension", "hello-world", "--json", "extensions", "status"]);
    assert.equal(status.code, 0, status.stderr);
    const list = JSON.parse(status.stdout) as {
      name: string;
      runtime: string;
      state: string;
      tools: string[];
      commands: string[];
    }[];
    const weather = list.find((s) => s.name === "pi-weather")!;
    assert.deepEqual(
      [weather.runtime, weather.state, weather.tools, weather.commands],
      ["rpi-process", "ready", ["weather"], ["forecast"]],
    );
    assert.deepEqual(list.find((s) => s.name === "hello-world")!.runtime, "octet");
    const human = await runCli([...base, "extensions", "status"]);
    assert.match(human.stdout, /pi-weather\s+rpi-process\s+ready/);
    const reload = await runCli([...base, "extensions", "reload", "pi-weather"]);
    assert.equal(reload.code, 0, reload.stderr);
    assert.match(reload.stdout, /pi-weather\s+rpi-process\s+ready\s+2/);
  },
);

test(
  "RPI-01, RPI-02: discovery finds pi-extension.json where it finds extension.toml; a directory without a manifest " +
    "is not an extension; two manifests are an error",
  async () => {
    await withDir(async (dir) => {
      await rpiExtension(dir, "pi-one");
      await mkdir(join(dir, "bare"));
      await writeFile(join(dir, "bare", "main"), "#!/bin/sh\n");
      const both = await rpiExtension(dir, "both");
      await writeFile(
        join(both, "extension.toml"),
        'name = "both"\nversion = "0.1.0"\napi_version = "0.4"\n[entrypoint]\ncommand = "node"\n',
      );
      const list = await ExtensionHost.discover({ extensionDirs: [dir], workspace: dir, runtimes: [rpiRuntime()] });
      assert.deepEqual(
        list.filter((s) => s.errors.length === 0).map((s) => [s.name, s.runtime]),
        [["pi-one", "rpi-process"]],
      );
      assert.ok(!list.some((s) => s.name === "bare"));
      const conflict = list.find((s) => s.manifestPath === both)!;
      assert.match(
        conflict.errors[0]!,
        /holds extension\.toml and pi-extension\.json; an extension directory has exactly one manifest/,
      );
      // Without the runtime the host knows only extension.toml.
      const plain = await ExtensionHost.discover({ extensionDirs: [dir], workspace: dir });
      assert.ok(!plain.some((s) => s.name === "pi-one"));
    });
  },
);

test("RPI-13: an invalid pi-extension.json is listed with its error and never launched", async () => {
  await withDir(async (dir) => {
    await rpiExtension(dir, "broken", "ok", {
      entry: "./index.ts",
      runtime: "quickjs",
      executable: undefined,
      capabilities: ["tools"],
    });
    const list = await ExtensionHost.discover({ extensionDirs: [dir], workspace: dir, runtimes: [rpiRuntime()] });
    assert.equal(list.length, 1);
    assert.equal(list[0]!.state, "invalid");
    assert.match(list[0]!.errors.join("\n"), /TypeScript/);
  });
});

test("RPI-16, QJS-19: a project rpi extension launches only with trust", async () => {
  await withDir(async (workspace) => {
    await rpiExtension(join(workspace, ".octet", "extensions"), "pi-proj");
    const untrusted = await ExtensionHost.start({
      workspace,
      enable: ["pi-proj"],
      runtimes: [rpiRuntime()],
      octetHome: join(workspace, "home"),
    });
    try {
      const s = untrusted.status().find((x) => x.name === "pi-proj")!;
      assert.equal(s.state, "not_trusted");
      assert.match(s.reason, /project extension "pi-proj" is not trusted: pass --trust-extension pi-proj/);
    } finally {
      await untrusted.shutdown();
    }
    const trusted = await ExtensionHost.start({
      workspace,
      enable: ["pi-proj"],
      trust: ["pi-proj"],
      runtimes: [rpiRuntime()],
      octetHome: join(workspace, "home"),
    });
    try {
      assert.equal(trusted.status().find((x) => x.name === "pi-proj")!.state, "ready");
    } finally {
      await trusted.shutdown();
    }
  });
});

test(
  "supervision and reload work for rpi extensions: a crash is restarted, cancellation and timeouts reach the " +
    "extension",
  async () => {
    await withDir(async (dir) => {
      await rpiExtension(dir, "pi-crashy");
      const events: HostEvent[] = [];
      const host = await ExtensionHost.start({
        extensionDirs: [dir],
        workspace: dir,
        enable: ["pi-crashy"],
        runtimes: [rpiRuntime()],
        supervision: { policy: { baseMs: 10, capMs: 20 } },
        onEvent: (e) => events.push(e),
      });
      try {
        const first = host.status()[0]!;
        assert.equal(first.state, "ready");
        const pgid = first.pgid!;
        await assert.rejects(host.callTool("weather", { city: "Rome", mode: "crash" }), /exited with code 3|ended/);
        await waitUntil(
          () => host.status()[0]!.state === "ready" && host.status()[0]!.generation > first.generation,
          10_000,
          "the restart",
        );
        assert.equal(host.status()[0]!.restarts, 1);
        assert.deepEqual(groupMembers(pgid), []);
        const ok = await host.callTool("weather", { city: "Rome" });
        assert.equal(ok.text, "15 °C, cloudy in Rome");
        // Cancellation: the host's signal becomes a cancel frame; the fake answers "cancelled".
        const ac = new AbortController();
        const pending = host.callTool("weather", { city: "Rome", mode: "hang" }, { signal: ac.signal });
        setTimeout(() => ac.abort(), 50);
        await assert.rejects(pending, /cancel/i);
        assert.equal(host.status()[0]!.state, "ready");
        const reloaded = await host.reload("pi-crashy");
        assert.equal(reloaded.state, "ready");
        assert.equal(reloaded.runtime, "rpi-process");
      } finally {
        await host.shutdown();
      }
      const last = host.status()[0]!;
      assert.equal(last.pid, null);
    });
  },
);

test("RPI-29: an rpi tool's update frames reach the caller as progress; a tool error is an error result", async () => {
  await withDir(async (dir) => {
    await rpiExtension(dir, "pi-prog");
    const host = await ExtensionHost.start({
      extensionDirs: [dir],
      workspace: dir,
      enable: ["pi-prog"],
      runtimes: [rpiRuntime()],
    });
    try {
      const progress: unknown[] = [];
      const r = await host.callTool("weather", { city: "Oslo" }, { onProgress: (p) => progress.push(p) });
      assert.equal(r.is_error, false);
      assert.match(JSON.stringify(progress), /looking outside/);
      const failed = await host.callTool("weather", { city: "Atlantis", mode: "fail" });
      assert.equal(failed.is_error, true);
      assert.equal(failed.text, "no weather for Atlantis");
    } finally {
      await host.shutdown();
    }
  });
});

test("rpi hooks join octet's hooks: a pi tool_call hook that blocks is a before_tool_call deny", async () => {
  await withDir(async (dir) => {
    await rpiExtension(dir, "pi-guard");
    const host = await ExtensionHost.start({
      extensionDirs: [dir],
      workspace: dir,
      enable: ["pi-guard"],
      runtimes: [rpiRuntime()],
    });
    try {
      const denied = await host.runHook("before_tool_call", { name: "weather", arguments: { city: "Mordor" } });
      assert.deepEqual(denied.denied, { extension: "pi-guard", reason: "one does not simply walk into Mordor" });
      const allowed = await host.runHook("before_tool_call", { name: "weather", arguments: { city: "Shire" } });
      assert.equal(allowed.denied, null);
      // The extension registered no input or before_agent_start hook: before_prompt is not routed to it.
      const prompt = await host.runHook("before_prompt", { prompt: "hi" });
      assert.equal(prompt.denied, null);
    } finally {
      await host.shutdown();
    }
  });
});

test(
  "QJS-07: octet lifecycle events reach an rpi extension as the pi events it hooked (session_switch arrives as " +
    "session_start)",
  async () => {
    await withDir(async (dir) => {
      await rpiExtension(dir, "pi-life");
      const events: HostEvent[] = [];
      const host = await ExtensionHost.start({
        extensionDirs: [dir],
        workspace: dir,
        enable: ["pi-life"],
        runtimes: [rpiRuntime()],
        onEvent: (e) => events.push(e),
      });
      try {
        assert.ok(host.status()[0]!.features.includes("lifecycle_events"));
        host.emitLifecycle("session/started", { session_id: "s-1" });
        // Not hooked (the fake hooks session_switch and tool_call only): never delivered.
        host.emitLifecycle("turn/started", { session_id: "s-1", run_id: "r", turn_id: "t" });
        await waitUntil(
          () => events.some((e) => e.type === "stderr" && e.line.startsWith("hook session_start")),
          5000,
          "the session_start hook",
        );
        const line = events.find(
          (e): e is Extract<HostEvent, { type: "stderr" }> =>
            e.type === "stderr" && e.line.startsWith("hook session_start"),
        )!;
        assert.deepEqual(JSON.parse(line.line.slice("hook session_start ".length)), {
          sessionId: "s-1",
          reason: "startup",
        });
        await new Promise((r) => setTimeout(r, 100));
        assert.ok(!events.some((e) => e.type === "stderr" && e.line.startsWith("hook turn_start")));
      } finally {
        await host.shutdown();
      }
    });
  },
);

test("QJS-11, QJS-12: an rpi status request becomes the extension's status line in the host", async () => {
  await withDir(async (dir) => {
    await rpiExtension(dir, "pi-status");
    const host = await ExtensionHost.start({
      extensionDirs: [dir],
      workspace: dir,
      enable: ["pi-status"],
      runtimes: [rpiRuntime()],
    });
    try {
      const r = await host.callTool("weather", { mode: "status", city: "Lima" });
      assert.deepEqual(JSON.parse(r.text), [
        { status: "success", value: {} },
        { status: "success", value: {} },
      ]);
      await waitUntil(
        () =>
          host
            .contributions()
            .status.some((c) => c.extension === "pi-status" && c.text === "weather: fetching · city: Lima"),
        5000,
        "the status line",
      );
    } finally {
      await host.shutdown();
    }
  });
});

test(
  "QJS-13: a dialog goes to the call it was asked for; with several " + "calls running and none named it is refused",
  async () => {
    await withDir(async (dir) => {
      await rpiExtension(dir, "pi-ask");
      const asked: string[] = [];
      const host = await ExtensionHost.start({
        extensionDirs: [dir],
        workspace: dir,
        enable: ["pi-ask"],
        runtimes: [rpiRuntime()],
        services: {
          confirm: async (r) => {
            asked.push(`${r.detail ?? ""}`);
            return true;
          },
        },
      });
      try {
        const both = (city: string) => host.callTool("weather", { mode: "confirm", city, delayMs: 100, together: 2 });
        const unnamed = await Promise.all(["a", "b"].map(both));
        for (const r of unnamed)
          assert.match(r.text, /2 calls are running and the request did not say which one it belongs to \(parentId\)/);
        assert.deepEqual(asked, []);
        const named = await Promise.all(
          ["a", "b"].map((city) => host.callTool("weather", { mode: "confirm", city, delayMs: 100, parent: true })),
        );
        for (const r of named) assert.deepEqual(JSON.parse(r.text), { status: "success", value: { confirmed: true } });
        assert.deepEqual(asked.sort(), ["a", "b"]);
      } finally {
        await host.shutdown();
      }
    });
  },
);

test(
  "RPI-35: an update that fits the rpi bound but not octet's once wrapped is dropped with a warning; the call still " +
    "answers",
  async () => {
    await withDir(async (dir) => {
      await rpiExtension(dir, "pi-big");
      const events: HostEvent[] = [];
      const host = await ExtensionHost.start({
        extensionDirs: [dir],
        workspace: dir,
        enable: ["pi-big"],
        runtimes: [rpiRuntime()],
        onEvent: (e) => events.push(e),
      });
      try {
        const r = await host.callTool("weather", { city: "Rome", mode: "big-update" }, { onProgress: () => undefined });
        assert.equal(r.text, "done after a big update");
        assert.ok(
          events.some((e) => e.type === "diagnostic" && /dropped progress of tool "weather"/.test(e.message)),
          JSON.stringify(events.filter((e) => e.type === "diagnostic")),
        );
        assert.equal(host.status()[0]!.state, "ready");
      } finally {
        await host.shutdown();
      }
    });
  },
);
