// session/send_message, session/send_user_message, tools/set_active and message/updated (W 2.22,
// W 2.23, W 1.11) through a real host, a real extension (tests/fixtures/inject-probe, the
// TypeScript SDK in its own process), the agent's SessionFile and the scripted model over HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost } from "@octet/host";
import {
  Agent,
  MAX_QUEUED_USER_MESSAGES,
  SessionFile,
  activeToolsService,
  messageInjectionService,
  type AgentEvent,
} from "../src/index.js";
import {
  expectReady,
  entriesOnDisk,
  fixtureExtension,
  scriptedHome,
  scriptedModel,
  scriptedServer,
  tempWorkspace,
  until,
  type ScriptStep,
} from "./support/harness.js";

interface InjectRecord {
  what: "sent" | "updated" | "settled";
  tool?: string;
  results?: string[];
  message_id?: string;
  delta?: string;
  deltas?: number;
}

function injectProbe(python: boolean): { dir: string; log(): InjectRecord[] } {
  return fixtureExtension<InjectRecord>(python ? "inject-probe-py" : "inject-probe", "inject.log", { python });
}

async function setup(script: ScriptStep[], python = false, bind = true) {
  const name = python ? "inject-probe-py" : "inject-probe";
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url);
  const workspace = tempWorkspace();
  const probe = injectProbe(python);
  let agent: Agent | null = null;
  const host = await ExtensionHost.start({
    workspace,
    octetHome: home,
    extensionDirs: [probe.dir],
    enable: [name],
    reservedToolNames: ["read", "write", "edit", "bash"],
    services: bind
      ? { messageInjection: messageInjectionService(() => agent), activeTools: activeToolsService(() => agent) }
      : {},
  });
  await expectReady(host, name, () => server.close());
  const session = await SessionFile.create({ home, workspace });
  agent = new Agent({ session, model: await scriptedModel(home), host, maxRetries: 0 });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  const a = agent;
  const done = async (): Promise<void> => {
    await a.close();
    await host.shutdown();
    await server.close();
  };
  return { server, host, session, agent: a, events, log: probe.log, done };
}

const sentBy = (log: InjectRecord[], tool: string): string[] =>
  log.filter((r) => r.what === "sent" && r.tool === tool).flatMap((r) => r.results ?? []);

const call = (name: string, args: Record<string, unknown>, id = "call_1"): ScriptStep => ({
  tool_calls: [{ name, arguments: args, id }],
});

const MAX_TEXT = 262_144;

test("WAVE1-32, WAVE1-34: a 256 KiB system message is committed after the tool result, in context", async () => {
  const t = await setup([
    call("inject_message", { role: "system", size: MAX_TEXT }),
    call("inject_message", { role: "assistant", text: "from the probe" }, "call_2"),
    { text: "Done." },
  ]);
  try {
    const r = await t.agent.prompt("inject");
    assert.equal(r.outcome, "completed", String(r.error));
    assert.deepEqual(sentBy(t.log(), "inject_message"), ["ok", "ok"]);
    const disk = entriesOnDisk(t.session.path);
    const kinds = disk.map((e) => (e.type === "message" ? e.message.role : `${e.type}:${(e as any).role}`));
    // Held while the tool ran, committed before the next request: never between a call and its result.
    assert.deepEqual(kinds, [
      "user",
      "assistant",
      "toolResult",
      "custom_message:system",
      "assistant",
      "toolResult",
      "custom_message:assistant",
      "assistant",
    ]);
    const injected = disk.filter((e) => e.type === "custom_message") as any[];
    assert.equal(injected[0].content.length, MAX_TEXT);
    assert.equal(injected[0].extension, "inject-probe");
    assert.equal(injected[1].content, "from the probe");
    // The next request carries it (as user text, the way custom messages reach the model).
    const second = t.server.requests[1]!["messages"] as { role: string; content: unknown }[];
    assert.ok(JSON.stringify(second.at(-1)).includes("m".repeat(1000)), "the injected text is in the request");
    const third = t.server.requests[2]!["messages"] as { role: string; content: unknown }[];
    assert.ok(JSON.stringify(third).includes("from the probe"));
  } finally {
    await t.done();
  }
});

test("WAVE1-33, WAVE1-34: role user or another, or text over 256 KiB, is refused before sending", async () => {
  const t = await setup([
    call("inject_message", { role: "system", size: MAX_TEXT + 1 }),
    call("inject_message", { role: "user", text: "x" }, "call_2"),
    call("inject_message", { role: "tool", text: "x" }, "call_3"),
    { text: "Done." },
  ]);
  try {
    const r = await t.agent.prompt("inject");
    assert.equal(r.outcome, "completed", String(r.error));
    const [big, user, other] = sentBy(t.log(), "inject_message");
    assert.match(big!, /^refused: bounds_exceeded session\.sendMessage\(\): text: 262145 bytes, over the 262144-byte/);
    assert.match(user!, /^refused: invalid_request session\.sendMessage\(\): role: "user" is not one of/);
    assert.match(other!, /^refused: invalid_request .*role: "tool" is not one of "assistant", "system"/);
    assert.equal(entriesOnDisk(t.session.path).filter((e) => e.type === "custom_message").length, 0);
  } finally {
    await t.done();
  }
});

test("WAVE1-32: a user message sent in a run is answered at once, queued, run right after", async () => {
  const t = await setup([
    { match: "first", ...call("inject_user", { text: "second prompt" }) },
    { match: "first", text: "first done" },
    { match: "second prompt", text: "second done" },
  ]);
  try {
    const r = await t.agent.prompt("first");
    assert.equal(r.outcome, "completed", String(r.error));
    // The tool got its answer while its own run was still going: admission, not the queued run's end.
    assert.deepEqual(sentBy(t.log(), "inject_user"), ["ok"]);
    await until(() => t.events.filter((e) => e.type === "run_end").length === 2, "the queued run");
    const runs = t.events.filter((e) => e.type === "run_start" || e.type === "run_end");
    assert.deepEqual(
      runs.map((e) => (e.type === "run_start" ? `start:${e.prompt}` : `end:${e.outcome}:${e.text}`)),
      ["start:first", "end:completed:first done", "start:second prompt", "end:completed:second done"],
    );
    const users = entriesOnDisk(t.session.path).filter((e) => e.type === "message" && e.message.role === "user");
    assert.deepEqual(
      users.map((e) => (e as any).message.content),
      ["first", "second prompt"],
    );
  } finally {
    await t.done();
  }
});

test("WAVE1-32: a user message sent while the agent is idle starts a run (from a command)", async () => {
  const t = await setup([{ match: "idle prompt", text: "idle answer" }]);
  try {
    const outcome = await t.host.runCommand("inject", ["idle", "prompt"]);
    assert.equal(outcome.text, "inject: ok");
    await until(() => t.events.some((e) => e.type === "run_end"), "the run it started");
    const end = t.events.find((e) => e.type === "run_end");
    assert.ok(end?.type === "run_end" && end.text === "idle answer" && end.outcome === "completed");
  } finally {
    await t.done();
  }
});

test(`WAVE1-32: ${MAX_QUEUED_USER_MESSAGES} user messages queue behind a run; one more is -32012`, async () => {
  const t = await setup([call("inject_user", { text: "queued", count: MAX_QUEUED_USER_MESSAGES + 1 }), { text: "ok" }]);
  try {
    const r = await t.agent.prompt("fill the queue");
    assert.equal(r.outcome, "completed", String(r.error));
    const results = sentBy(t.log(), "inject_user");
    assert.equal(results.length, MAX_QUEUED_USER_MESSAGES + 1);
    assert.deepEqual(results.slice(0, MAX_QUEUED_USER_MESSAGES), Array(MAX_QUEUED_USER_MESSAGES).fill("ok"));
    assert.match(results.at(-1)!, /^refused: .*queue_full session\/send_user_message refused: 16 user messages/);
  } finally {
    await t.done();
  }
});

test("WAVE1-35, WAVE1-37: set_active is the next request's whole tool set; an unknown name is refused", async () => {
  const t = await setup([
    call("set_active", { names: ["probe_note", "read", "set_active"] }),
    call("set_active", { names: ["probe_note", "no_such_tool"] }, "call_2"),
    call("set_active", { names: [] }, "call_3"),
    call("probe_note", {}, "call_4"),
    { text: "Done." },
  ]);
  try {
    const r = await t.agent.prompt("narrow the tools");
    assert.equal(r.outcome, "completed", String(r.error));
    const [first, unknown, empty] = sentBy(t.log(), "set_active");
    assert.equal(first, "ok");
    assert.match(unknown!, /^refused: .*invalid_request tools\/set_active: no tool is named "no_such_tool"/);
    assert.equal(empty, "ok");
    const toolsOf = (i: number): string[] =>
      ((t.server.requests[i]!["tools"] ?? []) as { function: { name: string } }[]).map((x) => x.function.name);
    assert.ok(toolsOf(0).includes("set_active") && toolsOf(0).includes("bash"), "every tool before");
    assert.deepEqual(toolsOf(1).sort(), ["probe_note", "read", "set_active"]);
    assert.deepEqual(toolsOf(2).sort(), ["probe_note", "read", "set_active"], "a refused set changes nothing");
    assert.deepEqual(toolsOf(3), [], "an empty set offers no tool");
    // A tool the request did not offer is not run when the model names it anyway.
    const result = t.events.find((e) => e.type === "tool_result" && e.tool_call_id === "call_4");
    assert.ok(result?.type === "tool_result" && result.is_error);
    assert.equal(result.text, "not run: probe_note is not in the active tool set");
    assert.equal(sentBy(t.log(), "probe_note").length, 0);
    assert.deepEqual(t.agent.activeTools, []);
  } finally {
    await t.done();
  }
});

test("WAVE1-36: 257 names or a name of 129 bytes are refused by the SDK before sending (bounds_exceeded)", async () => {
  const t = await setup([
    call("set_active", { count: 257 }),
    call("set_active", { long: 129 }, "call_2"),
    call("set_active", { count: 256 }, "call_3"),
    { text: "Done." },
  ]);
  try {
    const r = await t.agent.prompt("bounds");
    assert.equal(r.outcome, "completed", String(r.error));
    const [many, long, atBound] = sentBy(t.log(), "set_active");
    assert.match(many!, /^refused: bounds_exceeded tools\.setActive\(\): names: 257 names, over the 256-name limit/);
    assert.match(long!, /^refused: bounds_exceeded .*names\[0\]: 129 bytes, over the 128-byte limit/);
    // 256 names pass the bounds and reach the host; the agent knows none of them.
    assert.match(atBound!, /^refused: .*invalid_request tools\/set_active: no tool is named "t0"/);
    assert.equal(t.agent.activeTools, null);
  } finally {
    await t.done();
  }
});

test("WAVE1-04, WAVE1-05, WAVE1-07: the model's text comes in coalesced batches, then settled", async () => {
  const small = Array.from({ length: 200 }, (_, i) => `${i % 10}`);
  const big = Array.from({ length: 12 }, (_, i) => String.fromCharCode(97 + i).repeat(1000));
  const t = await setup([
    { match: "small", chunks: small },
    { match: "big", chunks: big },
  ]);
  try {
    for (const prompt of ["small", "big"]) {
      const r = await t.agent.prompt(prompt);
      assert.equal(r.outcome, "completed", String(r.error));
    }
    await until(() => t.log().filter((x) => x.what === "settled").length === 2, "both messages settled");
    const log = t.log().filter((x) => x.what === "updated" || x.what === "settled");
    const ids = [...new Set(log.map((x) => x.message_id!))];
    assert.equal(ids.length, 2);
    for (const [id, chunks] of [
      [ids[0]!, small],
      [ids[1]!, big],
    ] as const) {
      const mine = log.filter((x) => x.message_id === id);
      const batches = mine.filter((x) => x.what === "updated");
      assert.equal(mine.at(-1)!.what, "settled", "settled after the last batch");
      assert.equal(mine.filter((x) => x.what === "settled").length, 1);
      assert.equal(batches.map((b) => b.delta).join(""), chunks.join(""), "every delta once, in order");
      assert.equal(
        batches.reduce((n, b) => n + b.deltas!, 0),
        chunks.length,
        "deltas count the text deltas",
      );
      for (const b of batches) {
        assert.ok(b.deltas! <= 64, `a batch of ${b.deltas} deltas`);
        assert.ok(Buffer.byteLength(b.delta!) <= 4096, `a batch of ${Buffer.byteLength(b.delta!)} bytes`);
      }
      assert.ok(batches.length < chunks.length, `${batches.length} frames for ${chunks.length} deltas`);
    }
    // 12 000 bytes cannot fit in fewer than three 4096-byte batches; 200 deltas in fewer than four.
    assert.ok(log.filter((x) => x.what === "updated" && x.message_id === ids[1]).length >= 3);
    assert.ok(log.filter((x) => x.what === "updated" && x.message_id === ids[0]).length >= 4);
  } finally {
    await t.done();
  }
});

test("WAVE1-32..36, WAVE1-04: the Python SDK injects, queues, sets the active tools and receives batches", async () => {
  const text = "py ".repeat(100);
  const t = await setup(
    [
      {
        match: "python",
        ...call("py_inject", { role: "assistant", text: "from python", user: "py user message", names: ["py_inject"] }),
      },
      { match: "python", ...call("py_inject", { size: MAX_TEXT + 1 }, "call_2") },
      { match: "python", text },
      { match: "py user message", text: "py done" },
    ],
    true,
  );
  try {
    const r = await t.agent.prompt("python");
    assert.equal(r.outcome, "completed", String(r.error));
    const results = sentBy(t.log(), "py_inject");
    assert.deepEqual(results.slice(0, 3), ["ok", "ok", "ok"]);
    assert.match(results[3]!, /^refused: bounds_exceeded session\.send_message\(\): text: 262145 bytes/);
    const injected = entriesOnDisk(t.session.path).filter((e) => e.type === "custom_message") as any[];
    assert.deepEqual(
      injected.map((e) => [e.role, e.content, e.extension]),
      [["assistant", "from python", "inject-probe-py"]],
    );
    const toolsOf = (i: number): string[] =>
      ((t.server.requests[i]!["tools"] ?? []) as { function: { name: string } }[]).map((x) => x.function.name);
    assert.deepEqual(toolsOf(1), ["py_inject"]);
    await until(() => t.events.filter((e) => e.type === "run_end").length === 2, "the queued run");
    await until(() => t.log().filter((x) => x.what === "settled").length === 2, "both messages with text settled");
    const end = t.events.filter((e) => e.type === "run_end").at(-1);
    assert.ok(end?.type === "run_end" && end.text === "py done");
    // The extension logs each notification as its handler runs; under load the last batch's line
    // may land just after the settled one's, so the joined text is awaited, not read once.
    const joined = (): string =>
      t
        .log()
        .filter((x) => x.what === "updated")
        .map((b) => b.delta)
        .join("");
    await until(() => joined() === `${text}py done`, "every batch logged", 5_000).catch(() => undefined);
    assert.equal(joined(), `${text}py done`);
  } finally {
    await t.done();
  }
});

test("WAVE1-01, WAVE1-37: unbound services are not offered: no batches, the helpers refuse", async () => {
  const t = await setup(
    [
      call("inject_message", { role: "system", text: "x" }),
      call("set_active", { names: ["read"] }, "call_2"),
      { chunks: ["a", "b", "c"] },
    ],
    false,
    false,
  );
  try {
    const r = await t.agent.prompt("unbound");
    assert.equal(r.outcome, "completed", String(r.error));
    assert.match(sentBy(t.log(), "inject_message")[0]!, /^refused: .*needs the message_injection feature/);
    assert.match(sentBy(t.log(), "set_active")[0]!, /^refused: .*needs the active_tools feature/);
    assert.equal(t.log().filter((x) => x.what === "updated" || x.what === "settled").length, 0);
    assert.equal(t.agent.activeTools, null);
  } finally {
    await t.done();
  }
});
