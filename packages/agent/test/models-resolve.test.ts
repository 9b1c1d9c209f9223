import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findEnvKeys, getModels, getProviders } from "@mariozechner/pi-ai";
import { keyVarsOf } from "../src/models/keys.js";
import { loadModelsFile, type ModelsFile } from "../src/models/models-file.js";
import { listModels, resolveModel } from "../src/models/resolve.js";

function modelsFile(raw: unknown): ModelsFile {
  const dir = mkdtempSync(join(tmpdir(), "octet-models-"));
  const path = join(dir, "models.json");
  writeFileSync(path, JSON.stringify(raw));
  const loaded = loadModelsFile(path);
  assert.ok(loaded);
  return loaded;
}

const local = (apiKey: unknown, extra: Record<string, unknown> = {}) =>
  modelsFile({
    providers: {
      local: { baseUrl: "http://127.0.0.1:1/v1", api: "openai-completions", apiKey, models: [{ id: "m" }], ...extra },
    },
  });
const LOCAL = { provider: "local", id: "m" };

test("a built-in model resolves from pi-ai's catalog with its key from the environment", async () => {
  const id = getModels("anthropic")[0]!.id;
  const r = await resolveModel(
    { provider: "anthropic", id },
    { modelsFile: null, env: { ANTHROPIC_API_KEY: "sk-fake" } },
  );
  assert.equal(r.source, "built-in");
  assert.equal(r.apiKey, "sk-fake");
  assert.equal(r.model.api, "anthropic-messages");
  assert.equal(r.model.id, id);
  assert.equal(r.keyHint, "ANTHROPIC_API_KEY");
});

test("a built-in provider without a key names the variable to set", async () => {
  const id = getModels("anthropic")[0]!.id;
  await assert.rejects(
    resolveModel({ provider: "anthropic", id }, { modelsFile: null, env: {} }),
    /no API key for anthropic\/.*: set ANTHROPIC_API_KEY \(or ANTHROPIC_OAUTH_TOKEN\)/,
  );
  await assert.rejects(
    resolveModel(
      { provider: "openai", id: getModels("openai")[0]!.id },
      { modelsFile: null, env: { OPENAI_API_KEY: "" } },
    ),
    /set OPENAI_API_KEY/,
  );
});

test("an unknown provider lists the providers; an unknown id lists the first 20 ids and how many more", async () => {
  await assert.rejects(
    resolveModel({ provider: "nope", id: "x" }, { modelsFile: local("k"), env: {} }),
    /unknown model provider "nope" in "nope\/x"; models\.json \(.*\): local; built-in: .*anthropic.*openai/,
  );
  const count = getModels("openrouter").length;
  assert.ok(count > 20);
  await assert.rejects(
    resolveModel({ provider: "openrouter", id: "no-such-model" }, { modelsFile: null, env: {} }),
    (e: Error) => {
      assert.match(e.message, /unknown model "no-such-model" for provider "openrouter"; its models: /);
      assert.match(e.message, new RegExp(`\\.\\.\\. ${count - 20} more$`));
      assert.equal(e.message.split(": ")[1]!.split(", ").length, 21);
      return true;
    },
  );
});

test("apiKey: an environment variable's name, else the literal value", async () => {
  const byName = await resolveModel(LOCAL, { modelsFile: local("MY_LOCAL_KEY"), env: { MY_LOCAL_KEY: "from-env" } });
  assert.equal(byName.apiKey, "from-env");
  assert.equal(byName.keyHint, "MY_LOCAL_KEY");
  const literal = await resolveModel(LOCAL, { modelsFile: local("MY_LOCAL_KEY"), env: {} });
  assert.equal(literal.apiKey, "MY_LOCAL_KEY");
  const plain = await resolveModel(LOCAL, { modelsFile: local("sk-literal-123"), env: {} });
  assert.equal(plain.apiKey, "sk-literal-123");
  assert.match(plain.keyHint, /providers\.local\.apiKey in .*models\.json/);
});

test("apiKey: !command runs through /bin/sh with the given environment and yields trimmed stdout", async () => {
  const r = await resolveModel(LOCAL, {
    modelsFile: local("!printf '  %s-%s \\n' \"$PART\" two"),
    env: { PATH: process.env["PATH"], PART: "one" },
  });
  assert.equal(r.apiKey, "one-two");
});

test("apiKey: a failing command is an error naming the command and its exit", async () => {
  await assert.rejects(
    resolveModel(LOCAL, { modelsFile: local("!echo vault locked >&2; exit 3"), env: {} }),
    /providers\.local\.apiKey in .*: command "!echo vault locked >&2; exit 3" exited with code 3: vault locked/,
  );
  await assert.rejects(resolveModel(LOCAL, { modelsFile: local("!true"), env: {} }), /printed nothing/);
});

test("a custom provider without apiKey says to add one", async () => {
  await assert.rejects(
    resolveModel(LOCAL, { modelsFile: local(undefined), env: {} }),
    /provider "local" in .* has no "apiKey"/,
  );
});

test("headers resolve like apiKey; authHeader adds the bearer header", async () => {
  const r = await resolveModel(LOCAL, {
    modelsFile: local("k1", {
      headers: { "x-team": "TEAM_VAR", "x-fixed": "plain", "x-cmd": "!echo c" },
      authHeader: true,
    }),
    env: { TEAM_VAR: "blue" },
  });
  assert.deepEqual(r.headers, { "x-team": "blue", "x-fixed": "plain", "x-cmd": "c", Authorization: "Bearer k1" });
});

test("model-level headers resolve too and win over the provider's", async () => {
  const file = modelsFile({
    providers: {
      local: {
        baseUrl: "http://127.0.0.1:1/v1",
        api: "openai-completions",
        apiKey: "k",
        headers: { "x-a": "provider", "x-b": "provider" },
        models: [{ id: "m", headers: { "x-b": "MODEL_VAR" } }],
      },
    },
  });
  const r = await resolveModel(LOCAL, { modelsFile: file, env: { MODEL_VAR: "model" } });
  assert.deepEqual(r.headers, { "x-a": "provider", "x-b": "model" });
  assert.equal(r.model.headers, undefined, "resolved values stay out of the model object");
});

test("a built-in provider routed through models.json: baseUrl, overrides and merged models", async () => {
  const builtIn = getModels("anthropic");
  const first = builtIn[0]!;
  const file = modelsFile({
    providers: {
      anthropic: {
        baseUrl: "https://proxy.example.com/v1",
        modelOverrides: { [first.id]: { name: "Routed", maxTokens: 1234 } },
        models: [{ id: "my-custom-claude" }, { id: builtIn[1]!.id, contextWindow: 999 }],
      },
    },
  });
  const env = { ANTHROPIC_API_KEY: "sk-fake" };
  const over = await resolveModel({ provider: "anthropic", id: first.id }, { modelsFile: file, env });
  assert.equal(over.model.baseUrl, "https://proxy.example.com/v1");
  assert.equal(over.model.name, "Routed");
  assert.equal(over.model.maxTokens, 1234);
  assert.equal(over.model.contextWindow, first.contextWindow);
  assert.equal(over.source, "models.json");
  assert.equal(over.apiKey, "sk-fake", "the built-in key still applies without apiKey in models.json");
  const custom = await resolveModel({ provider: "anthropic", id: "my-custom-claude" }, { modelsFile: file, env });
  assert.equal(custom.model.api, "anthropic-messages", "api comes from the built-in provider");
  assert.equal(custom.model.baseUrl, "https://proxy.example.com/v1");
  const replaced = await resolveModel({ provider: "anthropic", id: builtIn[1]!.id }, { modelsFile: file, env });
  assert.equal(replaced.model.contextWindow, 999);
  const rows = listModels({ modelsFile: file, env, provider: "anthropic" });
  assert.equal(rows.length, builtIn.length + 1, "built-ins kept, the new one added, the same id replaced");
});

test("listModels lists models.json and built-in models with whether a key is configured", () => {
  const rows = listModels({ modelsFile: local("k"), env: { GROQ_API_KEY: "g" } });
  assert.deepEqual(rows[0], {
    provider: "local",
    id: "m",
    name: "m",
    contextWindow: 128000,
    source: "models.json",
    hasKey: true,
  });
  const groq = rows.filter((r) => r.provider === "groq");
  assert.ok(groq.length > 0 && groq.every((r) => r.hasKey && r.source === "built-in"));
  const anthropic = rows.filter((r) => r.provider === "anthropic");
  assert.ok(anthropic.length > 0 && anthropic.every((r) => !r.hasKey));
  assert.equal(rows.length, 1 + getProviders().reduce((n, p) => n + getModels(p).length, 0));
});

test("each key variable octet names is one pi-ai's findEnvKeys reads for that provider", () => {
  let checked = 0;
  for (const provider of getProviders()) {
    for (const name of keyVarsOf(provider)) {
      const before = process.env[name];
      process.env[name] = "probe";
      try {
        assert.ok(findEnvKeys(provider)?.includes(name), `${provider}: pi-ai does not read ${name}`);
        checked++;
      } finally {
        if (before === undefined) delete process.env[name];
        else process.env[name] = before;
      }
    }
  }
  assert.ok(checked >= 25);
});
