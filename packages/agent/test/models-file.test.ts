import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModelsFile } from "../src/models/models-file.js";
import { resolveModel } from "../src/models/resolve.js";

function file(content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "octet-models-"));
  const path = join(dir, "models.json");
  writeFileSync(path, content);
  return path;
}

// pi's docs/models.md "Minimal Example", as written.
const PI_MINIMAL = `{
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "models": [
        { "id": "llama3.1:8b" },
        { "id": "qwen2.5-coder:7b" }
      ]
    }
  }
}`;

// pi's docs/models.md "Full Example", as written.
const PI_FULL = `{
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1",
      "api": "openai-completions",
      "apiKey": "ollama",
      "models": [
        {
          "id": "llama3.1:8b",
          "name": "Llama 3.1 8B (Local)",
          "reasoning": false,
          "input": ["text"],
          "contextWindow": 128000,
          "maxTokens": 32000,
          "cost": { "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0 }
        }
      ]
    }
  }
}`;

test("a missing models.json is null, not an error", () => {
  assert.equal(loadModelsFile(join(tmpdir(), "octet-no-such-dir-xyz", "models.json")), null);
});

test("pi's minimal Ollama example loads as written, with pi's defaults", async () => {
  const models = loadModelsFile(file(PI_MINIMAL));
  assert.ok(models);
  assert.deepEqual([...models.providers.keys()], ["ollama"]);
  const r = await resolveModel({ provider: "ollama", id: "qwen2.5-coder:7b" }, { modelsFile: models, env: {} });
  assert.equal(r.source, "models.json");
  assert.equal(r.apiKey, "ollama");
  assert.deepEqual(
    {
      id: r.model.id,
      name: r.model.name,
      api: r.model.api,
      provider: r.model.provider,
      baseUrl: r.model.baseUrl,
      reasoning: r.model.reasoning,
      input: r.model.input,
      cost: r.model.cost,
      contextWindow: r.model.contextWindow,
      maxTokens: r.model.maxTokens,
    },
    {
      id: "qwen2.5-coder:7b",
      name: "qwen2.5-coder:7b",
      api: "openai-completions",
      provider: "ollama",
      baseUrl: "http://localhost:11434/v1",
      reasoning: false,
      input: ["text"],
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      contextWindow: 128000,
      maxTokens: 16384,
    },
  );
});

test("pi's full example keeps every given value; provider compat merges under model compat", async () => {
  const full = loadModelsFile(file(PI_FULL));
  const r = await resolveModel({ provider: "ollama", id: "llama3.1:8b" }, { modelsFile: full, env: {} });
  assert.equal(r.model.name, "Llama 3.1 8B (Local)");
  assert.equal(r.model.maxTokens, 32000);
  assert.equal(r.model.contextWindow, 128000);

  const withCompat = JSON.parse(PI_MINIMAL);
  withCompat.providers.ollama.compat = { supportsDeveloperRole: false, supportsReasoningEffort: false };
  withCompat.providers.ollama.models = [
    { id: "gpt-oss:20b", reasoning: true, compat: { supportsReasoningEffort: true } },
  ];
  const c = loadModelsFile(file(JSON.stringify(withCompat)));
  const rc = await resolveModel({ provider: "ollama", id: "gpt-oss:20b" }, { modelsFile: c, env: {} });
  assert.equal(rc.model.reasoning, true);
  assert.deepEqual(rc.model.compat, { supportsDeveloperRole: false, supportsReasoningEffort: true });
});

test("unknown fields (pi has more) are ignored, not errors", async () => {
  const raw = JSON.parse(PI_MINIMAL);
  raw.someFutureField = 1;
  raw.providers.ollama.models[0].thinkingLevelMap = { off: null, high: "high" };
  raw.providers.ollama.models[0].futureModelField = { x: 1 };
  const models = loadModelsFile(file(JSON.stringify(raw)));
  const r = await resolveModel({ provider: "ollama", id: "llama3.1:8b" }, { modelsFile: models, env: {} });
  assert.deepEqual(r.model.thinkingLevelMap, { off: null, high: "high" });
});

test("invalid JSON is an error naming the file, line and column", () => {
  const path = file('{\n  "providers": {\n    "ollama": { baseUrl: "x" }\n  }\n}\n');
  assert.throws(
    () => loadModelsFile(path),
    (e: Error) => {
      assert.match(e.message, /models\.json: not valid JSON at line 3, column 17/);
      assert.ok(e.message.startsWith(path));
      return true;
    },
  );
  assert.throws(() => loadModelsFile(file('{"providers": {')), /not valid JSON at line 1, column 16/);
});

test("an unknown api is an error naming it and the supported ones", () => {
  const raw = JSON.parse(PI_MINIMAL);
  raw.providers.ollama.api = "openai-chat";
  assert.throws(
    () => loadModelsFile(file(JSON.stringify(raw))),
    (e: Error) => {
      assert.match(e.message, /providers\.ollama\.api: unknown api "openai-chat"; supported: /);
      for (const api of ["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"]) {
        assert.ok(e.message.includes(api), api);
      }
      return true;
    },
  );
  raw.providers.ollama.api = "openai-completions";
  raw.providers.ollama.models[0].api = "nope";
  assert.throws(
    () => loadModelsFile(file(JSON.stringify(raw))),
    /providers\.ollama\.models\[0\]\.api: unknown api "nope"/,
  );
});

test("a model without id is an error naming its path", () => {
  const raw = JSON.parse(PI_MINIMAL);
  raw.providers.ollama.models[1] = { name: "no id here" };
  assert.throws(() => loadModelsFile(file(JSON.stringify(raw))), /: providers\.ollama\.models\[1\]\.id: required/);
});

test("shape errors name the path and the value", () => {
  const bad: [unknown, RegExp][] = [
    [[], /\(top level\): expected an object/],
    [{ providers: [] }, /providers: expected an object of providers by name/],
    [
      { providers: { x: { models: [{ id: "m" }], api: "openai-completions" } } },
      /providers\.x\.baseUrl: required: "x" is not a built-in provider/,
    ],
    [
      { providers: { x: { baseUrl: "http://h", models: [{ id: "m" }] } } },
      /providers\.x\.models\[0\]\.api: required here or at providers\.x\.api/,
    ],
    [{ providers: { ollama: { baseUrl: 5 } } }, /providers\.ollama\.baseUrl: expected a string, got 5/],
    [
      { providers: { o: { baseUrl: "h", api: "openai-completions", models: [{ id: "m", contextWindow: -1 }] } } },
      /models\[0\]\.contextWindow: expected a whole number of tokens > 0, got -1/,
    ],
    [
      { providers: { o: { baseUrl: "h", api: "openai-completions", models: [{ id: "m", input: ["audio"] }] } } },
      /models\[0\]\.input: expected an array of "text" and "image"/,
    ],
    [{ providers: { o: { headers: { a: 1 } } } }, /providers\.o\.headers\.a: expected a string, got 1/],
  ];
  for (const [raw, message] of bad) assert.throws(() => loadModelsFile(file(JSON.stringify(raw))), message);
});

test("pi's Google AI Studio and proxy-override examples load as written", async () => {
  const google = loadModelsFile(
    file(`{
  "providers": {
    "my-google": {
      "baseUrl": "https://generativelanguage.googleapis.com/v1beta",
      "api": "google-generative-ai",
      "apiKey": "GEMINI_API_KEY",
      "models": [
        {
          "id": "gemma-4-31b-it",
          "name": "Gemma 4 31B",
          "input": ["text", "image"],
          "contextWindow": 262144,
          "reasoning": true
        }
      ]
    }
  }
}`),
  );
  const g = await resolveModel(
    { provider: "my-google", id: "gemma-4-31b-it" },
    { modelsFile: google, env: { GEMINI_API_KEY: "g" } },
  );
  assert.equal(g.apiKey, "g");
  assert.equal(g.model.api, "google-generative-ai");
  assert.deepEqual(g.model.input, ["text", "image"]);
  assert.equal(g.keyHint, "GEMINI_API_KEY");

  const proxy = loadModelsFile(
    file('{ "providers": { "anthropic": { "baseUrl": "https://my-proxy.example.com/v1" } } }'),
  );
  const { getModels } = await import("@mariozechner/pi-ai");
  const id = getModels("anthropic")[0]!.id;
  const a = await resolveModel({ provider: "anthropic", id }, { modelsFile: proxy, env: { ANTHROPIC_API_KEY: "k" } });
  assert.equal(a.model.baseUrl, "https://my-proxy.example.com/v1");
  assert.equal(a.apiKey, "k");
});
