// The turn loop with a real extension (tests/fixtures/agent-probe, the TypeScript SDK in its own
// process): every hook, context collection and lifecycle event in the documented order with the
// documented payloads (HOOK-01..07, CTX-01..03, LIFE-04..11), a before_tool_call deny as the
// model's error result, and cancellation of an extension's tool.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ExtensionHost } from "@octet/host";
import { Agent, SessionFile, type AgentEvent } from "../src/index.js";
import {
  probeExtension,
  scriptedHome,
  scriptedModel,
  scriptedServer,
  tempWorkspace,
  until,
  type ProbeRecord,
  type ScriptStep,
} from "./support/harness.js";

async function setup(script: ScriptStep[]) {
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url);
  const workspace = tempWorkspace();
  const probe = probeExtension();
  const host = await ExtensionHost.start({
    workspace,
    octetHome: home,
    extensionDirs: [probe.dir],
    enable: ["agent-probe"],
    reservedToolNames: ["read", "write", "edit", "bash"],
  });
  assert.equal(host.status().find((s) => s.name === "agent-probe")?.state, "ready");
  const session = await SessionFile.create({ home, workspace });
  const agent = new Agent({ session, model: await scriptedModel(home), host, maxRetries: 0 });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  const done = async (): Promise<void> => {
    await agent.close();
    await host.shutdown();
    await server.close();
  };
  return { server, host, session, agent, events, probe, done };
}

/** The probe's records as short tags, e.g. "hook:before_prompt", "lifecycle:turn/started". */
function tags(log: ProbeRecord[]): string[] {
  return log.map((r) =>
    r.what === "hook"
      ? `hook:${r.hook}`
      : r.what === "lifecycle"
        ? `lifecycle:${r.event}`
        : r.what === "tool"
          ? `tool:${r.name}`
          : r.what,
  );
}

test("HOOK-01, HOOK-03, HOOK-04, CTX-01, LIFE-05, LIFE-06, LIFE-11, LIFE-14: touchpoints in order", async () => {
  const t = await setup([{ tool_calls: [{ name: "probe_echo", arguments: { text: "hi" } }] }, { text: "All done." }]);
  try {
    const r = await t.agent.prompt("please echo hi");
    assert.equal(r.outcome, "completed");
    // Two model requests, one turn/started and one turn/settled: they describe the run (LIFE-14).
    assert.equal(t.server.requests.length, 2);
    await until(() => tags(t.probe.log()).includes("lifecycle:turn/settled"), "turn/settled at the probe");
    const log = t.probe.log();
    assert.deepEqual(tags(log), [
      "lifecycle:session/started",
      "hook:before_prompt",
      "lifecycle:turn/started",
      "context",
      "lifecycle:tool/started",
      "hook:before_tool_call",
      "tool:probe_echo",
      "hook:after_tool_call",
      "lifecycle:tool/settled",
      "context",
      "hook:after_response",
      "lifecycle:turn/settled",
    ]);
    const find = (tag: string): ProbeRecord => log[tags(log).indexOf(tag)]!;
    assert.deepEqual(find("hook:before_prompt").payload, { prompt: "please echo hi" });
    assert.deepEqual(find("hook:before_tool_call").payload, { name: "probe_echo", arguments: { text: "hi" } });
    assert.deepEqual(find("hook:after_tool_call").payload, {
      name: "probe_echo",
      arguments: { text: "hi" },
      output: "echo: hi",
      is_error: false,
    });
    assert.deepEqual(find("hook:after_response").payload, { response: "All done." });
    // context/collect gets the prompt on the first request of a run, null on the later ones.
    assert.deepEqual(
      log.filter((x) => x.what === "context").map((x) => x.prompt),
      ["please echo hi", null],
    );
    const started = find("lifecycle:turn/started").params!;
    const run = t.events.find((e) => e.type === "run_start");
    assert.ok(run && run.type === "run_start");
    assert.deepEqual(started, { session_id: t.session.id, run_id: run.run_id, turn_id: `turn:${run.entry_id}` });
    const tool = find("lifecycle:tool/settled").params!;
    assert.equal(tool["tool_name"], "probe_echo");
    assert.equal(tool["outcome"], "completed");
    assert.equal(typeof tool["tool_call_id"], "string");
    assert.equal(find("lifecycle:turn/settled").params!["outcome"], "completed");
  } finally {
    await t.done();
  }
});

test("CTX-02: context is placed where its placement says, in the request only, never in the session", async () => {
  const t = await setup([{ text: "ok" }]);
  try {
    await t.agent.prompt("where is the context?");
    const req = t.server.requests[0] as {
      messages: { role: string; content: unknown }[];
      tools: { function: { name: string } }[];
    };
    const system = JSON.stringify(req.messages[0]);
    assert.match(system, /The probe extension is watching/);
    assert.ok(
      system.indexOf("The probe extension is watching") < system.indexOf("You are octet"),
      "system_prefix first",
    );
    const user = JSON.stringify(req.messages.find((m) => m.role === "user")!.content);
    const [prefix, prompt, suffix] = [
      "from before_prompt",
      "where is the context?",
      "prompt seen: where is the context?",
    ].map((s) => user.indexOf(s));
    assert.ok(prefix! >= 0 && prefix! < prompt! && prompt! < suffix!, `prompt_prefix, prompt, prompt_suffix: ${user}`);
    assert.ok(
      req.tools.some((x) => x.function.name === "probe_echo"),
      "the extension's tool is offered",
    );
    assert.doesNotMatch(readFileSync(t.session.path, "utf8"), /probe extension is watching|from before_prompt/);
  } finally {
    await t.done();
  }
});

test("HOOK-06: a before_tool_call deny reaches the model as an error result and the tool never runs", async () => {
  const t = await setup([
    { tool_calls: [{ name: "probe_echo", arguments: { text: "forbidden words" } }] },
    { text: "It was denied." },
  ]);
  try {
    const r = await t.agent.prompt("echo something forbidden");
    assert.equal(r.outcome, "completed");
    const result = t.events.find((e) => e.type === "tool_result");
    assert.ok(result && result.type === "tool_result");
    assert.equal(result.is_error, true);
    assert.match(result.text, /denied by extension agent-probe: the probe forbids this call/);
    const req = t.server.requests[1] as { messages: { role: string; content: unknown }[] };
    assert.match(JSON.stringify(req.messages.find((m) => m.role === "tool")), /the probe forbids this call/);
    assert.ok(!tags(t.probe.log()).includes("tool:probe_echo"));
  } finally {
    await t.done();
  }
});

test("HOOK-06: a before_prompt deny commits nothing and sends no request", async () => {
  const t = await setup([{ text: "never" }]);
  try {
    const r = await t.agent.prompt("DENY-PROMPT please");
    assert.equal(r.outcome, "denied");
    assert.match(r.error ?? "", /the probe denies this prompt/);
    assert.equal(t.server.requests.length, 0);
    assert.equal(t.session.entries().length, 0);
    assert.ok(t.events.some((e) => e.type === "prompt_denied"));
  } finally {
    await t.done();
  }
});

test("HOOK-07, LIFE-08: after a provider failure after_response is not run and turn/settled says failed", async () => {
  const t = await setup([{ error: { status: 500, message: "upstream exploded" } }]);
  try {
    const r = await t.agent.prompt("fail please");
    assert.equal(r.outcome, "failed");
    await until(() => tags(t.probe.log()).includes("lifecycle:turn/settled"), "turn/settled at the probe");
    const log = t.probe.log();
    assert.ok(!tags(log).includes("hook:after_response"));
    const settled = log.find((x) => x.event === "turn/settled")!;
    assert.equal(settled.params!["outcome"], "failed");
    assert.equal(typeof settled.params!["reason"], "string");
  } finally {
    await t.done();
  }
});

test("issue 15.3: cancelling during an extension's tool call cancels the call; the result is committed", async () => {
  const t = await setup([{ tool_calls: [{ name: "probe_slow", arguments: { ms: 60000 } }] }]);
  try {
    const running = t.agent.prompt("be slow");
    await until(() => tags(t.probe.log()).includes("tool:probe_slow"), "the slow tool to start");
    t.agent.abort();
    const r = await running;
    assert.equal(r.outcome, "cancelled");
    await until(() => tags(t.probe.log()).includes("tool_cancelled"), "the tool to see the cancellation");
    const last = t.session.entries().at(-1);
    assert.ok(last && last.type === "message" && last.message.role === "toolResult");
    assert.equal(last.message.role === "toolResult" && last.message.isError, true);
    await until(() => tags(t.probe.log()).includes("lifecycle:turn/settled"), "turn/settled");
    const log = t.probe.log();
    assert.equal(log.find((x) => x.event === "tool/settled")!.params!["outcome"], "cancelled");
    assert.equal(log.find((x) => x.event === "turn/settled")!.params!["outcome"], "cancelled");
  } finally {
    await t.done();
  }
});

test("LIFE-11: closing the agent while a tool runs settles the run first, then the session", async () => {
  const t = await setup([{ tool_calls: [{ name: "probe_slow", arguments: { ms: 60000 } }] }]);
  try {
    const running = t.agent.prompt("be slow");
    await until(() => tags(t.probe.log()).includes("tool:probe_slow"), "the slow tool to start");
    await t.agent.close();
    assert.equal((await running).outcome, "cancelled");
    const last = t.session.entries().at(-1);
    assert.ok(last && last.type === "message" && last.message.role === "toolResult", "the call kept its result");
    await until(() => tags(t.probe.log()).includes("lifecycle:session/settled"), "session/settled");
    const order = tags(t.probe.log()).filter((x) => x.startsWith("lifecycle:"));
    assert.ok(
      order.indexOf("lifecycle:turn/settled") < order.indexOf("lifecycle:session/settled"),
      `turn/settled before session/settled: ${order.join(", ")}`,
    );
  } finally {
    await t.done();
  }
});
