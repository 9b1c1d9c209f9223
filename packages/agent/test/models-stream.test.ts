// The real provider path: pi-ai's stream() (its OpenAI client, SSE parsing, tool-call assembly)
// against the scripted server on 127.0.0.1, with the model resolved from a models.json.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AssistantMessage, type AssistantMessageEvent, type Context, stream, Type } from "@mariozechner/pi-ai";
import { describeProviderError, providerErrorKind } from "../src/models/errors.js";
import { loadModelsFile } from "../src/models/models-file.js";
import { type ResolvedModel, requestOptions, resolveModel } from "../src/models/resolve.js";
import { type ScriptedServer, scripted } from "./helpers/scripted-server.js";

let server: ScriptedServer;
let resolved: ResolvedModel;

before(async () => {
  const mod = await scripted();
  server = await mod.startScriptedServer({ apiKey: "sk-scripted-test" });
  const dir = mkdtempSync(join(tmpdir(), "octet-models-stream-"));
  writeFileSync(join(dir, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url, "SCRIPTED_KEY")));
  resolved = await resolveModel(
    { provider: "scripted", id: mod.SCRIPTED_MODEL_ID },
    { modelsFile: loadModelsFile(join(dir, "models.json")), env: { SCRIPTED_KEY: "sk-scripted-test" } },
  );
});
after(() => server.close());

const context = (prompt: string): Context => ({
  systemPrompt: "You are octet's test model.",
  messages: [{ role: "user", content: prompt, timestamp: Date.now() }],
  tools: [
    {
      name: "hello_world",
      description: "Greets someone",
      parameters: Type.Object({ name: Type.String() }),
    },
  ],
});

async function run(prompt: string, signal?: AbortSignal, abortOn?: (e: AssistantMessageEvent) => boolean) {
  const controller = new AbortController();
  const s = stream(resolved.model, context(prompt), {
    ...requestOptions(resolved),
    signal: signal ?? controller.signal,
  });
  const events: AssistantMessageEvent[] = [];
  for await (const e of s) {
    events.push(e);
    if (abortOn?.(e)) controller.abort();
  }
  return { events, message: await s.result() };
}

test("text streams as separate deltas; usage is reported; the request has the system prompt and tools", async () => {
  server.push({
    match: "greet",
    text: "Hello from the scripted model, streamed in pieces.",
    usage: { prompt_tokens: 42, completion_tokens: 9 },
  });
  const { events, message } = await run("please greet me");
  const deltas = events.filter((e) => e.type === "text_delta").map((e) => (e as { delta: string }).delta);
  assert.ok(deltas.length >= 3, `several deltas, got ${JSON.stringify(deltas)}`);
  assert.equal(deltas.join(""), "Hello from the scripted model, streamed in pieces.");
  assert.equal(message.stopReason, "stop");
  assert.deepEqual(message.content, [{ type: "text", text: "Hello from the scripted model, streamed in pieces." }]);
  assert.equal(message.usage.input, 42);
  assert.equal(message.usage.output, 9);
  assert.equal(message.usage.totalTokens, 51);
  const body = server.requests.at(-1)!;
  assert.equal(
    server.headers.at(-1)!["authorization"],
    "Bearer sk-scripted-test",
    "the key from SCRIPTED_KEY was sent",
  );
  assert.deepEqual((body["messages"] as unknown[])[0], { role: "system", content: "You are octet's test model." });
  assert.deepEqual((body["messages"] as unknown[])[1], { role: "user", content: "please greet me" });
  const tools = body["tools"] as { function: { name: string } }[];
  assert.deepEqual(
    tools.map((t) => t.function.name),
    ["hello_world"],
  );
  assert.equal(body["stream"], true);
});

test("a tool call's arguments arrive in several pieces and are parsed back", async () => {
  server.push({
    match: "tool",
    tool_calls: [{ name: "hello_world", arguments: { name: "octet", nested: { n: [1, 2] } }, id: "call_1" }],
  });
  const { events, message } = await run("use the tool");
  assert.ok(events.filter((e) => e.type === "toolcall_delta").length >= 3);
  assert.equal(message.stopReason, "toolUse");
  assert.deepEqual(message.content, [
    { type: "toolCall", id: "call_1", name: "hello_world", arguments: { name: "octet", nested: { n: [1, 2] } } },
  ]);
  assert.ok(message.usage.totalTokens > 0);
});

test("the demo's two steps: the tool result goes back in the next request, then the answer", async () => {
  const { readFileSync } = await import("node:fs");
  const { repoRoot } = await import("./helpers/scripted-server.js");
  const demo = JSON.parse(readFileSync(join(repoRoot(), "examples", "scripted-model", "demo.json"), "utf8"));
  for (const step of demo) server.push(step);
  const ctx = context("say hello to octet");
  const first = await stream(resolved.model, ctx, requestOptions(resolved)).result();
  const call = first.content.find((c) => c.type === "toolCall");
  assert.ok(call && call.type === "toolCall");
  assert.deepEqual(call.arguments, { name: "octet" });
  ctx.messages.push(first, {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: "Hello, octet! Greetings from the hello-world extension." }],
    isError: false,
    timestamp: Date.now(),
  });
  const second = await stream(resolved.model, ctx, requestOptions(resolved)).result();
  assert.equal(second.stopReason, "stop");
  assert.match((second.content[0] as { text: string }).text, /Hello, octet!/);
  const sent = server.requests.at(-1)!["messages"] as Record<string, unknown>[];
  assert.deepEqual(sent.at(-1), {
    role: "tool",
    content: "Hello, octet! Greetings from the hello-world extension.",
    tool_call_id: call.id,
  });
  assert.equal(server.pending(), 0);
});

async function failure(step: Parameters<ScriptedServer["push"]>[0]): Promise<AssistantMessage> {
  server.push(step);
  const { events, message } = await run("fail please");
  assert.equal(events.at(-1)?.type, "error");
  assert.equal(message.stopReason, "error");
  return message;
}

test("HTTP 401 becomes an authentication line naming the key to check", async () => {
  const m = await failure({ error: { status: 401, message: "Incorrect API key provided" } });
  assert.equal(providerErrorKind(m), "auth");
  assert.equal(
    describeProviderError(m, resolved),
    "authentication failed: scripted/scripted-model answered 401 Incorrect API key provided; check SCRIPTED_KEY",
  );
});

test("HTTP 429 becomes a rate-limit line", async () => {
  const m = await failure({ error: { status: 429, message: "Rate limit reached for requests" } });
  assert.equal(providerErrorKind(m), "rate-limit");
  assert.match(
    describeProviderError(m, resolved),
    /^rate limited: scripted\/scripted-model answered 429 Rate limit reached/,
  );
});

test("HTTP 500 becomes a server-error line", async () => {
  const m = await failure({ error: { status: 500, message: "The server had an error" } });
  assert.equal(providerErrorKind(m), "server");
  assert.match(
    describeProviderError(m, resolved),
    /^server error: scripted\/scripted-model answered 500 The server had an error; /,
  );
});

test("a disconnect mid-stream becomes a connection-lost line; the partial text is kept", async () => {
  const m = await failure({ text: "one two three four five six seven eight", disconnect_after_chunks: 2 });
  assert.equal(providerErrorKind(m), "network");
  assert.match(
    describeProviderError(m, resolved),
    new RegExp(`^connection lost: ${server.url} closed the response mid-stream`),
  );
  const text = m.content.find((c) => c.type === "text");
  assert.ok(text && text.text.length > 0 && text.text.length < "one two three four five six seven eight".length);
});

test("a server that is not listening becomes 'could not reach <baseUrl>'", async () => {
  const mod = await scripted();
  const gone = await mod.startScriptedServer({});
  await gone.close();
  const model = { ...resolved.model, baseUrl: gone.url };
  const s = stream(model, context("hi"), { apiKey: "k", maxRetries: 0 });
  const m = await s.result();
  assert.equal(m.stopReason, "error");
  assert.equal(providerErrorKind(m), "network");
  assert.match(
    describeProviderError(m, { ...resolved, model }),
    new RegExp(`^network error: could not reach ${gone.url} `),
  );
});

test("a wrong key reaches the server and comes back as a 401 line", async () => {
  const s = stream(resolved.model, context("hi"), { apiKey: "sk-wrong" });
  const m = await s.result();
  assert.match(
    describeProviderError(m, resolved),
    /^authentication failed: .*401 Incorrect API key.*; check SCRIPTED_KEY$/,
  );
});

test("abort through the signal mid-stream ends with stopReason aborted", async () => {
  server.push({ text: "this answer never finishes because the step hangs", hang: true });
  const { events, message } = await run("hang", undefined, (e) => e.type === "text_delta");
  assert.equal(message.stopReason, "aborted");
  assert.equal(events.at(-1)?.type, "error");
  assert.equal(providerErrorKind(message), "aborted");
  assert.equal(describeProviderError(message), "request to scripted/scripted-model was cancelled");
});

test("status codes are read from each SDK's wording", async () => {
  const { statusOf } = await import("../src/models/errors.js");
  assert.equal(statusOf("401 Incorrect API key"), 401);
  assert.equal(statusOf('401 {"type":"error","error":{"type":"authentication_error"}}'), 401);
  assert.equal(statusOf("got status: 503 Service Unavailable. {}"), 503);
  assert.equal(statusOf('{"error":{"code":429,"message":"quota"}}'), 429);
  assert.equal(statusOf("Connection error."), undefined);
  assert.equal(statusOf("200 fine"), undefined);
});
