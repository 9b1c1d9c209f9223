// The scripted OpenAI-compatible server itself (examples/scripted-model/server.mjs): its HTTP
// answers, step matching, exhaustion, the CLI form and its models.json.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { loadModelsFile } from "../src/models/models-file.js";
import { resolveModel } from "../src/models/resolve.js";
import { repoRoot, SERVER_PATH, scripted } from "./helpers/scripted-server.js";

const chat = (url: string, body: unknown) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
  });
const user = (content: string) => ({ messages: [{ role: "user", content }] });

function sseFrames(text: string): unknown[] {
  return text
    .split("\n\n")
    .filter((f) => f.startsWith("data: "))
    .map((f) => f.slice(6))
    .map((d) => (d === "[DONE]" ? d : JSON.parse(d)));
}

test("streams chat.completion.chunk frames ending in [DONE], usage last when include_usage is set", async () => {
  const { startScriptedServer } = await scripted();
  const srv = await startScriptedServer({
    script: [{ text: "a b c d e f", usage: { prompt_tokens: 3, completion_tokens: 4 } }],
  });
  try {
    const res = await chat(srv.url, { ...user("hi"), stream: true, stream_options: { include_usage: true } });
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const frames = sseFrames(await res.text()) as Record<string, any>[];
    assert.equal(frames.at(-1), "[DONE]");
    const chunks = frames.slice(0, -1);
    assert.ok(chunks.every((c) => c["object"] === "chat.completion.chunk"));
    assert.equal(chunks.map((c) => c["choices"][0]?.delta?.content ?? "").join(""), "a b c d e f");
    assert.equal(chunks.at(-2)!["choices"][0].finish_reason, "stop");
    assert.deepEqual(chunks.at(-1)!["usage"], { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });
  } finally {
    await srv.close();
  }
});

test("answers non-stream requests with one chat.completion, tool calls included", async () => {
  const { startScriptedServer } = await scripted();
  const srv = await startScriptedServer({ script: [{ tool_calls: [{ name: "t", arguments: { a: 1 }, id: "c9" }] }] });
  try {
    const body = (await (await chat(srv.url, user("x"))).json()) as Record<string, any>;
    assert.equal(body["object"], "chat.completion");
    assert.equal(body["choices"][0].finish_reason, "tool_calls");
    assert.deepEqual(body["choices"][0].message.tool_calls, [
      { id: "c9", type: "function", function: { name: "t", arguments: '{"a":1}' } },
    ]);
    assert.ok(body["usage"].total_tokens > 0);
  } finally {
    await srv.close();
  }
});

test("match picks the step by the last user message in any order; an empty queue says script exhausted", async () => {
  const { startScriptedServer } = await scripted();
  const srv = await startScriptedServer({
    script: [
      { match: "weather", text: "sunny" },
      { match: "time", text: "noon" },
    ],
  });
  try {
    const first = (await (await chat(srv.url, user("what time is it"))).json()) as Record<string, any>;
    assert.equal(first["choices"][0].message.content, "noon");
    const none = await chat(srv.url, user("unrelated"));
    assert.equal(none.status, 500);
    assert.match(((await none.json()) as any).error.message, /no scripted step matches "unrelated"/);
    const second = (await (await chat(srv.url, user("weather please"))).json()) as Record<string, any>;
    assert.equal(second["choices"][0].message.content, "sunny");
    const empty = await chat(srv.url, user("more"));
    assert.equal(empty.status, 500);
    assert.equal(empty.headers.get("x-should-retry"), "false");
    assert.deepEqual(await empty.json(), { error: { message: "script exhausted", type: "scripted_error", code: 500 } });
    assert.equal(srv.requests.length, 4);
    assert.deepEqual(srv.requests[0], user("what time is it"));
  } finally {
    await srv.close();
  }
});

test("GET /v1/models lists the scripted model; other routes are 404", async () => {
  const { startScriptedServer } = await scripted();
  const srv = await startScriptedServer({});
  try {
    const list = (await (await fetch(`${srv.url}/models`)).json()) as Record<string, any>;
    assert.deepEqual(
      list["data"].map((m: { id: string }) => m.id),
      ["scripted-model"],
    );
    assert.equal((await fetch(`${srv.url}/completions`, { method: "POST", body: "{}" })).status, 404);
  } finally {
    await srv.close();
  }
});

test("bad steps are refused with the step and field named", async () => {
  const { startScriptedServer } = await scripted();
  await assert.rejects(startScriptedServer({ script: [{ txt: "typo" } as never] }), /script\[0\]: unknown field "txt"/);
  await assert.rejects(
    startScriptedServer({ script: [{ tool_calls: [{ name: "t", arguments: "{}" as never }] }] }),
    /script\[0\]\.tool_calls\[0\]\.arguments must be an object/,
  );
  await assert.rejects(
    startScriptedServer({ script: [{ error: { status: 200, message: "x" } }] }),
    /error\.status must be/,
  );
});

test("close() ends a hanging response instead of waiting for it", async () => {
  const { startScriptedServer } = await scripted();
  const srv = await startScriptedServer({ script: [{ text: "never ends", hang: true }] });
  const res = await chat(srv.url, { ...user("x"), stream: true });
  const reader = res.body!.getReader();
  const first = await reader.read();
  assert.equal(first.done, false);
  await srv.close();
  await assert.rejects(async () => {
    for (;;) if ((await reader.read()).done) throw new Error("ended without [DONE]");
  });
});

test("the CLI prints its URL, writes a models.json that resolves, and serves the demo script", async () => {
  const dir = mkdtempSync(join(tmpdir(), "octet-scripted-cli-"));
  const demo = join(repoRoot(), "examples", "scripted-model", "demo.json");
  const child = spawn(process.execPath, [SERVER_PATH, "--script", demo, "--write-models", dir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once("line", resolve);
      child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
    });
    const m = /^listening (http:\/\/127\.0\.0\.1:(\d+)\/v1)$/.exec(line);
    assert.ok(m, line);
    const written = JSON.parse(readFileSync(join(dir, "models.json"), "utf8"));
    assert.equal(written.providers.scripted.baseUrl, m[1]);
    const r = await resolveModel(
      { provider: "scripted", id: "scripted-model" },
      { modelsFile: loadModelsFile(join(dir, "models.json")), env: {} },
    );
    assert.equal(r.model.baseUrl, m[1]);
    const first = (await (await chat(m[1]!, user("say hello to octet"))).json()) as Record<string, any>;
    assert.deepEqual(first["choices"][0].message.tool_calls[0].function, {
      name: "hello_world",
      arguments: '{"name":"octet"}',
    });
    const second = (await (await chat(m[1]!, user("say hello to octet"))).json()) as Record<string, any>;
    assert.match(second["choices"][0].message.content, /Hello, octet!/);
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }
});

test("the example models.json is pi's shape and loads", () => {
  const path = join(repoRoot(), "examples", "scripted-model", "models.json");
  const models = loadModelsFile(path);
  assert.ok(models?.providers.get("scripted")?.models?.some((m) => m.id === "scripted-model"));
});

test("--write-models keeps the other providers of an existing models.json", async () => {
  const { writeModels } = (await scripted()) as unknown as { writeModels(dir: string, url: string): string };
  const dir = mkdtempSync(join(tmpdir(), "octet-scripted-merge-"));
  const path = join(dir, "models.json");
  writeFileSync(
    path,
    JSON.stringify({ providers: { ollama: { apiKey: "o" }, scripted: { apiKey: "old" } }, extra: 1 }),
  );
  writeModels(dir, "http://127.0.0.1:5/v1");
  const doc = JSON.parse(readFileSync(path, "utf8"));
  assert.deepEqual(doc.providers.ollama, { apiKey: "o" });
  assert.equal(doc.providers.scripted.baseUrl, "http://127.0.0.1:5/v1");
  assert.equal(doc.extra, 1);
  writeFileSync(path, "{ not json");
  assert.throws(() => writeModels(dir, "http://127.0.0.1:5/v1"), /exists and is not valid JSON .*; not overwriting it/);
  assert.equal(readFileSync(path, "utf8"), "{ not json");
});
