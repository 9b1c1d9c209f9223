#!/usr/bin/env node
// A scripted OpenAI-compatible chat-completions server on 127.0.0.1, so octet's real provider path
// (pi-ai's HTTP client, SSE parsing and tool-call assembly) runs without any model service or key.
// Plain ESM, no dependencies, no build step. Three uses:
//   import { startScriptedServer } from "./server.mjs"   (tests: record requests, push steps)
//   node examples/scripted-model/server.mjs --script FILE [--port N] [--write-models DIR]
//     prints "listening http://127.0.0.1:PORT/v1"; DIR/models.json then points pi-ai at it
//   the README demo (demo.json: the model calls hello_world, then answers)
//
// The script is a queue of steps, one per POST /v1/chat/completions:
//   { match?, text?, chunks?, tool_calls?: [{name, arguments, id?}], usage?, finish_reason?,
//     delay_ms?, error?: {status, message, type?, retry_after_ms?}, disconnect_after_chunks?, hang? }
// A request takes the first queued step whose `match` occurs in the last user message (a step
// without `match` matches anything). An empty queue answers 500 "script exhausted".
// Errors carry `x-should-retry: false` so the client's own retries do not eat further steps, unless
// the step gives retry_after_ms (then the client may retry after that delay, as with a real 429).
import { createServer } from "node:http";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const STEP_KEYS = new Set([
  "match",
  "text",
  "chunks",
  "tool_calls",
  "usage",
  "finish_reason",
  "delay_ms",
  "error",
  "disconnect_after_chunks",
  "hang",
  "comment",
]);
/** The model id the server reports and modelsJsonFor() configures. */
export const SCRIPTED_MODEL_ID = "scripted-model";
// A request body beyond this is refused (413): a test that sends more has a bug worth seeing.
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/** Checks one step and returns it; the error names the step's position and the bad field. */
export function checkStep(step, where = "step") {
  if (step === null || typeof step !== "object" || Array.isArray(step)) {
    throw new Error(`${where}: a step must be an object, got ${JSON.stringify(step)}`);
  }
  for (const key of Object.keys(step)) {
    if (!STEP_KEYS.has(key)) throw new Error(`${where}: unknown field "${key}" (known: ${[...STEP_KEYS].join(", ")})`);
  }
  if (step.text !== undefined && typeof step.text !== "string") throw new Error(`${where}.text must be a string`);
  if (step.match !== undefined && typeof step.match !== "string") throw new Error(`${where}.match must be a string`);
  if (step.chunks !== undefined && !(Array.isArray(step.chunks) && step.chunks.every((c) => typeof c === "string"))) {
    throw new Error(`${where}.chunks must be an array of strings`);
  }
  if (step.tool_calls !== undefined) {
    if (!Array.isArray(step.tool_calls)) throw new Error(`${where}.tool_calls must be an array`);
    step.tool_calls.forEach((call, i) => {
      if (typeof call?.name !== "string" || call.name === "") {
        throw new Error(`${where}.tool_calls[${i}].name must be a non-empty string`);
      }
      const args = call.arguments;
      if (args === null || typeof args !== "object" || Array.isArray(args)) {
        throw new Error(`${where}.tool_calls[${i}].arguments must be an object`);
      }
    });
  }
  if (step.error !== undefined) {
    const { status, message } = step.error ?? {};
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw new Error(`${where}.error.status must be an HTTP error status 400..599, got ${JSON.stringify(status)}`);
    }
    if (typeof message !== "string") throw new Error(`${where}.error.message must be a string`);
  }
  for (const key of ["delay_ms", "disconnect_after_chunks"]) {
    if (step[key] !== undefined && !(Number.isInteger(step[key]) && step[key] >= 0)) {
      throw new Error(`${where}.${key} must be a whole number >= 0, got ${JSON.stringify(step[key])}`);
    }
  }
  return step;
}

/** Reads a script file: a JSON array of steps, or {"steps": [...]}. */
export function loadScript(file) {
  const parsed = JSON.parse(readFileSync(file, "utf8"));
  const steps = Array.isArray(parsed) ? parsed : parsed?.steps;
  if (!Array.isArray(steps)) throw new Error(`${file}: expected a JSON array of steps or {"steps": [...]}`);
  return steps.map((s, i) => checkStep(s, `${file}: steps[${i}]`));
}

/** A models.json (pi's shape) whose provider "scripted" points at the server at `url`. */
export function modelsJsonFor(url, apiKey = "scripted") {
  return {
    providers: {
      scripted: {
        baseUrl: url,
        api: "openai-completions",
        apiKey,
        compat: { supportsDeveloperRole: false, supportsReasoningEffort: false, supportsStore: false },
        models: [{ id: SCRIPTED_MODEL_ID, name: "Scripted model (examples/scripted-model)", maxTokens: 4096 }],
      },
    },
  };
}

function lastUserText(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) return m.content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
    return "";
  }
  return "";
}

// Splits text into a few pieces at word boundaries, so a client sees several deltas, as from a real model.
function splitText(text) {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  if (words.length <= 1) return text === "" ? [] : [text];
  const per = Math.max(1, Math.ceil(words.length / 4));
  const out = [];
  for (let i = 0; i < words.length; i += per) out.push(words.slice(i, i + per).join(""));
  return out;
}

// Splits a JSON string into three or more pieces, so arguments arrive the way real servers stream them.
function splitArgs(json) {
  const n = Math.min(json.length, Math.max(3, Math.ceil(json.length / 8)));
  const size = Math.ceil(json.length / n);
  const out = [];
  for (let i = 0; i < json.length; i += size) out.push(json.slice(i, i + size));
  return out;
}

const estimate = (s) => Math.max(1, Math.ceil(s.length / 4));

function usageFor(step, body, outputText) {
  const given = step.usage ?? {};
  const prompt = given.prompt_tokens ?? estimate(JSON.stringify(body?.messages ?? []));
  const completion = given.completion_tokens ?? estimate(outputText);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function toolCallsOf(step, seq) {
  return (step.tool_calls ?? []).map((c, i) => ({
    id: c.id ?? `call_${seq}_${i}`,
    name: c.name,
    args: JSON.stringify(c.arguments),
  }));
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the server. Resolves to {url, port, requests, headers, push(step), pending(), close()}:
 * `requests` holds every chat-completions request body in arrival order, `headers` their headers.
 * `apiKey`, when given, is required as "Authorization: Bearer <apiKey>" (else 401, no step used).
 */
export async function startScriptedServer({ script = [], port = 0, apiKey, models = [SCRIPTED_MODEL_ID] } = {}) {
  const queue = script.map((s, i) => checkStep(s, `script[${i}]`));
  const requests = [];
  const headers = [];
  let seq = 0;

  const sendError = (res, status, message, type = "scripted_error", retryAfterMs) => {
    const h = { "content-type": "application/json" };
    if (retryAfterMs === undefined) h["x-should-retry"] = "false";
    else h["retry-after-ms"] = String(retryAfterMs);
    res.writeHead(status, h);
    res.end(JSON.stringify({ error: { message, type, code: status } }));
  };

  const take = (body) => {
    const text = lastUserText(body);
    const i = queue.findIndex((s) => s.match === undefined || text.includes(s.match));
    return i < 0 ? undefined : queue.splice(i, 1)[0];
  };

  async function answerStream(res, body, step, id) {
    const created = Math.floor(Date.now() / 1000);
    const model = typeof body.model === "string" ? body.model : SCRIPTED_MODEL_ID;
    const base = { id, object: "chat.completion.chunk", created, model };
    const text = step.chunks ? step.chunks.join("") : (step.text ?? "");
    const pieces = step.chunks ?? splitText(text);
    const calls = toolCallsOf(step, id);
    const frames = [
      { ...base, choices: [{ index: 0, delta: { role: "assistant", content: "" }, finish_reason: null }] },
    ];
    for (const p of pieces)
      frames.push({ ...base, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] });
    calls.forEach((c, index) => {
      const open = { index, id: c.id, type: "function", function: { name: c.name, arguments: "" } };
      frames.push({ ...base, choices: [{ index: 0, delta: { tool_calls: [open] }, finish_reason: null }] });
      for (const a of splitArgs(c.args)) {
        const delta = { tool_calls: [{ index, function: { arguments: a } }] };
        frames.push({ ...base, choices: [{ index: 0, delta, finish_reason: null }] });
      }
    });
    const finish = step.finish_reason ?? (calls.length > 0 ? "tool_calls" : "stop");
    const ending = [{ ...base, choices: [{ index: 0, delta: {}, finish_reason: finish }] }];
    if (body.stream_options?.include_usage) {
      const out = text + calls.map((c) => c.name + c.args).join("");
      ending.push({ ...base, choices: [], usage: usageFor(step, body, out) });
    }

    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    let sent = 0;
    // Not req.destroyed: a request whose body was read to the end counts as destroyed already.
    let closed = false;
    res.on("close", () => (closed = true));
    const gone = () => closed || res.destroyed;
    for (const frame of step.hang ? frames : [...frames, ...ending]) {
      if (gone()) return;
      if (step.disconnect_after_chunks !== undefined && sent >= step.disconnect_after_chunks) {
        res.socket?.destroy();
        return;
      }
      // Waiting for each write to flush makes a disconnect come after the chunks before it, not instead.
      await new Promise((resolve) => res.write(`data: ${JSON.stringify(frame)}\n\n`, () => resolve()));
      sent++;
      if (step.delay_ms) await sleep(step.delay_ms);
    }
    // A hanging step keeps the response open until the client goes away or the server closes.
    if (step.hang) return;
    res.end("data: [DONE]\n\n");
  }

  function answerJson(res, body, step, id) {
    const calls = toolCallsOf(step, id);
    const text = step.chunks ? step.chunks.join("") : (step.text ?? "");
    const message = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
    if (calls.length > 0) {
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: "function",
        function: { name: c.name, arguments: c.args },
      }));
    }
    const finish = step.finish_reason ?? (calls.length > 0 ? "tool_calls" : "stop");
    const out = text + calls.map((c) => c.name + c.args).join("");
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: typeof body.model === "string" ? body.model : SCRIPTED_MODEL_ID,
        choices: [{ index: 0, message, finish_reason: finish }],
        usage: usageFor(step, body, out),
      }),
    );
  }

  async function handle(req, res) {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method === "GET" && path === "/v1/models") {
      res.writeHead(200, { "content-type": "application/json" });
      const data = models.map((id) => ({ id, object: "model", created: 0, owned_by: "scripted" }));
      res.end(JSON.stringify({ object: "list", data }));
      return;
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      sendError(res, 404, `no route ${req.method} ${path} (serves POST /v1/chat/completions, GET /v1/models)`);
      return;
    }
    const parts = [];
    let size = 0;
    for await (const part of req) {
      size += part.length;
      if (size > MAX_BODY_BYTES) {
        sendError(res, 413, `request body over ${MAX_BODY_BYTES} bytes`);
        return;
      }
      parts.push(part);
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(parts).toString("utf8"));
    } catch (e) {
      sendError(res, 400, `request body is not JSON: ${e.message}`, "invalid_request_error");
      return;
    }
    requests.push(body);
    headers.push(req.headers);
    if (apiKey !== undefined && req.headers.authorization !== `Bearer ${apiKey}`) {
      sendError(res, 401, "Incorrect API key provided to the scripted server", "invalid_request_error");
      return;
    }
    const step = take(body);
    if (step === undefined) {
      const why = queue.length === 0 ? "script exhausted" : `no scripted step matches "${lastUserText(body)}"`;
      sendError(res, 500, why);
      return;
    }
    seq++;
    const id = `chatcmpl-scripted-${seq}`;
    if (step.error) {
      if (step.delay_ms) await sleep(step.delay_ms);
      const e = step.error;
      sendError(res, e.status, e.message, e.type ?? "scripted_error", e.retry_after_ms);
      return;
    }
    if (body.stream === true) await answerStream(res, body, step, id);
    else answerJson(res, body, step, id);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent) sendError(res, 500, `scripted server failed: ${e?.message ?? e}`);
      else res.destroy();
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = server.address().port;
  return {
    url: `http://127.0.0.1:${actual}/v1`,
    port: actual,
    requests,
    headers,
    push: (step) => void queue.push(checkStep(step, `pushed step ${queue.length}`)),
    pending: () => queue.length,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        // Hanging and keep-alive responses would hold close() forever.
        server.closeAllConnections();
      }),
  };
}

function parseArgs(argv) {
  const o = { script: undefined, port: 0, writeModels: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--script") o.script = value();
    else if (a === "--port") {
      const v = value();
      o.port = Number(v);
      if (!Number.isInteger(o.port) || o.port < 0 || o.port > 65535) throw new Error(`--port: not a port: ${v}`);
    } else if (a === "--write-models") o.writeModels = value();
    else throw new Error(`unknown argument ${a}`);
  }
  if (o.script === undefined) throw new Error("--script FILE is required");
  return o;
}

// Writes DIR/models.json with provider "scripted" at `url`. An existing file keeps its other
// providers: DIR may be a real $OCTET_HOME, and the demo must not cost a user their own models.
export function writeModels(dir, url) {
  const path = join(dir, "models.json");
  let doc = { providers: {} };
  if (existsSync(path)) {
    try {
      doc = JSON.parse(readFileSync(path, "utf8"));
    } catch (e) {
      throw new Error(`${path} exists and is not valid JSON (${e.message}); not overwriting it`);
    }
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) throw new Error(`${path}: not an object`);
    doc.providers ??= {};
  }
  doc.providers.scripted = modelsJsonFor(url).providers.scripted;
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`);
  return path;
}

async function main() {
  let o;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`scripted-model: ${e.message}\n`);
    process.stderr.write("usage: node server.mjs --script FILE [--port N] [--write-models DIR]\n");
    process.exit(2);
  }
  const srv = await startScriptedServer({ script: loadScript(o.script), port: o.port });
  if (o.writeModels !== undefined) writeModels(o.writeModels, srv.url);
  process.stdout.write(`listening ${srv.url}\n`);
  const stop = () => srv.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    process.stderr.write(`scripted-model: ${e?.message ?? e}\n`);
    process.exit(1);
  });
}
