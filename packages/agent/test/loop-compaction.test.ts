// Compaction (issue 15.5) through the real provider path: near the window the older entries are
// summarized into a compaction entry, and later requests carry the summary instead of them;
// /compact with instructions does it on demand.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { Agent, SessionFile, type AgentEvent } from "../src/index.js";
import {
  ROOT,
  scriptedHome,
  scriptedModel,
  scriptedServer,
  tempWorkspace,
  type ScriptStep,
} from "./support/harness.js";

async function setup(script: ScriptStep[], contextWindow: number) {
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url, { contextWindow });
  const session = await SessionFile.create({ home, workspace: tempWorkspace() });
  const agent = new Agent({
    session,
    model: await scriptedModel(home),
    maxRetries: 0,
    compaction: { keepRecentTokens: 10 },
  });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  return {
    server,
    session,
    agent,
    events,
    done: async () => {
      await agent.close();
      await server.close();
    },
  };
}

test("issue 15.5: near the window the session is compacted before the request, which carries the summary", async () => {
  const t = await setup(
    [
      { text: "first answer", usage: { prompt_tokens: 3500, completion_tokens: 3 } },
      { match: "Summarize the conversation", text: "SUMMARY-ONE: an earlier exchange." },
      { text: "second answer" },
    ],
    4000,
  );
  try {
    assert.equal((await t.agent.prompt("first question")).outcome, "completed");
    assert.equal((await t.agent.prompt("second question")).outcome, "completed");
    const compaction = t.session.entries().find((e) => e.type === "compaction");
    assert.ok(compaction && compaction.type === "compaction", "a compaction entry was committed");
    assert.match(compaction.summary, /SUMMARY-ONE/);
    assert.ok(t.session.get(compaction.first_kept), "first_kept names an entry of the session");
    assert.ok(compaction.tokens_before > 3000);
    assert.match(readFileSync(t.session.path, "utf8"), /"type":"compaction"/);
    assert.deepEqual(
      t.events.filter((e) => e.type.startsWith("compaction")).map((e) => e.type),
      ["compaction_start", "compaction_end"],
    );
    // The summarizer saw the old prompt; the request after it sees the summary, not the old prompt.
    assert.match(JSON.stringify(t.server.requests[1]), /first question/);
    const after = JSON.stringify(t.server.requests[2]);
    assert.match(after, /SUMMARY-ONE/);
    assert.doesNotMatch(after, /first question/);
    assert.match(after, /second question/);
  } finally {
    await t.done();
  }
});

test("issue 15.5: /compact with instructions summarizes on demand and says what it kept", async () => {
  const t = await setup(
    [
      { text: "answer one" },
      { text: "answer two" },
      { match: "Summarize the conversation", text: "SUMMARY-MANUAL" },
      { text: "answer three" },
    ],
    128000,
  );
  try {
    await t.agent.prompt("question one");
    await t.agent.prompt("question two");
    const done = await t.agent.compact("keep the open questions");
    assert.equal(done.summary, "SUMMARY-MANUAL");
    assert.equal(done.entry.type, "compaction");
    assert.match(JSON.stringify(t.server.requests[2]), /Focus: keep the open questions/);
    await t.agent.prompt("question three");
    const last = JSON.stringify(t.server.requests[3]);
    assert.match(last, /SUMMARY-MANUAL/);
    assert.doesNotMatch(last, /question one/);
  } finally {
    await t.done();
  }
});

test("issue 15.5: compaction refuses over-long instructions before anything is sent", async () => {
  const t = await setup([{ text: "only answer" }], 128000);
  try {
    await assert.rejects(t.agent.compact(), /nothing to compact/);
    await t.agent.prompt("one question");
    await assert.rejects(t.agent.compact("x".repeat(16_385)), /16385 bytes, over the 16384-byte limit/);
    assert.equal(t.session.entries().filter((e) => e.type === "compaction").length, 0);
  } finally {
    await t.done();
  }
});

test("issue 15.5: on a vision model the compaction_strategy hook's frames replace the transcript", async () => {
  const server = await scriptedServer([
    { text: "answer one" },
    { text: "answer two" },
    { match: "Summarize the conversation", text: "SUMMARY-FROM-FRAMES" },
  ]);
  const home = await scriptedHome(server.url, { input: ["text", "image"] });
  const dir = mkdtempSync(join(tmpdir(), "octet-agent-frames-"));
  mkdirSync(join(dir, "framer"));
  writeFileSync(
    join(dir, "framer", "extension.toml"),
    [
      'name = "framer"',
      'version = "0.1.0"',
      'api_version = "0.4"',
      "[entrypoint]",
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(join(ROOT, "tests/fixtures/advisory-ext.mjs"))}, "frames"]`,
      "[capabilities]",
      'filesystem = "none"',
      "process = false",
      "network = false",
      "[contributes]",
      'hooks = ["compaction_strategy"]',
      "",
    ].join("\n"),
  );
  const host = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["framer"] });
  const session = await SessionFile.create({ home, workspace: tempWorkspace() });
  const agent = new Agent({
    session,
    model: await scriptedModel(home),
    host,
    maxRetries: 0,
    compaction: { keepRecentTokens: 10 },
  });
  try {
    await agent.prompt("question one");
    await agent.prompt("question two");
    const done = await agent.compact();
    assert.equal(done.summary, "SUMMARY-FROM-FRAMES");
    const request = JSON.stringify(server.requests[2]);
    assert.equal((request.match(/"type":"image_url"/g) ?? []).length, 2, "two frames as images");
    assert.doesNotMatch(request, /question one/, "the frames stand for the transcript");
    assert.deepEqual((done.entry as { details?: unknown }).details, {
      compaction_frames: { extension: "framer", count: 2 },
    });
  } finally {
    await agent.close();
    await host.shutdown();
    await server.close();
  }
});

test("issue 15.5: a second compaction summarizes the first summary and what followed, not raw history", async () => {
  const t = await setup(
    [
      { text: "answer one" },
      { text: "answer two" },
      { match: "Summarize the conversation", text: "SUMMARY-FIRST" },
      { text: "answer three" },
      { match: "Summarize the conversation", text: "SUMMARY-SECOND" },
    ],
    128000,
  );
  try {
    await t.agent.prompt("question one");
    await t.agent.prompt("question two");
    await t.agent.compact();
    // Less than keepRecentTokens after the first compaction: the cut must still not go behind it.
    await t.agent.prompt("question three");
    const second = await t.agent.compact();
    assert.equal(second.summary, "SUMMARY-SECOND");
    const summarizer = JSON.stringify(t.server.requests[4]);
    assert.match(summarizer, /SUMMARY-FIRST/, "the first summary stands for what it summarized");
    assert.doesNotMatch(summarizer, /question one/, "the raw history behind the first summary is not sent again");
    const info = t.agent.info();
    assert.ok(info.context_tokens < 200, `after compaction the size is estimated afresh: ${info.context_tokens}`);
  } finally {
    await t.done();
  }
});
