import { test } from "node:test";
import assert from "node:assert/strict";
import { formatModelRef, parseModelRef } from "../src/models/ref.js";

test("parseModelRef splits provider/id", () => {
  assert.deepEqual(parseModelRef("anthropic/claude-sonnet-4-5"), { provider: "anthropic", id: "claude-sonnet-4-5" });
  assert.deepEqual(parseModelRef("ollama/llama3.1:8b"), { provider: "ollama", id: "llama3.1:8b" });
  assert.deepEqual(parseModelRef("  scripted/scripted-model \n"), { provider: "scripted", id: "scripted-model" });
});

test("parseModelRef splits at the first slash: ids may contain slashes", () => {
  assert.deepEqual(parseModelRef("openrouter/anthropic/claude-3.5-sonnet"), {
    provider: "openrouter",
    id: "anthropic/claude-3.5-sonnet",
  });
  assert.equal(formatModelRef(parseModelRef("openrouter/a/b")), "openrouter/a/b");
});

test("parseModelRef errors name the text and show the expected form", () => {
  const cases: [string, RegExp][] = [
    ["claude", /model "claude" has no provider: expected "provider\/id"/],
    ["/claude", /model "\/claude" has an empty provider: expected "provider\/id"/],
    ["anthropic/", /model "anthropic\/" has an empty model id: expected "provider\/id"/],
    ["", /model "" has no provider/],
    ["anthropic/claude sonnet", /model "anthropic\/claude sonnet" contains whitespace/],
  ];
  for (const [text, message] of cases) assert.throws(() => parseModelRef(text), message, text);
});
