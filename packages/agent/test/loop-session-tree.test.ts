// pi's session replacement and tree navigation on the agent (session-tree.ts): newSession, fork
// and navigateTree over real session files and the scripted model server (real HTTP through
// pi-ai). pi's events around them are in tests/e2e/pi-session-tree.test.ts (real pi extensions).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { Agent, AgentError, SessionFile, type SessionEntry } from "../src/index.js";
import { scriptedHome, scriptedModel, scriptedServer, tempWorkspace, type ScriptStep } from "./support/harness.js";

async function setup(script: ScriptStep[]) {
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url);
  const workspace = tempWorkspace();
  const model = await scriptedModel(home);
  const agent = new Agent({ session: await SessionFile.create({ home, workspace }), model, maxRetries: 0 });
  return { server, home, agent, model };
}

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const textOf = (e: SessionEntry): string =>
  e.type === "message"
    ? typeof e.message.content === "string"
      ? e.message.content
      : e.message.content.map((p) => (p.type === "text" ? p.text : "")).join("")
    : e.type;

test("newSession: a new file beside the old one, parent in its header, the setup entries first", async () => {
  const t = await setup([{ text: "first answer" }, { text: "in the new session" }]);
  let next: Agent | null = null;
  try {
    await t.agent.prompt("first question");
    const old = t.agent.session.path;
    const entries: SessionEntry[] = [
      {
        type: "message",
        id: "000000000001",
        parent_id: null,
        timestamp_unix_ms: 1,
        message: { role: "user", content: "context from before", timestamp: 1 },
      },
      { type: "custom", id: "000000000002", parent_id: "000000000001", timestamp_unix_ms: 1, entry_type: "x", data: 1 },
    ];
    const done = await t.agent.newSession({ parentSession: old, entries });
    assert.equal(done.cancelled, false);
    if (done.cancelled) return;
    next = done.agent;
    assert.equal(t.agent.closed, true, "the old agent is closed");
    assert.notEqual(next.session.path, old);
    assert.equal(dirname(next.session.path), dirname(old), "beside the old session");
    const file = lines(next.session.path);
    assert.equal(file[0]!["parent_session"], old, "the header names the parent");
    assert.deepEqual(
      file.slice(1).map((e) => e["id"]),
      ["000000000001", "000000000002"],
    );
    // The old session's lock is released; the next prompt goes to the new one, with the setup context.
    await (await SessionFile.open(old)).close();
    await next.prompt("go on");
    const request = JSON.stringify(t.server.requests.at(-1));
    assert.match(request, /context from before/);
    assert.doesNotMatch(request, /first question/, "the new session starts without the old history");
    assert.deepEqual(next.session.pathToLeaf().map(textOf).slice(-2), ["go on", "in the new session"]);
  } finally {
    await (next ?? t.agent).close();
    await t.server.close();
  }
});

test("fork before a user message: the path up to it, ids and labels kept; 'at' copies through the entry", async () => {
  const t = await setup([{ text: "one" }, { text: "two" }]);
  const agents: Agent[] = [];
  try {
    await t.agent.prompt("question one");
    await t.agent.prompt("question two");
    const path = t.agent.session.pathToLeaf();
    const secondUser = path.find((e) => textOf(e) === "question two")!;
    const firstAnswer = path.find((e) => textOf(e) === "one")!;
    await t.agent.session.append({ type: "label", target_id: firstAnswer.id, label: "keeper" });
    await assert.rejects(t.agent.fork(firstAnswer.id, "before"), (e: unknown) => {
      return e instanceof AgentError && e.code === "invalid_entry";
    });
    await assert.rejects(t.agent.fork("nope"), (e: unknown) => e instanceof AgentError && e.code === "unknown_entry");
    const done = await t.agent.fork(secondUser.id, "before");
    assert.equal(done.cancelled, false);
    if (done.cancelled) return;
    agents.push(done.agent);
    assert.equal(done.selectedText, "question two", "pi restores the forked prompt to the editor");
    const forked = done.agent.session;
    assert.deepEqual(
      forked
        .pathToLeaf()
        .filter((e) => e.type !== "label")
        .map((e) => e.id),
      path.slice(0, path.indexOf(secondUser)).map((e) => e.id),
      "the path before the selected user message, ids kept",
    );
    assert.equal(forked.labels().get(firstAnswer.id), "keeper", "the label of a kept entry is re-applied");
    assert.equal(lines(forked.path)[0]!["parent_session"], t.agent.session.path);
    // "at" from the forked session: a copy through the entry.
    const at = await done.agent.fork(firstAnswer.id, "at");
    assert.equal(at.cancelled, false);
    if (at.cancelled) return;
    agents.push(at.agent);
    assert.equal(at.agent.session.leafId(), at.agent.session.pathToLeaf().at(-1)!.id);
    assert.deepEqual(
      at.agent.session
        .pathToLeaf()
        .filter((e) => e.type !== "label")
        .map(textOf),
      ["question one", "one"],
    );
  } finally {
    for (const a of [t.agent, ...agents]) await a.close();
    await t.server.close();
  }
});

test("navigateTree: the leaf moves back; the next request leaves the abandoned branch out", async () => {
  const t = await setup([{ text: "one" }, { text: "two" }, { text: "three" }]);
  try {
    await t.agent.prompt("question one");
    await t.agent.prompt("question two");
    const path = t.agent.session.pathToLeaf();
    const firstAnswer = path.find((e) => textOf(e) === "one")!;
    const secondUser = path.find((e) => textOf(e) === "question two")!;
    // A user message is re-asked from its parent, its text handed back for the editor.
    const back = await t.agent.navigateTree(secondUser.id, { label: "retry" });
    assert.deepEqual(back, { cancelled: false, editorText: "question two" });
    assert.equal(t.agent.session.leafId() !== secondUser.id, true);
    assert.equal(t.agent.session.labels().get(secondUser.id), "retry", "the label goes on the target");
    assert.equal(
      t.agent.session.pathToLeaf().some((e) => e.id === firstAnswer.id),
      true,
    );
    await t.agent.prompt("question two, again");
    const request = JSON.stringify(t.server.requests.at(-1));
    assert.doesNotMatch(request, /"two"|question two"/, "the abandoned branch is not sent");
    assert.match(request, /question one/);
    assert.equal(await t.agent.navigateTree(t.agent.session.leafId()!).then((r) => r.cancelled), false, "a no-op");
  } finally {
    await t.agent.close();
    await t.server.close();
  }
});

test("navigateTree with summarize: the model summarizes the branch left into a branch_summary entry", async () => {
  const t = await setup([
    { text: "one" },
    { text: "two" },
    { match: "Summarize this conversation branch", text: "BRANCH-SUMMARY: tried two" },
    { text: "after" },
  ]);
  try {
    await t.agent.prompt("question one");
    await t.agent.prompt("question two");
    const firstAnswer = t.agent.session.pathToLeaf().find((e) => textOf(e) === "one")!;
    const r = await t.agent.navigateTree(firstAnswer.id, { summarize: true, customInstructions: "the attempt" });
    assert.equal(r.cancelled, false);
    const summary = r.summaryEntry;
    assert.equal(summary?.type, "branch_summary");
    if (summary?.type !== "branch_summary") return;
    assert.equal(summary.summary, "BRANCH-SUMMARY: tried two");
    assert.equal(summary.parent_id, firstAnswer.id, "placed at the new position");
    assert.equal(summary.from_id, firstAnswer.id);
    const asked = JSON.stringify(t.server.requests.at(-1));
    assert.match(asked, /question two/, "the summarizer read the abandoned branch");
    assert.match(asked, /Focus: the attempt/);
    await t.agent.prompt("next");
    const request = JSON.stringify(t.server.requests.at(-1));
    assert.match(request, /summary of a branch that this conversation came back from/);
    assert.match(request, /BRANCH-SUMMARY: tried two/);
    // It survives a reload: the entry is read back as it was written.
    const path = t.agent.session.path;
    await t.agent.close();
    const reopened = await SessionFile.open(path);
    assert.equal(reopened.get(summary.id)?.type, "branch_summary");
    await reopened.close();
  } finally {
    await t.agent.close();
    await t.server.close();
  }
});

test("newSession, fork and navigateTree refuse while a prompt runs", async () => {
  const t = await setup([{ text: "slow", delay_ms: 400 } as ScriptStep]);
  try {
    const running = t.agent.prompt("question");
    await new Promise((r) => setTimeout(r, 50));
    await assert.rejects(t.agent.newSession(), (e: unknown) => e instanceof AgentError && e.code === "busy");
    await assert.rejects(t.agent.fork("x"), (e: unknown) => e instanceof AgentError && e.code === "busy");
    await assert.rejects(t.agent.navigateTree("x"), (e: unknown) => e instanceof AgentError && e.code === "busy");
    await running;
  } finally {
    await t.agent.close();
    await t.server.close();
  }
});
