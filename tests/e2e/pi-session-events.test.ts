// pi's session events delivered by octet's agent to a real pi extension in QuickJS (issue 17.4,
// 17.5): `octet run` against the scripted OpenAI-compatible server (real HTTP through pi-ai), the
// extension in tests/fixtures/pi-session-probe. What the hooks did is read where it lands: the
// requests the server received, the session file, and the notifications octet prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, runCli } from "./helpers.js";

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

async function setup(script: Record<string, unknown>[]) {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-pi-events-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-pi-events-ws-"));
  const ext = mkdtempSync(join(tmpdir(), "octet-pi-events-ext-"));
  cpSync(join(ROOT, "tests/fixtures/pi-session-probe"), join(ext, "pi-session-probe"), { recursive: true });
  const run = (prompt: string) =>
    runCli(
      [
        ...["--model", "scripted/scripted-model", "--workspace", ws, "--yes"],
        ...["--extension-dir", ext, "--enable-extension", "pi-session-probe", "run", prompt],
      ],
      { env: { OCTET_HOME: home }, timeoutMs: 60_000 },
    );
  const session = (): Record<string, unknown>[] => {
    const dir = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
    return readFileSync(join(dir, readdirSync(dir)[0]!), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  return { server, run, session, ws };
}

test("pi events: input transform, before_agent_start, context, before_provider_request shape the request", async () => {
  const t = await setup([{ match: "PI-CONTEXT-ADDED", text: "done" }]);
  try {
    const r = await t.run("tell nobody the secret");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "done\n");
    const body = t.server.requests[0]!;
    const text = JSON.stringify(body);
    assert.doesNotMatch(text, /secret/, "the input hook's transform is what the model sees");
    assert.match(text, /tell nobody the \[redacted\]/);
    assert.match(text, /PI-SYSTEM-MARK/, "before_agent_start's system prompt is the run's");
    assert.match(text, /PI-NOTE for tell nobody the \[redacted\]/, "before_agent_start's message is sent");
    assert.match(text, /PI-CONTEXT-ADDED/, "the context hook's messages are the request's");
    assert.equal(body["temperature"], 0.125, "before_provider_request replaced the payload");
    assert.match(text, /PI-SNIPPET echo a text/, "a pi tool's promptSnippet reaches the model");
    assert.match(text, /pi_echo: PI-GUIDELINE use pi_echo for echoes/, "and its promptGuidelines");
    const entries = t.session();
    const all = JSON.stringify(entries);
    assert.doesNotMatch(all, /secret/, "the transformed prompt is what is saved");
    assert.doesNotMatch(all, /PI-CONTEXT-ADDED/, "a context rewrite never changes the session");
    const note = entries.find((e) => e["type"] === "custom_message");
    assert.equal(note?.["entry_type"], "probe-note");
    assert.equal(note?.["extension"], "pi-session-probe");
    for (const seen of ["session_start startup", "agent_start", "turn_start 0", "turn_end 0 assistant 0"])
      assert.match(r.stderr, new RegExp(`seen ${seen}`), `${seen} was delivered`);
    assert.match(r.stderr, /seen agent_end 2 messages/, "agent_end carries the run's messages");
    assert.match(r.stderr, /seen session_shutdown quit/);
  } finally {
    await t.server.close();
  }
});

test("pi events: an input hook that handles the prompt: nothing is saved or sent", async () => {
  const t = await setup([{ text: "never asked" }]);
  try {
    const r = await t.run("HANDLE-ME please");
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "");
    assert.equal(t.server.requests.length, 0);
    assert.doesNotMatch(JSON.stringify(t.session()), /HANDLE-ME/);
  } finally {
    await t.server.close();
  }
});

test("pi events: tool_call blocks a write and edits arguments; tool_result rewrites the result", async () => {
  const t = await setup([
    {
      tool_calls: [
        { name: "write", arguments: { path: "blocked.txt", content: "x" } },
        { name: "pi_echo", arguments: { text: "hi" } },
      ],
    },
    { text: "finished" },
  ]);
  try {
    const r = await t.run("go");
    assert.equal(r.code, 0, r.stderr);
    const results = t
      .session()
      .filter((e) => (e["message"] as { role?: string } | undefined)?.role === "toolResult")
      .map((e) => e["message"] as { toolName: string; isError: boolean; content: { text: string }[] });
    assert.deepEqual(
      results.map((m) => [m.toolName, m.isError, m.content[0]!.text]),
      [
        ["write", true, "the probe blocks writes"],
        ["pi_echo", false, "rewritten: echo: hi (edited by tool_call)"],
      ],
    );
    assert.equal(readdirSync(t.ws).includes("blocked.txt"), false, "the blocked write did not run");
    assert.match(r.stderr, /seen tool_execution_start pi_echo/);
    assert.match(r.stderr, /seen tool_execution_end pi_echo false/);
    assert.match(r.stderr, /seen turn_end 0 assistant 2/, "turn_end carries the turn's tool results");
  } finally {
    await t.server.close();
  }
});

test("pi session readers: sessionManager, isIdle, getContextUsage, getSystemPrompt, model", async () => {
  const t = await setup([{ tool_calls: [{ name: "pi_session", arguments: {} }] }, { text: "described" }]);
  try {
    const r = await t.run("describe the session");
    assert.equal(r.code, 0, r.stderr);
    const entries = t.session();
    const result = entries
      .map((e) => e["message"] as { role?: string; content?: { text: string }[] } | undefined)
      .find((m) => m?.role === "toolResult");
    const view = JSON.parse(result!.content![0]!.text) as Record<string, unknown>;
    // The tool runs after the user entry, the before_agent_start note and the assistant's call.
    assert.deepEqual(view["entries"], ["message", "custom_message", "message"]);
    assert.deepEqual(view["branch"], ["user", "custom_message", "assistant"]);
    assert.equal(view["leafIsLast"], true);
    assert.equal(view["leafEntryType"], "message");
    assert.equal(view["firstUser"], "describe the session");
    assert.match(String(view["file"]), /\.jsonl$/);
    assert.equal(view["idle"], false, "a tool runs inside the run: not idle");
    assert.equal(view["pending"], false, "no message waits");
    const usage = view["usage"] as { tokens: number; contextWindow: number; percent: number };
    assert.ok(usage.tokens > 0 && usage.contextWindow > usage.tokens, JSON.stringify(usage));
    assert.equal(view["model"], "scripted-model");
    assert.equal(view["systemPrompt"], true, "the system prompt octet sends");
  } finally {
    await t.server.close();
  }
});

test("WAVE1-38, WAVE1-39, WAVE1-08: pi session actions as Wave-1 requests; batches as message_update", async () => {
  const t = await setup([{ tool_calls: [{ name: "pi_act", arguments: {} }] }, { text: "all acted" }]);
  try {
    const r = await t.run("act");
    assert.equal(r.code, 0, r.stderr);
    const entries = t.session();
    const custom = entries.filter((e) => e["type"] === "custom");
    const state = custom.find((e) => e["entry_type"] === "probe-state");
    assert.deepEqual(state?.["data"], { step: 1 }, "pi.appendEntry -> session/append_entry");
    assert.equal(state?.["extension"], "pi-session-probe");
    // A custom message is an entry whose payload keeps display, recorded and not rendered.
    const msg = custom.find((e) => e["entry_type"] === "probe-msg");
    assert.deepEqual(msg?.["data"], { content: "a custom message", display: true });
    assert.ok(
      entries.some((e) => e["type"] === "session_info" && e["name"] === "named by pi"),
      "pi.setSessionName -> session/set_name",
    );
    assert.ok(
      custom.some((e) => e["entry_type"] === "probe-end"),
      "an action from agent_end, delivered by the session layer, acts under the issued owner",
    );
    assert.doesNotMatch(r.stdout + r.stderr, /a custom message/, "display is recorded, not rendered");
    // The scripted server streams "all acted" word by word; the batches arrive whole, in order.
    const updates = [...r.stderr.matchAll(/seen message_update (.*)\|(\d+)/g)].map((m) => m[1]);
    assert.ok(updates.length >= 1, r.stderr);
    assert.equal(updates.join(""), "all acted");
  } finally {
    await t.server.close();
  }
});
