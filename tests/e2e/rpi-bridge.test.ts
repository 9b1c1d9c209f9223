// Issue 13.5: what a pi extension saw through the bridge, checked through a real host and a real
// QuickJS worker (and the rpi-process example beside it, so the host's catalog spans runtimes).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { EXAMPLES, runCli, waitUntil } from "./helpers.js";

const BRIDGED = `
const text = (t) => ({ content: [{ type: "text", text: typeof t === "string" ? t : JSON.stringify(t) }] });
const tool = (pi, name, execute) =>
  pi.registerTool({ name, label: name, description: name, parameters: { type: "object", properties: {} }, execute });
export default function (pi) {
  // pi makes a command's description optional.
  pi.registerCommand("bare", { handler: async () => "bare ran" });
  tool(pi, "snapshot", async (_id, _params, _signal, _onUpdate, ctx) => text({
    commands: pi.getCommands().map((c) => c.name).sort(),
    all: pi.getAllTools().map((t) => t.name).sort(),
    active: [...pi.getActiveTools()].sort(),
    session: pi.getSessionName() ?? null,
    model: ctx.model ?? null,
  }));
  tool(pi, "rename", async (_id, _params, _signal, _onUpdate, ctx) => {
    // pi's setters return nothing, so extensions rarely await them: this one does not.
    ctx.ui.setEditorText("draft");
    try {
      await pi.setSessionName("renamed");
      return text("resolved");
    } catch (e) {
      return text("rejected: " + e.message);
    }
  });
  tool(pi, "chatter", async (_id, _params, _signal, _onUpdate, ctx) => {
    let refused = 0, message = "";
    for (let i = 0; i < 20000; i++) {
      try { ctx.ui.notify("n".repeat(3000) + i, "info"); } catch (e) { refused++; message = e.message; }
    }
    return text({ refused, message });
  });
  tool(pi, "broken", async (_id, _params, _signal, _onUpdate, ctx) => {
    ctx.ui.showSplashScreen(true);
    return text("unreachable");
  });
  pi.on("session_before_compact", () => undefined);
  pi.on("model_select", () => undefined);
  pi.on("input", (event) => ({ action: "transform", text: event.text.replace(/hunter2/g, "***") }));
  pi.on("tool_result", () => ({ content: [{ type: "text", text: "[redacted]" }] }));
}
`;

let dir = "";
let host: ExtensionHost;
const events: HostEvent[] = [];
const diagnostics = (): string[] =>
  events.flatMap((e) => (e.type === "diagnostic" && e.extension === "bridged" ? [e.message] : []));

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "octet-bridge-"));
  await mkdir(join(dir, "bridged"));
  await writeFile(join(dir, "bridged", "index.mjs"), BRIDGED);
  await writeFile(
    join(dir, "bridged", "pi-extension.json"),
    JSON.stringify({
      schemaVersion: 1,
      id: "bridged",
      runtime: "quickjs",
      entry: "./index.mjs",
      capabilities: ["commands", "tools", "event_hooks", "session_actions", "ui"],
      uiCapabilities: ["set_editor_text", "notify"],
    }),
  );
  host = await ExtensionHost.start({
    extensionDirs: [dir, EXAMPLES],
    workspace: dir,
    enable: ["bridged", "pi-weather", "hello-world"],
    octetHome: join(dir, "home"),
    session: { session_name: "demo", model: "test-model" },
    runtimes: [rpiRuntime()],
    onEvent: (e) => events.push(e),
  });
});

after(async () => {
  await host.shutdown();
  await rm(dir, { recursive: true, force: true });
});

test("issue 13.5: a pi command without a description loads, described by its name", async () => {
  assert.equal(host.status().find((s) => s.name === "bridged")?.state, "ready");
  assert.deepEqual(
    host
      .commands()
      .filter((c) => c.extension === "bridged")
      .map((c) => [c.name, c.description]),
    [["bare", "/bare"]],
  );
  assert.equal((await host.runCommand("bare")).text, "bare ran");
});

test(
  "issue 13.5: every invocation carries the rpi context: the host's commands and tools, the session name and the " +
    "model",
  async () => {
    const seen = JSON.parse((await host.callTool("snapshot", {})).text) as {
      commands: string[];
      all: string[];
      active: string[];
      session: string | null;
      model: unknown;
    };
    const tools = host
      .tools()
      .map((t) => t.name)
      .sort();
    assert.ok(
      tools.includes("weather") && tools.includes("hello_world") && tools.includes("snapshot"),
      tools.join(","),
    );
    assert.deepEqual(seen.all, tools);
    assert.deepEqual(seen.active, tools);
    assert.deepEqual(
      seen.commands,
      host
        .commands()
        .map((c) => c.name)
        .sort(),
    );
    assert.equal(seen.session, "demo");
    assert.deepEqual(seen.model, { id: "test-model" });
  },
);

test(
  "issue 13.5: a refused session action rejects in the extension and is said to the user; so is an unawaited UI " +
    "request",
  async () => {
    const r = await host.callTool("rename", {});
    assert.match(r.text, /^rejected: the host cannot process the action "set_session_name"/);
    await waitUntil(
      () => diagnostics().some((m) => /UI request "set_editor_text"/.test(m)),
      5000,
      "the set_editor_text diagnostic",
    );
    assert.ok(
      diagnostics().some((m) => /the extension's action "set_session_name" failed: the host cannot process/.test(m)),
      diagnostics().join("\n"),
    );
    assert.ok(
      diagnostics().some((m) => /the extension's UI request "set_editor_text" failed: the host cannot process/.test(m)),
      diagnostics().join("\n"),
    );
  },
);

test("issue 13.5: a QuickJS error keeps its name and says what was not a function", async () => {
  const r = await host.callTool("broken", {});
  assert.equal(r.is_error, true);
  assert.match(r.text, /^TypeError: ctx\.ui\.showSplashScreen is not a function/);
});

test("issue 13.5: pi events the host never emits are listed as unsupportedHooks in status", () => {
  const status = host.status().find((s) => s.name === "bridged")!;
  assert.deepEqual(status.unsupportedHooks, ["session_before_compact", "model_select"]);
  assert.deepEqual(host.status().find((s) => s.name === "pi-weather")!.unsupportedHooks, []);
});

test("issue 13.5: octet extensions status --json lists the pi events the host never emits", async () => {
  const r = await runCli(["--extension-dir", dir, "--enable-extension", "bridged", "--json", "extensions", "status"]);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout) as { name: string; state: string; unsupportedHooks: string[] }[];
  const row = rows.find((x) => x.name === "bridged");
  assert.equal(row?.state, "ready");
  assert.deepEqual(row?.unsupportedHooks, ["session_before_compact", "model_select"]);
});

test(
  "issue 13.5: a hook result octet cannot apply is refused with a diagnostic: an input transform denies the prompt, " +
    "a tool_result rewrite is reported",
  async () => {
    const prompt = await host.runHook("before_prompt", { prompt: "my password is hunter2" });
    assert.equal(prompt.denied?.extension, "bridged");
    assert.match(prompt.denied?.reason ?? "", /input hook transformed the prompt/);
    await host.runHook("after_tool_call", {
      name: "weather",
      arguments: { city: "Paris" },
      output: "18 °C, sunny",
      is_error: false,
    });
    await waitUntil(
      () => diagnostics().some((m) => /tool_result hook rewrote the result of tool "weather".*refused/.test(m)),
      5000,
      "the tool_result diagnostic",
    );
  },
);

test(
  "issue 13a: a synchronous loop of 20,000 ctx.ui.notify puts at most 64 requests in flight, the host's own bound, " +
    "so the host refuses none; the rest throw in the extension, naming the bound",
  async () => {
    const before = events.filter((e) => e.type === "notification").length;
    const r = JSON.parse((await host.callTool("chatter", {})).text) as { refused: number; message: string };
    assert.equal(r.refused, 20000 - 64);
    assert.match(
      r.message,
      /ctx\.ui\.notify's request was not sent: 64 requests are already awaiting the host's answer/,
    );
    assert.ok(events.filter((e) => e.type === "notification").length - before <= 64);
    assert.deepEqual(
      events
        .filter((e) => e.type === "diagnostic" && /requests outstanding; refused/.test(e.message))
        .map((e) => (e as { message: string }).message),
      [],
      "the host refused nothing",
    );
    assert.equal(host.status().find((s) => s.name === "bridged")?.state, "ready", "the instance keeps serving");
  },
);
