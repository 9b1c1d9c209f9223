// pi's registrations after the load, shortcuts and flags (issue 17, item 6), each through the real
// CLI: registerTool from session_start and from a command onto octet's dynamic catalog (the model's
// next request offers it; `octet run` and the shell over a pipe against the scripted model server),
// registerFlag with --pi-flag values, and registerShortcut on a real pseudo-terminal.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, runCli } from "./helpers.js";
import { runOnPty } from "./pty.js";

const DYNAMIC_TOOLS = join(ROOT, "node_modules/@mariozechner/pi-coding-agent/examples/extensions/dynamic-tools.ts");
const PROBE = join(ROOT, "tests/fixtures/pi-register-probe");

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

async function scripted(script: Record<string, unknown>[]) {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-pi-register-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-pi-register-ws-"));
  const base = ["--model", "scripted/scripted-model", "--workspace", ws, "--yes", "--pi-extension", DYNAMIC_TOOLS];
  return { server, home, base };
}

const offered = (body: Record<string, unknown> | undefined): string[] =>
  ((body?.["tools"] ?? []) as { function?: { name?: string } }[]).map((t) => String(t.function?.name));
const lastMessage = (body: Record<string, unknown> | undefined): unknown =>
  (body?.["messages"] as unknown[] | undefined)?.at(-1);

test("pi registerTool in session_start: the model's first request offers echo_session and its call runs", async () => {
  const t = await scripted([
    { tool_calls: [{ name: "echo_session", arguments: { message: "hi" } }] },
    { text: "done" },
  ]);
  try {
    const r = await runCli([...t.base, "run", "echo hi"], { env: { OCTET_HOME: t.home }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "done\n");
    assert.match(r.stderr, /Registered dynamic tool: echo_session/);
    assert.ok(offered(t.server.requests[0]).includes("echo_session"), JSON.stringify(offered(t.server.requests[0])));
    assert.match(JSON.stringify(lastMessage(t.server.requests[1])), /"content":"\[session\] hi"/);
  } finally {
    await t.server.close();
  }
});

test("pi registerTool from a command: /add-echo-tool in the shell, then the model calls the new tool", async () => {
  const t = await scripted([
    { match: "please shout", tool_calls: [{ name: "shout", arguments: { message: "hey" } }] },
    { text: "shouted" },
  ]);
  try {
    const r = await runCli(t.base, {
      env: { OCTET_HOME: t.home },
      input: "/add-echo-tool shout\n/add-echo-tool bash\nplease shout\n/quit\n",
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /Registered dynamic tool: shout/);
    assert.match(r.stdout, /shouted/);
    const tools = offered(t.server.requests[0]);
    assert.ok(tools.includes("shout") && tools.includes("echo_session"), JSON.stringify(tools));
    assert.match(JSON.stringify(lastMessage(t.server.requests[1])), /"content":"\[shout\] hey"/);
    // A built-in's name (bash) replaces the built-in, as in pi, with a warning; one bash is offered.
    assert.match(r.stdout + r.stderr, /the built-in tool "bash" is replaced by extension dynamic-tools's tool/);
    assert.equal(tools.filter((n) => n === "bash").length, 1);
  } finally {
    await t.server.close();
  }
});

test("pi registerFlag: --pi-flag values reach pi.getFlag as in pi; a flag nobody registered is said", async () => {
  const given = await runCli([
    ...["--pi-extension", PROBE, "--pi-flag", "plan", "--pi-flag", "preset=fast", "--pi-flag", "nobody"],
    ...["command", "flags"],
  ]);
  assert.equal(given.code, 0, given.stderr);
  assert.match(given.stderr, /flags plan=true preset="fast" other=undefined/);
  assert.match(given.stderr, /--pi-flag nobody: no pi extension registered it/);
  assert.doesNotMatch(given.stderr, /--pi-flag (plan|preset):/);
  const defaults = await runCli(["--pi-extension", PROBE, "command", "flags"]);
  assert.equal(defaults.code, 0, defaults.stderr);
  assert.match(defaults.stderr, /flags plan=false preset="none" other=undefined/);
  const bad = await runCli(["--pi-extension", PROBE, "--pi-flag", "=x", "command", "flags"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--pi-flag =x: expected NAME or NAME=VALUE/);
});

test('WAVE1-21: pi registerShortcut: Key.ctrl("g") runs its handler with a ctx; unbindable keys named', async () => {
  const pty = await runOnPty(["--pi-extension", PROBE, "--pi-flag", "plan"], { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    assert.match(pty.output(), /the pi shortcut "escape" cannot be bound: "escape": key "escape" is not a-z/);
    assert.doesNotMatch(pty.output(), /"ctrl\+shift\+p"/, "ctrl+shift+p maps onto an octet key");
    let mark = pty.output().length;
    pty.type("\x07");
    await pty.waitFor(/shortcut ctrl\+g ran \(plan=true, hasUI=true\)/, "the handler's notification", { from: mark });
    mark = pty.output().length;
    pty.type("\x1bx");
    await pty.waitFor(/the shortcut "alt\+x" failed: the alt\+x handler failed on purpose/, "the failure", {
      from: mark,
    });
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
  }
});

test("pi registerProvider (node): --model names the provider a pi extension registered", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script: [{ text: "from the extension's provider" }] })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-pi-provider-home-"));
  try {
    const probe = join(ROOT, "tests/fixtures/pi-provider-probe");
    // provider_metadata is the node runtime's: RPI-12 keeps it from QuickJS.
    const args = [
      "--pi-runtime",
      "node",
      "--pi-extension",
      probe,
      "--model",
      "pi-scripted/probe-model",
      "--workspace",
      home,
    ];
    const r = await runCli([...args, "--pi-flag", `scripted-url=${server.url}`, "run", "hi"], {
      env: { OCTET_HOME: home },
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "from the extension's provider\n");
    assert.equal(server.requests[0]?.["model"], "probe-model");
    // Its data is checked as a models.json provider: without a baseUrl the provider is refused, by name.
    const bad = await runCli([...args, "run", "hi"], { env: { OCTET_HOME: home }, timeoutMs: 60_000 });
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /the provider "pi-scripted" of pi-provider-probe is not used: .*baseUrl/);
  } finally {
    await server.close();
  }
});

test("pi registerTool from a command without a model: the shell's next /call reaches the new tool", async () => {
  const r = await runCli(["--pi-extension", PROBE], {
    input: '/call upper {"text":"early"}\n/add-upper\n/call upper {"text":"late"}\n/quit\n',
    timeoutMs: 60_000,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout + r.stderr, /registered upper/);
  assert.match(r.stdout, /LATE/);
  assert.doesNotMatch(r.stdout, /EARLY/, "before the command the tool does not exist");
});
