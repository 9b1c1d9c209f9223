// pi's message_start / message_end (with a message_end replacement), thinking_level_select and
// ctx.modelRegistry in a real session: the pi file tests/fixtures/pi-message-probe loaded with
// --pi-extension (QuickJS), driven through `octet run` and the shell over a pipe against the
// scripted OpenAI-compatible server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./helpers.js";
import { session } from "./pi-examples-support.js";

const PROBE = join(ROOT, "tests/fixtures/pi-message-probe/index.ts");

/** The probe's session, its one scripted model able to reason (reasoning_effort in the request). */
async function probeSession(script: Record<string, unknown>[]) {
  const t = await session(PROBE, script);
  const scripted = {
    baseUrl: t.server.url,
    api: "openai-completions",
    apiKey: "scripted",
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: true, supportsStore: false },
    models: [{ id: "scripted-model", name: "Scripted", reasoning: true, maxTokens: 4096, contextWindow: 1_000_000 }],
  };
  writeFileSync(join(t.home, "models.json"), JSON.stringify({ providers: { scripted } }));
  return t;
}

const seenLines = (stderr: string, prefix: string): string[] =>
  stderr
    .split("\n")
    .flatMap((l) => (l.includes(`seen ${prefix}`) ? [l.slice(l.indexOf(`seen ${prefix}`) + 5).trim()] : []));

test("pi message_start/message_end: user, assistant and toolResult in pi's order; message_end replaces", async () => {
  const t = await probeSession([{ tool_calls: [{ name: "registry", arguments: {} }] }, { text: "original answer" }]);
  try {
    const r = await t.octet(["run", "go"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "REPLACED\n", "the replaced assistant message is the answer");
    assert.deepEqual(seenLines(r.stderr, "message_"), [
      "message_start user",
      "message_end user",
      "message_start assistant",
      "message_end assistant",
      "message_start toolResult",
      "message_end toolResult",
      "message_start assistant",
      "message_end assistant",
    ]);
    const messages = t
      .entries()
      .filter((e) => e["type"] === "message")
      .map((e) => e["message"] as { role: string; content: unknown });
    assert.equal(messages[0]?.content, "go [stamped]", "the user message is saved as message_end replaced it");
    assert.deepEqual(messages[3]?.content, [{ type: "text", text: "REPLACED" }]);
    assert.equal(messages[2]?.role, "toolResult", "a replacement of another role is not taken");
    assert.match(r.stderr, /a message_end handler returned a message of role "assistant" for a "toolResult" message/);
    // The registry tool's view (the tool result was kept as it was).
    const kept = messages[2]!.content as { text: string }[];
    const view = JSON.parse(kept[0]!.text) as Record<string, unknown>;
    assert.ok((view["all"] as number) > 100, `the registry lists pi-ai's catalog too: ${view["all"]}`);
    assert.equal((view["available"] as string[])[0], "scripted/scripted-model", "models with a key come first");
    assert.equal(view["found"], "Scripted");
    assert.equal(view["auth"], true);
    assert.equal(view["model"], "scripted-model");
    assert.equal(view["thinking"], "off");
    assert.match(String(view["key"]), /^refused: .*never gives API keys to extensions/);
  } finally {
    await t.server.close();
  }
});

test("pi.setThinkingLevel from a command: thinking_level_select, the level in the request, /thinking", async () => {
  const t = await probeSession([{ text: "thought" }]);
  try {
    const r = await t.octet([], "/think high\nhello\n/thinking\n/thinking low\n/quit\n");
    assert.equal(r.code, 0, r.stderr);
    const out = r.stdout + r.stderr;
    assert.match(out, /thinking is high/);
    assert.equal(t.server.requests[0]!["reasoning_effort"], "high", "the level reaches pi-ai");
    assert.match(r.stdout, /thinking: high/);
    assert.match(r.stdout, /thinking: low/);
    assert.deepEqual(seenLines(out, "thinking_level_select"), [
      "thinking_level_select off->high",
      "thinking_level_select high->low",
    ]);
  } finally {
    await t.server.close();
  }
});
