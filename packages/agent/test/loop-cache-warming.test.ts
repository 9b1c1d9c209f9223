// Cache warming (issue 15.3, PY-46..51 at the point they advise): with warming on, before the
// provider's cache TTL runs out the agent refreshes the last request's prefix with a one-token
// answer, when the economics say so, unless a cache_warming_decision hook advises "stop"; nothing
// of it enters the session.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { Agent, SessionFile, type AgentEvent } from "../src/index.js";
import { ROOT, scriptedHome, scriptedModel, scriptedServer, tempWorkspace, until } from "./support/harness.js";

const PRICES = { cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } };
const WARMING = { enabled: true, ttlMs: 400, marginMs: 200, maxRefreshes: 2 };

async function advisor(mode: string): Promise<ExtensionHost> {
  const dir = mkdtempSync(join(tmpdir(), "octet-agent-advisor-"));
  mkdirSync(join(dir, "advisor"));
  writeFileSync(
    join(dir, "advisor", "extension.toml"),
    [
      'name = "advisor"',
      'version = "0.1.0"',
      'api_version = "0.4"',
      "[entrypoint]",
      `command = ${JSON.stringify(process.execPath)}`,
      `args = [${JSON.stringify(join(ROOT, "tests/fixtures/advisory-ext.mjs"))}, "${mode}"]`,
      "[capabilities]",
      'filesystem = "none"',
      "process = false",
      "network = false",
      "[contributes]",
      'hooks = ["cache_warming_decision"]',
      "",
    ].join("\n"),
  );
  return ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["advisor"] });
}

test("issue 15.3: with warming on, the last prefix is refreshed before the TTL, outside the session", async () => {
  const server = await scriptedServer([
    { text: "the answer", usage: { prompt_tokens: 10_000, completion_tokens: 3 } },
    { text: "k" },
    { text: "k" },
  ]);
  const home = await scriptedHome(server.url, PRICES);
  const session = await SessionFile.create({ home, workspace: tempWorkspace() });
  const agent = new Agent({ session, model: await scriptedModel(home), maxRetries: 0, cacheWarming: WARMING });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  try {
    assert.equal((await agent.prompt("a question")).outcome, "completed");
    await until(() => server.requests.length === 3, "two refreshes");
    const [first, ...warm] = server.requests as {
      messages: unknown[];
      max_completion_tokens?: number;
      max_tokens?: number;
    }[];
    for (const w of warm) {
      assert.deepEqual(w.messages, first!.messages, "the same prefix as the last request");
      assert.equal(w.max_completion_tokens ?? w.max_tokens, 1);
    }
    await until(
      () => events.filter((e) => e.type === "notice" && /kept the prompt cache warm/.test(e.text)).length === 2,
      "two notices",
    );
    assert.equal(session.entries().length, 2, "only the prompt and its answer are in the session");
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(server.requests.length, 3, "no more than maxRefreshes");
  } finally {
    await agent.close();
    await server.close();
  }
});

test("PY-49: a cache_warming_decision hook that advises stop stops warming; nothing is sent", async () => {
  const server = await scriptedServer([{ text: "the answer", usage: { prompt_tokens: 10_000, completion_tokens: 3 } }]);
  const home = await scriptedHome(server.url, PRICES);
  const host = await advisor("stop");
  const session = await SessionFile.create({ home, workspace: tempWorkspace() });
  const agent = new Agent({ session, model: await scriptedModel(home), host, maxRetries: 0, cacheWarming: WARMING });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  try {
    await agent.prompt("a question");
    await until(
      () => events.some((e) => e.type === "notice" && /cache warming stopped \(advised by advisor\)/.test(e.text)),
      "the advisor's stop",
    );
    assert.equal(server.requests.length, 1);
  } finally {
    await agent.close();
    await host.shutdown();
    await server.close();
  }
});

test("issue 15.3: warming is off by default, and without cache prices the agent's own decision is stop", async () => {
  const server = await scriptedServer([
    { text: "one", usage: { prompt_tokens: 10_000 } },
    { text: "two", usage: { prompt_tokens: 10_000 } },
  ]);
  const priced = await scriptedHome(server.url, PRICES);
  const free = await scriptedHome(server.url);
  const off = new Agent({
    session: await SessionFile.create({ home: priced, workspace: tempWorkspace() }),
    model: await scriptedModel(priced),
    maxRetries: 0,
    cacheWarming: { ttlMs: 100, marginMs: 50 },
  });
  const unpriced = new Agent({
    session: await SessionFile.create({ home: free, workspace: tempWorkspace() }),
    model: await scriptedModel(free),
    maxRetries: 0,
    cacheWarming: { ...WARMING, ttlMs: 100, marginMs: 50 },
  });
  const offEvents: AgentEvent[] = [];
  const unpricedEvents: AgentEvent[] = [];
  off.subscribe((e) => offEvents.push(e));
  unpriced.subscribe((e) => unpricedEvents.push(e));
  try {
    await off.prompt("q");
    await unpriced.prompt("q");
    await until(
      () => unpricedEvents.some((e) => e.type === "notice" && /^cache warming stopped$/.test(e.text)),
      "the unpriced model's stop",
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(server.requests.length, 2, "no refresh was sent");
    assert.ok(!offEvents.some((e) => e.type === "notice" && /cache warming/.test(e.text)), "off: never considered");
  } finally {
    await off.close();
    await unpriced.close();
    await server.close();
  }
});
