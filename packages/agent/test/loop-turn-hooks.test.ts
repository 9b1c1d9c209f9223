// model_turn_start / model_turn_end (W 1.4b, TURN-01..14) and session_entries (W 2.21) through a
// real host, real extensions (tests/fixtures/turn-probe and agent-probe, the TypeScript SDK in
// their own processes), the agent's SessionFile and the scripted model server over HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { Agent, SessionFile, sessionEntriesService, type AgentEvent } from "../src/index.js";
import {
  entriesOnDisk,
  readJsonl,
  ROOT,
  probeExtension,
  scriptedHome,
  scriptedModel,
  scriptedServer,
  tempWorkspace,
  type ScriptStep,
} from "./support/harness.js";

interface TurnRecord {
  ext: string;
  what: "hook" | "tool";
  hook?: string;
  payload?: Record<string, any>;
  entry_id?: string | null;
}

/** Copies of the turn probe named `names` in one folder, each with its mode.json. */
function turnProbes(probes: { name: string; mode?: Record<string, unknown>; python?: boolean }[]): {
  dir: string;
  log(): TurnRecord[];
} {
  const dir = mkdtempSync(join(tmpdir(), "octet-turn-ext-"));
  for (const p of probes) {
    const ext = join(dir, p.name);
    if (p.python) {
      // The Python probe runs this checkout's SDK, named by an absolute path from the copy.
      cpSync(join(ROOT, "tests/fixtures/turn-probe-py"), ext, { recursive: true });
      const toml = join(ext, "extension.toml");
      writeFileSync(toml, readFileSync(toml, "utf8").replace("../../../sdk/python", join(ROOT, "sdk/python")));
      continue;
    }
    cpSync(join(ROOT, "tests/fixtures/turn-probe"), ext, { recursive: true });
    const toml = join(ext, "extension.toml");
    // One tool name has one owner: only the first probe publishes turn_note.
    let text = readFileSync(toml, "utf8").replace('name = "turn-probe"', `name = "${p.name}"`);
    if (p !== probes[0]) text = text.replace('tools = ["turn_note"]', "tools = []");
    writeFileSync(toml, text);
    if (p !== probes[0]) p.mode = { ...p.mode, notool: true };
    writeFileSync(join(ext, "mode.json"), JSON.stringify(p.mode ?? {}));
    mkdirSync(join(ext, "node_modules/@octet"), { recursive: true });
    symlinkSync(join(ROOT, "sdk/typescript"), join(ext, "node_modules/@octet/extension"));
  }
  const file = join(dir, "turn.log");
  return { dir, log: () => readJsonl<TurnRecord>(file) };
}

async function setup(
  script: ScriptStep[],
  probes: { name: string; mode?: Record<string, unknown>; python?: boolean }[],
  o: { bind?: boolean; extraDirs?: string[]; enable?: string[]; maxRetries?: number } = {},
) {
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url);
  const workspace = tempWorkspace();
  const exts = turnProbes(probes);
  let agent: Agent | null = null;
  const host = await ExtensionHost.start({
    workspace,
    octetHome: home,
    extensionDirs: [exts.dir, ...(o.extraDirs ?? [])],
    enable: [...probes.map((p) => p.name), ...(o.enable ?? [])],
    reservedToolNames: ["read", "write", "edit", "bash"],
    ...(o.bind === false ? {} : { services: { sessionEntries: sessionEntriesService(() => agent) } }),
  });
  const notReady = host.status().filter((s) => probes.some((p) => p.name === s.name) && s.state !== "ready");
  if (notReady.length > 0) {
    await host.shutdown();
    await server.close();
    assert.fail(`not ready: ${notReady.map((s) => `${s.name} ${s.state} ${s.parkedReason ?? ""}`).join(", ")}`);
  }
  const session = await SessionFile.create({ home, workspace });
  agent = new Agent({ session, model: await scriptedModel(home), host, maxRetries: o.maxRetries ?? 0 });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  const a = agent;
  const done = async (): Promise<void> => {
    await a.close();
    await host.shutdown();
    await server.close();
  };
  return { server, host, session, agent: a, events, log: exts.log, done };
}

const hooksOf = (log: TurnRecord[]): TurnRecord[] => log.filter((x) => x.what === "hook");

const TWO_TURNS: ScriptStep[] = [
  { tool_calls: [{ name: "turn_note", arguments: { data: { n: 1 } }, id: "call_1" }] },
  { text: "Done." },
];

test("TURN-02, TURN-03, TURN-05, TURN-06: start and end payloads carry the real ids, parents and content", async () => {
  const t = await setup(TWO_TURNS, [{ name: "turn-probe" }]);
  try {
    const r = await t.agent.prompt("take a note");
    assert.equal(r.outcome, "completed", String(r.error));
    const hooks = t.log().filter((x) => x.what === "hook");
    assert.deepEqual(
      hooks.map((h) => `${h.hook}:${h.payload!["turn_index"]}`),
      ["model_turn_start:0", "model_turn_end:0", "model_turn_start:1", "model_turn_end:1"],
    );
    const disk = entriesOnDisk(t.session.path);
    const user = disk.find((e) => e.type === "message" && e.message.role === "user")!;
    const runId = `run:${user.id}`;
    for (const h of hooks) {
      assert.equal(h.payload!["run_id"], runId);
      assert.equal(h.payload!["kind"], h.hook);
      assert.equal(typeof h.payload!["timestamp_ms"], "number");
    }
    assert.deepEqual(Object.keys(hooks[0]!.payload!).sort(), ["kind", "run_id", "timestamp_ms", "turn_index"]);
    const byId = new Map(disk.map((e) => [e.id, e]));
    const end0 = hooks[1]!.payload!;
    const assistant = byId.get(end0["assistant_entry"].id)!;
    assert.ok(assistant.type === "message" && assistant.message.role === "assistant");
    assert.deepEqual(end0["assistant_entry"], {
      id: assistant.id,
      parent: assistant.parent_id,
      timestamp_unix_ms: assistant.timestamp_unix_ms,
      value: {
        type: "message",
        Assistant: {
          content: [{ ToolCall: { id: "call_1", name: "turn_note", arguments: { data: { n: 1 } } } }],
          model: "scripted-model",
          protocol: "open_ai_chat",
        },
      },
    });
    // TURN-05: the tool result is committed before end, and end names it with its real id and parent.
    const results = end0["tool_result_entries"] as any[];
    assert.equal(results.length, 1);
    const result = byId.get(results[0].id)!;
    assert.ok(result.type === "message" && result.message.role === "toolResult");
    assert.equal(results[0].parent, result.parent_id);
    const noted = t.log().find((x) => x.what === "tool")!.entry_id!;
    assert.deepEqual(results[0].value, {
      type: "message",
      User: {
        content: [{ ToolResult: { tool_call_id: "call_1", content: [{ Text: `noted ${noted}` }], is_error: false } }],
      },
    });
    const end1 = hooks[3]!.payload!;
    assert.deepEqual(end1["assistant_entry"].value.Assistant.content, [{ Text: "Done." }]);
    assert.deepEqual(end1["tool_result_entries"], []);
    // TURN-07: nothing invented: no usage or stop reason in the projection.
    assert.doesNotMatch(JSON.stringify(hooks.map((h) => h.payload)), /usage|stopReason|stop_reason/);
  } finally {
    await t.done();
  }
});

test("TURN-04, TURN-08: one start per turn before its request; hook appends are real durable entries", async () => {
  const t = await setup(TWO_TURNS, [{ name: "turn-probe", mode: { append: ["model_turn_start", "model_turn_end"] } }]);
  try {
    const r = await t.agent.prompt("take a note");
    assert.equal(r.outcome, "completed", String(r.error));
    assert.equal(t.server.requests.length, 2);
    const hooks = t.log().filter((x) => x.what === "hook");
    assert.equal(hooks.filter((h) => h.hook === "model_turn_start").length, 2);
    const disk = entriesOnDisk(t.session.path);
    const kinds = disk.map((e) =>
      e.type === "message"
        ? e.message.role
        : e.type === "custom" && e.entry_type === "turn-note"
          ? `custom:${String((e.data as any).hook)}`
          : e.type,
    );
    assert.deepEqual(kinds, [
      "user",
      "custom:model_turn_start",
      "assistant",
      "custom", // the tool's own note (its data has no hook)
      "toolResult",
      "custom:model_turn_end",
      "custom:model_turn_start",
      "assistant",
      "custom:model_turn_end",
    ]);
    // Every id the hook got back is an entry in the file, written by this extension, in the tree.
    for (const h of hooks) {
      const e = disk.find((x) => x.id === h.entry_id);
      assert.ok(e && e.type === "custom", `entry ${h.entry_id} is in the session file`);
      assert.equal(e.extension, "turn-probe");
      assert.equal(e.entry_type, "turn-note");
      assert.deepEqual(e.data, { hook: h.hook, turn_index: h.payload!["turn_index"] });
    }
    // The custom entries are never sent to the model.
    assert.doesNotMatch(JSON.stringify(t.server.requests), /turn-note|model_turn_start/);
  } finally {
    await t.done();
  }
});

test("TURN-12: two extensions are called in registration order, each awaited", async () => {
  const t = await setup(
    [{ text: "Hi." }],
    [
      { name: "turn-a", mode: { append: ["model_turn_start"] } },
      { name: "turn-b", mode: { append: ["model_turn_start"] } },
    ],
  );
  try {
    const r = await t.agent.prompt("hello");
    assert.equal(r.outcome, "completed", String(r.error));
    assert.deepEqual(
      hooksOf(t.log()).map((x) => `${x.ext}:${x.hook}`),
      ["turn-a:model_turn_start", "turn-b:model_turn_start", "turn-a:model_turn_end", "turn-b:model_turn_end"],
    );
    // Awaited one after the other: a's entry is committed before b's, both before the answer.
    const disk = entriesOnDisk(t.session.path).map((e) => (e.type === "custom" ? e.extension : e.type));
    assert.deepEqual(disk, ["message", "turn-a", "turn-b", "message"]);
  } finally {
    await t.done();
  }
});

for (const answer of ["deny", "context", "cancel", "throw"] as const) {
  test(`TURN-11, TURN-12, TURN-13: end answering ${answer} fails the run naming the extension`, async () => {
    const t = await setup(TWO_TURNS, [
      { name: "turn-probe", mode: { append: ["model_turn_end"], answer: { model_turn_end: answer } } },
    ]);
    try {
      const r = await t.agent.prompt("take a note");
      assert.equal(r.outcome, "failed");
      assert.match(String(r.error), /model_turn_end of extension turn-probe failed/);
      const why = {
        deny: /deny is refused/,
        context: /may contribute no prompt context/,
        cancel: /"cancel" is refused/,
      };
      if (answer !== "throw") assert.match(String(r.error), why[answer]);
      // Stopped at the first end: no second request, no retry, no second end (TURN-13).
      assert.equal(t.server.requests.length, 1);
      assert.deepEqual(
        hooksOf(t.log()).map((x) => x.hook),
        ["model_turn_start", "model_turn_end"],
      );
      // The committed assistant, tool result and the hook's own entry stay (TURN-12).
      const disk = entriesOnDisk(t.session.path);
      const appended = hooksOf(t.log())[1]!.entry_id!;
      assert.ok(disk.some((e) => e.id === appended));
      assert.deepEqual(
        disk.filter((e) => e.type === "message").map((e) => (e.type === "message" ? e.message.role : "")),
        ["user", "assistant", "toolResult"],
      );
      const end = t.events.find((e) => e.type === "run_end");
      assert.ok(end && end.type === "run_end" && end.outcome === "failed");
    } finally {
      await t.done();
    }
  });
}

test("TURN-01: no hook without session_entries bound, and none to an API 0.2 extension", async () => {
  const legacy = probeExtension();
  const t = await setup([{ text: "Hi." }], [{ name: "turn-probe" }], {
    bind: false,
    extraDirs: [legacy.dir],
    enable: ["agent-probe"],
  });
  try {
    const r = await t.agent.prompt("hello");
    assert.equal(r.outcome, "completed", String(r.error));
    assert.deepEqual(t.log(), [], "session_entries not negotiated: no model-turn hook");
    assert.ok(!legacy.log().some((x) => x.what === "hook" && String(x.hook).startsWith("model_turn")));
  } finally {
    await t.done();
  }
});

test("WAVE1-27, WAVE1-28: a tool appends, names and labels through the session writer", async () => {
  const t = await setup(
    [
      {
        tool_calls: [{ name: "turn_note", arguments: { data: { k: [1, "two"] }, name: "my session", label: "keep" } }],
      },
      { text: "ok" },
    ],
    [{ name: "turn-probe" }],
  );
  try {
    const r = await t.agent.prompt("note it");
    assert.equal(r.outcome, "completed", String(r.error));
    const id = t.log().find((x) => x.what === "tool")!.entry_id!;
    const disk = entriesOnDisk(t.session.path);
    const e = disk.find((x) => x.id === id);
    assert.ok(e && e.type === "custom");
    assert.deepEqual(e.data, { k: [1, "two"] });
    assert.equal(e.extension, "turn-probe");
    assert.ok(disk.some((x) => x.type === "session_info" && x.name === "my session"));
    assert.ok(disk.some((x) => x.type === "label" && x.target_id === id && x.label === "keep"));
    assert.equal(t.session.name(), "my session");
    assert.equal(t.session.labels().get(id), "keep");
  } finally {
    await t.done();
  }
});

test("WAVE1-29, WAVE1-18: 64 KiB of data is written; one byte more is refused by the SDK, unsent", async () => {
  const t = await setup(
    [
      {
        tool_calls: [
          { name: "turn_note", arguments: { size: 65_536 }, id: "call_fit" },
          { name: "turn_note", arguments: { size: 65_537 }, id: "call_past" },
        ],
      },
      { text: "ok" },
    ],
    [{ name: "turn-probe" }],
  );
  try {
    const r = await t.agent.prompt("two notes");
    assert.equal(r.outcome, "completed", String(r.error));
    const disk = entriesOnDisk(t.session.path);
    const notes = disk.filter((e) => e.type === "custom");
    assert.equal(notes.length, 1, "only the note within the bound is written");
    assert.equal(JSON.stringify(notes[0]!.type === "custom" ? notes[0]!.data : null).length, 65_536);
    const past = t.events.find((e) => e.type === "tool_result" && e.tool_call_id === "call_past");
    assert.ok(past && past.type === "tool_result" && past.is_error);
    assert.match(past.text, /bounds_exceeded session\.appendEntry\(\): data: .*over the 65536-byte limit/);
  } finally {
    await t.done();
  }
});

test("TURN-14: an end payload over the frame bound fails the run; nothing is cut", async () => {
  const big = "y".repeat(1_100_000);
  const t = await setup([{ text: big }], [{ name: "turn-probe" }]);
  try {
    const r = await t.agent.prompt("say a lot");
    assert.equal(r.outcome, "failed");
    assert.match(String(r.error), /model_turn_end of extension turn-probe failed: .*(frame|bytes)/);
    assert.deepEqual(
      hooksOf(t.log()).map((x) => x.hook),
      ["model_turn_start"],
      "the end was never delivered, neither whole nor cut",
    );
    // The committed answer stays in the session, whole.
    const disk = entriesOnDisk(t.session.path);
    assert.ok(disk.some((e) => e.type === "message" && JSON.stringify(e.message).includes(big)));
  } finally {
    await t.done();
  }
});

test("W 2.21: before the agent exists the service refuses with -32002, saying why", async () => {
  const service = sessionEntriesService(() => null);
  const who = {
    extension: "x",
    owner: { session_id: "s", extension_instance_id: "i", process_generation: 1 },
    signal: new AbortController().signal,
  };
  await assert.rejects(service.append({ ...who, entry_type: "t", data: 1 }), (err: any) => {
    assert.equal(err.code, -32002);
    assert.match(err.message, /^not_foreground_owner session\/append_entry refused: no agent session is open/);
    return true;
  });
});

test("TURN-08 (Python SDK): ctx.session appends from both hooks; an over-long entry_type is refused", async () => {
  const t = await setup([{ text: "Hi." }], [{ name: "turn-probe-py", python: true }]);
  try {
    const r = await t.agent.prompt("hello");
    assert.equal(r.outcome, "completed", String(r.error));
    const hooks = hooksOf(t.log()) as (TurnRecord & { refused: string | null })[];
    assert.deepEqual(
      hooks.map((h) => h.hook),
      ["model_turn_start", "model_turn_end"],
    );
    const disk = entriesOnDisk(t.session.path);
    for (const h of hooks) {
      assert.match(String(h.refused), /^bounds_exceeded session\.append_entry\(\): entry_type: 129 bytes/);
      const e = disk.find((x) => x.id === h.entry_id);
      assert.ok(e && e.type === "custom" && e.extension === "turn-probe-py" && e.entry_type === "py-note");
    }
    assert.equal(disk.filter((e) => e.type === "custom").length, 2, "the refused one was never written");
  } finally {
    await t.done();
  }
});
