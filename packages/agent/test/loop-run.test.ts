// The turn loop without extensions, through pi-ai's real HTTP client against the scripted
// OpenAI-compatible server: streaming, durable entries, built-in tools and their gate, the turn
// limit, provider failures and cancellation (issue 15.3, 15.4).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Agent, SessionFile, ToolApproval, type AgentEvent } from "../src/index.js";
import {
  scriptedHome,
  scriptedModel,
  scriptedServer,
  tempWorkspace,
  until,
  type ScriptStep,
} from "./support/harness.js";

async function setup(script: ScriptStep[], o: { approval?: ToolApproval; maxTurns?: number } = {}) {
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url);
  const workspace = tempWorkspace();
  const session = await SessionFile.create({ home, workspace });
  const agent = new Agent({
    session,
    model: await scriptedModel(home),
    maxRetries: 0,
    ...(o.approval ? { approval: o.approval } : {}),
    ...(o.maxTurns ? { maxTurns: o.maxTurns } : {}),
  });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  const lines = (): Record<string, unknown>[] =>
    readFileSync(session.path, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const done = async (): Promise<void> => {
    await agent.close();
    await server.close();
  };
  return { server, home, workspace, session, agent, events, lines, done };
}

test("issue 15.3: a prompt streams its answer; the entries are on disk with usage and model", async () => {
  const t = await setup([{ text: "Hello from the scripted model, streamed in pieces.", usage: { prompt_tokens: 42 } }]);
  try {
    const r = await t.agent.prompt("say hello");
    assert.equal(r.outcome, "completed");
    assert.equal(r.text, "Hello from the scripted model, streamed in pieces.");
    const types = t.events.map((e) => e.type);
    assert.deepEqual(types[0], "run_start");
    assert.ok(types.filter((x) => x === "text_delta").length > 1, `several deltas: ${types.join(",")}`);
    assert.deepEqual(
      types.filter((x) => x !== "text_delta"),
      ["run_start", "turn_start", "turn_end", "run_end"],
    );
    const disk = t.lines();
    assert.equal(disk[0]!["type"], "session");
    const [user, assistant] = disk.slice(1) as { message: Record<string, unknown>; parent_id: unknown; id: string }[];
    assert.equal(user!.message["role"], "user");
    assert.equal(user!.message["content"], "say hello");
    assert.equal(assistant!.parent_id, user!.id);
    assert.equal(assistant!.message["role"], "assistant");
    assert.equal(assistant!.message["stopReason"], "stop");
    assert.equal(assistant!.message["model"], "scripted-model");
    assert.equal((assistant!.message["usage"] as { input: number }).input, 42);
    // The request: a system prompt naming the workspace, the prompt, the four built-in tools.
    const req = t.server.requests[0] as {
      messages: { role: string; content: unknown }[];
      tools: { function: { name: string } }[];
    };
    assert.match(JSON.stringify(req.messages[0]), new RegExp(t.workspace.replace(/[/.]/g, "\\$&")));
    assert.deepEqual(
      req.tools.map((x) => x.function.name),
      ["read", "write", "edit", "bash"],
    );
  } finally {
    await t.done();
  }
});

test("issue 15.4: the model reads a file with the built-in read and the next request carries the result", async () => {
  const t = await setup([
    { tool_calls: [{ name: "read", arguments: { path: "notes.txt" } }] },
    { text: "The notes say hello." },
  ]);
  try {
    writeFileSync(join(t.workspace, "notes.txt"), "first line\nhello notes\n");
    const r = await t.agent.prompt("what do the notes say?");
    assert.equal(r.outcome, "completed");
    assert.equal(r.turns, 2);
    const second = t.server.requests[1] as { messages: { role: string; content: unknown }[] };
    const toolMsg = second.messages.find((m) => m.role === "tool");
    assert.ok(toolMsg, "the tool result was sent");
    assert.match(JSON.stringify(toolMsg.content), /hello notes/);
    const results = t.events.filter((e) => e.type === "tool_result");
    assert.equal(results.length, 1);
    assert.equal(results[0]!.type === "tool_result" && results[0]!.is_error, false);
  } finally {
    await t.done();
  }
});

test("issue 15.4: a write under --no-input is refused, the model is told, no file is created", async () => {
  const t = await setup(
    [{ tool_calls: [{ name: "write", arguments: { path: "out.txt", content: "x" } }] }, { text: "I could not write." }],
    { approval: new ToolApproval({ yes: false, noInput: true }) },
  );
  try {
    const r = await t.agent.prompt("write out.txt");
    assert.equal(r.outcome, "completed");
    assert.equal(existsSync(join(t.workspace, "out.txt")), false);
    const result = t.events.find((e) => e.type === "tool_result");
    assert.ok(result && result.type === "tool_result");
    assert.equal(result.is_error, true);
    assert.match(result.text, /--yes|always|policy/);
    const second = t.server.requests[1] as { messages: { role: string; content: unknown }[] };
    assert.match(JSON.stringify(second.messages.find((m) => m.role === "tool")), /--yes|always|policy/);
  } finally {
    await t.done();
  }
});

test("issue 15.4: with approval (--yes) the write happens", async () => {
  const t = await setup(
    [{ tool_calls: [{ name: "write", arguments: { path: "out.txt", content: "written" } }] }, { text: "Done." }],
    { approval: new ToolApproval({ yes: true, noInput: false }) },
  );
  try {
    assert.equal((await t.agent.prompt("write out.txt")).outcome, "completed");
    assert.equal(readFileSync(join(t.workspace, "out.txt"), "utf8"), "written");
  } finally {
    await t.done();
  }
});

test("issue 15.3: the turn limit stops a run that keeps calling tools, every call paired with its result", async () => {
  const call = { tool_calls: [{ name: "read", arguments: { path: "missing.txt" } }] };
  const t = await setup([call, call, call], { maxTurns: 2 });
  try {
    const r = await t.agent.prompt("loop");
    assert.equal(r.outcome, "limit_reached");
    assert.match(r.error ?? "", /2 model requests/);
    assert.equal(t.server.requests.length, 2);
    const messages = t.lines().slice(1) as { message: { role: string } }[];
    assert.deepEqual(
      messages.map((e) => e.message.role),
      ["user", "assistant", "toolResult", "assistant", "toolResult"],
    );
  } finally {
    await t.done();
  }
});

test("issue 15.3: a provider error mid-stream fails the run; the session stays usable", async () => {
  const t = await setup([
    { text: "This answer will be cut off in the middle of its stream.", disconnect_after_chunks: 2 },
    { text: "Second try works." },
  ]);
  try {
    const r = await t.agent.prompt("first");
    assert.equal(r.outcome, "failed");
    assert.ok(r.error && r.error.length > 0);
    const failedEntry = t.lines().at(-1) as { message: { role: string; stopReason: string } };
    assert.equal(failedEntry.message.role, "assistant");
    assert.equal(failedEntry.message.stopReason, "error");
    const again = await t.agent.prompt("second");
    assert.equal(again.outcome, "completed");
    assert.equal(again.text, "Second try works.");
    // The failed answer is not replayed to the provider (pi-ai drops errored turns).
    const req = t.server.requests[1] as { messages: { role: string }[] };
    assert.deepEqual(
      req.messages.filter((m) => m.role !== "system").map((m) => m.role),
      ["user", "user"],
    );
  } finally {
    await t.done();
  }
});

test("issue 15.3: an authentication failure says so and leaves the session consistent", async () => {
  const t = await setup([{ error: { status: 401, message: "invalid api key" } }]);
  try {
    const r = await t.agent.prompt("hello");
    assert.equal(r.outcome, "failed");
    assert.match(r.error ?? "", /auth|401|key/i);
    assert.equal(t.lines().length, 3, "header, user entry, errored assistant entry");
  } finally {
    await t.done();
  }
});

test("issue 15.3: abort during streaming cancels the run; what was committed stays", async () => {
  const t = await setup([{ chunks: ["partial ", "answer ", "never ", "finished"], delay_ms: 50, hang: true }]);
  try {
    const running = t.agent.prompt("stream forever");
    await until(() => t.events.some((e) => e.type === "text_delta"), "the first delta");
    t.agent.abort();
    const r = await running;
    assert.equal(r.outcome, "cancelled");
    const last = t.lines().at(-1) as { message: { role: string; stopReason: string } };
    assert.equal(last.message.stopReason, "aborted");
    assert.ok(t.agent.isIdle());
  } finally {
    await t.done();
  }
});

test("issue 15.3: tool calls of an answer cut off at the output limit are not run; the run says why", async () => {
  const t = await setup(
    [
      {
        tool_calls: [{ name: "write", arguments: { path: "half.txt", content: "only the first half" } }],
        finish_reason: "length",
      },
    ],
    { approval: new ToolApproval({ yes: true, noInput: false }) },
  );
  try {
    const r = await t.agent.prompt("write a long file");
    assert.equal(r.outcome, "limit_reached");
    assert.match(r.error ?? "", /cut off at the model's output limit/);
    assert.equal(existsSync(join(t.workspace, "half.txt")), false, "the truncated write never ran");
    const last = t.lines().at(-1) as { message: { role: string; isError: boolean; content: { text: string }[] } };
    assert.equal(last.message.role, "toolResult");
    assert.equal(last.message.isError, true);
    assert.match(last.message.content[0]!.text, /not run: the answer was cut off/);
  } finally {
    await t.done();
  }
});

test("issue 15.3: a prompt cancelled before it is admitted commits nothing and sends nothing", async () => {
  const t = await setup([{ text: "never" }]);
  try {
    const r = await t.agent.prompt("too late", { signal: AbortSignal.abort() });
    assert.equal(r.outcome, "cancelled");
    assert.equal(r.run_id, null);
    assert.equal(t.session.entries().length, 0);
    assert.equal(t.server.requests.length, 0);
  } finally {
    await t.done();
  }
});
