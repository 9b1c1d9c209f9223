import assert from "node:assert/strict";
import { test } from "node:test";
import type { AssistantMessage, ToolResultMessage } from "@mariozechner/pi-ai";
import { COMPACTION_SUMMARY_PREFIX, SessionFile, buildContext } from "../src/session/index.js";
import { tempDirs, userMessage } from "./session-helpers.js";

const usage = {
  input: 10,
  output: 5,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 15,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

function assistant(text: string, callId?: string): { type: "message"; message: AssistantMessage } {
  const content: AssistantMessage["content"] = [{ type: "text", text }];
  if (callId) content.push({ type: "toolCall", id: callId, name: "read", arguments: { path: "a" } });
  return {
    type: "message",
    message: {
      role: "assistant",
      content,
      api: "openai-completions",
      provider: "scripted",
      model: "m",
      usage,
      stopReason: callId ? "toolUse" : "stop",
      timestamp: 2,
    },
  };
}

function result(callId: string): { type: "message"; message: ToolResultMessage } {
  return {
    type: "message",
    message: { role: "toolResult", toolCallId: callId, toolName: "read", content: [], isError: false, timestamp: 3 },
  };
}

test("a tree: branch() moves the leaf, the next entry's parent is that id, and a reload keeps the tree", async () => {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace, now: () => 1_700_000_000_000 });
  assert.equal(s.leafId(), null);
  const a = await s.append(userMessage("a"));
  const b = await s.append(assistant("b"));
  const c = await s.append(userMessage("c"));
  assert.deepEqual([a.parent_id, b.parent_id, c.parent_id], [null, a.id, b.id]);
  assert.match(a.id, /^[0-9a-f]{12}$/);
  assert.equal(a.timestamp_unix_ms, 1_700_000_000_000);
  s.branch(a.id);
  const d = await s.append(userMessage("d"));
  assert.equal(d.parent_id, a.id);
  assert.deepEqual(
    s.pathToLeaf().map((e) => e.id),
    [a.id, d.id],
  );
  assert.throws(() => s.branch("nope"), /cannot branch to "nope": no such entry/);
  // What append() keeps is the stored line, not the caller's object, which may change later.
  const data = { n: 1 };
  const kept = await s.append({ type: "custom", entry_type: "state", data });
  data.n = 2;
  assert.deepEqual(s.get(kept.id)?.type === "custom" && s.get(kept.id), { ...kept, data: { n: 1 } });
  await s.append({ type: "label", target_id: c.id, label: "old end" });
  await s.append({ type: "session_info", name: "tree" });
  assert.equal(s.name(), "tree");
  assert.deepEqual([...s.labels()], [[c.id, "old end"]]);
  await s.append({ type: "label", target_id: c.id, label: "" });
  await s.append({ type: "session_info", name: "" });
  assert.equal(s.name(), null);
  assert.equal(s.labels().size, 0);
  await s.close();

  const again = await SessionFile.open(s.path);
  assert.equal(again.id, s.id);
  assert.equal(again.workspace, workspace);
  assert.equal(again.get(d.id)?.parent_id, a.id);
  assert.equal(again.entries().length, 9);
  assert.deepEqual(
    again
      .pathToLeaf()
      .slice(0, 2)
      .map((e) => e.id),
    [a.id, d.id],
  );
  again.branch(c.id);
  assert.deepEqual(
    again.pathToLeaf().map((e) => e.id),
    [a.id, b.id, c.id],
  );
  await again.close();
});

test("buildContext: summary, first_kept..compaction, later entries; orphan tool results are dropped", async () => {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  await s.append(userMessage("old question"));
  await s.append(assistant("calling", "call-1"));
  await s.append(result("call-1")); // its call will be summarized away
  const kept = await s.append(userMessage("kept question"));
  await s.append(assistant("kept answer", "call-2"));
  await s.append(result("call-2"));
  await s.append({ type: "custom", entry_type: "state", data: { n: 1 } });
  await s.append({ type: "model_change", provider: "scripted", model_id: "m2" });
  const comp = await s.append({
    type: "compaction",
    summary: "We discussed the old question.",
    first_kept: kept.id,
    tokens_before: 1234,
  });
  await s.append({ type: "custom_message", entry_type: "note", content: "ext says hi", display: false });
  await s.append(userMessage("new question"));

  const { messages, compaction } = buildContext(s.pathToLeaf());
  assert.equal(compaction?.id, comp.id);
  const texts = messages.map((m) => {
    const c = m.content;
    if (typeof c === "string") return `${m.role}:${c}`;
    return `${m.role}:${c.map((p) => (p.type === "text" ? p.text : p.type)).join("|")}`;
  });
  assert.deepEqual(texts, [
    `user:${COMPACTION_SUMMARY_PREFIX}We discussed the old question.`,
    "user:kept question",
    "assistant:kept answer|toolCall",
    "toolResult:",
    "user:ext says hi",
    "user:new question",
  ]);
  assert.equal(COMPACTION_SUMMARY_PREFIX, "The conversation before this point was summarized:\n\n");

  // first_kept after the orphan: a compaction keeping the tool result but not its call drops it.
  const path = s.pathToLeaf();
  const orphan = path.findIndex((e) => e.type === "message" && e.message.role === "toolResult");
  const cut = path.map((e) => (e.type === "compaction" ? { ...e, first_kept: path[orphan]?.id ?? "" } : e));
  const roles = buildContext(cut).messages.map((m) => m.role);
  assert.deepEqual(roles.slice(0, 3), ["user", "user", "assistant"], "the orphan result after the summary is gone");

  // Without a compaction every message entry is context, in path order.
  const plain = buildContext(path.slice(0, 6));
  assert.equal(plain.compaction, null);
  assert.deepEqual(
    plain.messages.map((m) => m.role),
    ["user", "assistant", "toolResult", "user", "assistant", "toolResult"],
  );
  await s.close();
});

test("pathToLeaf while an append waits for its fsync is the committed history, not an empty path", async () => {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  try {
    const first = await s.append(userMessage("committed"));
    const pending = s.append({ type: "custom", entry_type: "probe", data: { n: 1 } });
    assert.deepEqual(
      s.pathToLeaf().map((e) => e.id),
      [first.id],
    );
    const second = await pending;
    assert.deepEqual(
      s.pathToLeaf().map((e) => e.id),
      [first.id, second.id],
    );
  } finally {
    await s.close();
  }
});
