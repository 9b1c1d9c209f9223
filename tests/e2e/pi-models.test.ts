// pi's model API in a real session (issue 17: ctx.modelRegistry, pi.setModel, pi.setThinkingLevel):
// pi's shipped preset example, loaded as shipped in the node runtime (it reads its presets with
// node:fs), driven through `octet run` against the scripted OpenAI-compatible server. What the
// preset did is read where it lands: the request the model received (model, reasoning_effort,
// tools, system prompt), the session file and what octet prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { session } from "./pi-examples-support.js";

const PRESETS = {
  think: {
    provider: "scripted",
    model: "scripted-think",
    thinkingLevel: "high",
    tools: ["read"],
    instructions: "PRESET-INSTRUCTIONS",
  },
  keyless: { provider: "keyless", model: "local" },
  missing: { provider: "scripted", model: "no-such-model" },
};

/** preset.ts with a models.json of two scripted models (one reasons) and a provider with no key. */
async function presetSession(script: Record<string, unknown>[]) {
  const t = await session("preset.ts", script, { runtime: "node" });
  const scripted = {
    baseUrl: t.server.url,
    api: "openai-completions",
    apiKey: "scripted",
    compat: { supportsDeveloperRole: false, supportsReasoningEffort: true, supportsStore: false },
    models: [
      { id: "scripted-model", maxTokens: 4096, contextWindow: 1_000_000 },
      { id: "scripted-think", reasoning: true, maxTokens: 4096, contextWindow: 1_000_000 },
    ],
  };
  const keyless = { baseUrl: t.server.url, api: "openai-completions", models: [{ id: "local" }] };
  writeFileSync(join(t.home, "models.json"), JSON.stringify({ providers: { scripted, keyless } }));
  mkdirSync(join(t.ws, ".pi"));
  writeFileSync(join(t.ws, ".pi", "presets.json"), JSON.stringify(PRESETS));
  return t;
}

test("pi example preset (node): modelRegistry.find, setModel, setThinkingLevel, setActiveTools apply", async () => {
  const t = await presetSession([{ text: "planned" }]);
  try {
    const r = await t.octet(["--pi-flag", "preset=think", "run", "make a plan"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "planned\n");
    assert.match(r.stderr, /Preset "think" activated/);
    const body = t.server.requests[0]!;
    assert.equal(body["model"], "scripted-think", "pi.setModel switched the agent's model");
    assert.equal(body["reasoning_effort"], "high", "pi.setThinkingLevel reaches pi-ai as the request's reasoning");
    const tools = (body["tools"] as { function: { name: string } }[]).map((x) => x.function.name);
    assert.deepEqual(tools, ["read"], "pi.setActiveTools");
    assert.match(JSON.stringify(body["messages"]), /PRESET-INSTRUCTIONS/, "before_agent_start's system prompt");
    const entries = t.entries();
    const change = entries.find((e) => e["type"] === "model_change");
    assert.equal(change?.["model_id"], "scripted-think", "the switch is recorded in the session");
    assert.ok(
      entries.some((e) => e["type"] === "custom" && e["entry_type"] === "preset-state"),
      `turn_start's appendEntry: ${JSON.stringify(entries.map((e) => e["type"]))}`,
    );
  } finally {
    await t.server.close();
  }
});

test("pi example preset (node): setModel is false for a model without a key; find misses an unknown one", async () => {
  const t = await presetSession([{ text: "first" }, { text: "second" }]);
  try {
    const keyless = await t.octet(["--pi-flag", "preset=keyless", "run", "one"]);
    assert.equal(keyless.code, 0, keyless.stderr);
    assert.match(keyless.stderr, /Preset "keyless": No API key for keyless\/local/, "pi.setModel returned false");
    assert.match(keyless.stderr, /pi\.setModel: no API key for keyless\/local/, "octet says why");
    assert.equal(t.server.requests[0]!["model"], "scripted-model", "the model stays");
    const missing = await t.octet(["--pi-flag", "preset=missing", "run", "two"]);
    assert.equal(missing.code, 0, missing.stderr);
    assert.match(missing.stderr, /Preset "missing": Model scripted\/no-such-model not found/);
    assert.equal(t.server.requests[1]!["model"], "scripted-model");
    assert.equal(t.server.requests[1]!["reasoning_effort"], undefined, "no thinking level: none asked");
  } finally {
    await t.server.close();
  }
});
