// The model catalog pi extensions read as ctx.modelRegistry (models/catalog.ts): models.json and
// pi-ai's built-ins, those with a key first, whether a key is set told from the environment and
// models.json without running anything; resolve() gives the key to the agent only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getModels } from "@mariozechner/pi-ai";
import { loadModelsFile } from "../src/models/models-file.js";
import { modelCatalog } from "../src/models/catalog.js";

function file() {
  const dir = mkdtempSync(join(tmpdir(), "octet-catalog-"));
  const path = join(dir, "models.json");
  const local = { baseUrl: "http://127.0.0.1:9", api: "openai-completions", models: [{ id: "m1" }] };
  writeFileSync(path, JSON.stringify({ providers: { keyed: { ...local, apiKey: "k" }, keyless: local } }));
  return loadModelsFile(path);
}

test("model catalog: models with a key first; a built-in provider counts its key from the environment", async () => {
  const catalog = modelCatalog({ modelsFile: file(), env: { ANTHROPIC_API_KEY: "sk-test" } });
  const list = catalog.list();
  assert.equal(catalog.list(), list, "the same array on every call");
  const firstUnavailable = list.findIndex((m) => !m.available);
  assert.ok(
    list.slice(firstUnavailable).every((m) => !m.available),
    "available ones come first",
  );
  const at = (provider: string, id: string) => list.find((m) => m.model.provider === provider && m.model.id === id);
  assert.equal(at("keyed", "m1")?.available, true);
  assert.equal(at("keyless", "m1")?.available, false);
  const anthropic = getModels("anthropic")[0]!;
  assert.equal(at("anthropic", anthropic.id)?.available, true);
  assert.equal(at("openai", getModels("openai")[0]!.id)?.available, false);
  assert.equal((await catalog.resolve("keyed", "m1")).apiKey, "k");
  await assert.rejects(catalog.resolve("keyless", "m1"), /provider "keyless" in .* has no "apiKey"/);
});
