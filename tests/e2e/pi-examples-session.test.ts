// pi's named examples in a real session, the ones that keep state in the session (issue 17, "what
// it must show"): todo (its list in the tool results' details, rebuilt from the branch in a new
// process), bookmark (/bookmark in the shell labels an entry) and trigger-compact (its turn_end hook
// calls ctx.compact). Loaded as shipped, driven against the scripted model server; see
// pi-examples.test.ts for hello, permission-gate, protected-paths and input-transform.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { session } from "./pi-examples-support.js";

test("pi example todo: state lives in the tool result details and is rebuilt from the session", async () => {
  const t = await session("todo.ts", [
    {
      tool_calls: [
        { name: "todo", arguments: { action: "add", text: "buy milk" } },
        { name: "todo", arguments: { action: "add", text: "write tests" } },
        { name: "todo", arguments: { action: "toggle", id: 1 } },
      ],
    },
    { text: "added" },
    { tool_calls: [{ name: "todo", arguments: { action: "list" } }] },
    { text: "listed" },
  ]);
  try {
    const first = await t.octet(["run", "plan my day"]);
    assert.equal(first.code, 0, first.stderr);
    const after = t.toolResults();
    assert.deepEqual(
      after.map((m) => m.isError),
      [false, false, false],
    );
    assert.deepEqual(after[2]?.details, {
      action: "toggle",
      todos: [
        { id: 1, text: "buy milk", done: true },
        { id: 2, text: "write tests", done: false },
      ],
      nextId: 3,
    });
    // A new process: the extension starts empty and rebuilds its list from the session's branch
    // (session_start -> ctx.sessionManager.getBranch()), as pi does on resume.
    const second = await t.octet(["--continue", "run", "what is left?"]);
    assert.equal(second.code, 0, second.stderr);
    const list = t.toolResults()[3];
    assert.equal(list?.isError, false);
    assert.match(list!.content[0]!.text, /\[x\] #1: buy milk/);
    assert.match(list!.content[0]!.text, /\[ \] #2: write tests/);
    assert.equal((list!.details as { nextId?: number }).nextId, 3);
  } finally {
    await t.server.close();
  }
});

test("pi example bookmark: /bookmark in the shell labels the last answer, /unbookmark clears it", async () => {
  const t = await session("bookmark.ts", [{ text: "an answer worth keeping" }]);
  try {
    const r = await t.octet([], "remember this\n/bookmark keeper\n/unbookmark\n/quit\n");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout + r.stderr, /Bookmarked as: keeper/);
    const entries = t.entries();
    const answer = entries.find((e) => (e["message"] as { role?: string } | undefined)?.role === "assistant");
    const label = entries.find((e) => e["type"] === "label");
    assert.ok(label !== undefined, JSON.stringify(entries.map((e) => e["type"])));
    assert.equal(label["target_id"], answer?.["id"], "pi.setLabel(entry.id) names the assistant message");
    assert.equal(label["label"], "keeper");
    // /unbookmark finds the label through ctx.sessionManager.getLabel and clears it with setLabel(id, undefined).
    assert.match(r.stdout + r.stderr, /Removed bookmark: keeper/);
    const labels = entries.filter((e) => e["type"] === "label");
    assert.deepEqual(
      labels.map((e) => [e["target_id"], e["label"]]),
      [
        [answer?.["id"], "keeper"],
        [answer?.["id"], ""],
      ],
    );
  } finally {
    await t.server.close();
  }
});

test("pi example trigger-compact: crossing 100k tokens at turn_end calls ctx.compact; a compaction entry", async () => {
  // The provider's usage is what pi (and octet) count: the first answer reports 60k tokens, the
  // second 120k, so the extension's turn_end hook sees the context cross its 100k threshold and
  // calls ctx.compact. Two large reads give the compaction something older than the recent 20k
  // tokens it keeps.
  const t = await session("trigger-compact.ts", [
    {
      tool_calls: [
        { name: "read", arguments: { path: "a.txt" } },
        { name: "read", arguments: { path: "b.txt" } },
      ],
      usage: { prompt_tokens: 60_000, completion_tokens: 10 },
    },
    { match: "list the files", text: "a long answer", usage: { prompt_tokens: 120_000, completion_tokens: 10 } },
    { text: "SUMMARY: the user asked for two files" },
  ]);
  try {
    const line = `${"x".repeat(99)}\n`;
    for (const name of ["a.txt", "b.txt"]) writeFileSync(join(t.ws, name), line.repeat(1000));
    const r = await t.octet(["run", "list the files"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "a long answer\n");
    const entries = t.entries();
    const compaction = entries.find((e) => e["type"] === "compaction");
    assert.ok(compaction !== undefined, `no compaction entry: ${r.stderr}`);
    assert.equal(compaction["summary"], "SUMMARY: the user asked for two files");
    const answer = entries.find((e) => JSON.stringify(e["message"] ?? "").includes("a long answer"));
    assert.equal(compaction["first_kept"], answer?.["id"], "the recent answer is kept, the reads summarized");
    assert.equal(t.server.requests.length, 3, "the summary was asked of the model");
  } finally {
    await t.server.close();
  }
});

test("pi example trigger-compact: /trigger-compact in the shell compacts before /quit closes the session", async () => {
  const t = await session("trigger-compact.ts", [
    {
      tool_calls: [
        { name: "read", arguments: { path: "a.txt" } },
        { name: "read", arguments: { path: "b.txt" } },
      ],
    },
    { text: "read both" },
    { text: "SUMMARY: two files were read" },
  ]);
  try {
    const line = `${"x".repeat(99)}\n`;
    for (const name of ["a.txt", "b.txt"]) writeFileSync(join(t.ws, name), line.repeat(1000));
    const r = await t.octet([], "read the files\n/trigger-compact keep it short\n/quit\n");
    assert.equal(r.code, 0, r.stderr);
    const compaction = t.entries().find((e) => e["type"] === "compaction");
    assert.ok(compaction !== undefined, `no compaction entry: ${r.stdout}${r.stderr}`);
    assert.equal(compaction["summary"], "SUMMARY: two files were read");
    // The command's argument is the compaction's custom instructions, as pi passes them.
    assert.match(JSON.stringify(t.server.requests[2]), /keep it short/);
  } finally {
    await t.server.close();
  }
});
