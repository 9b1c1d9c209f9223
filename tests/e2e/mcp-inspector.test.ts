/**
 * `octet mcp serve` driven by the MCP Inspector's CLI mode (`mcp-inspector --cli`), when it is
 * installed: it is not a dependency (about 150 MB, 240 packages), so the test runs where
 * MCP_INSPECTOR_CLI names its binary (e.g. after `npm install @modelcontextprotocol/inspector` in
 * a scratch folder: MCP_INSPECTOR_CLI=/that/folder/node_modules/.bin/mcp-inspector) and is
 * skipped elsewhere.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { CLI, EXAMPLES } from "./helpers.js";

const INSPECTOR = process.env["MCP_INSPECTOR_CLI"] ?? "";
const skip =
  INSPECTOR === "" || !existsSync(INSPECTOR) ? "MCP_INSPECTOR_CLI does not name the inspector's binary" : false;

async function inspect(...method: string[]): Promise<Record<string, unknown>> {
  const serve = [CLI, "mcp", "serve", "--extension-dir", EXAMPLES, "--enable-extension", "hello-world"];
  const { stdout } = await promisify(execFile)(INSPECTOR, ["--cli", process.execPath, ...serve, ...method], {
    timeout: 30_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

test("the MCP Inspector's CLI lists and calls an octet tool and lists its prompts", { skip }, async () => {
  const [tools, call, prompts] = await Promise.all([
    inspect("--method", "tools/list"),
    inspect("--method", "tools/call", "--tool-name", "hello_world", "--tool-arg", "name=inspector"),
    inspect("--method", "prompts/list"),
  ]);
  assert.deepEqual(
    (tools["tools"] as { name: string }[]).map((t) => t.name),
    ["hello_world"],
  );
  assert.equal(call["isError"], false);
  assert.match((call["content"] as { text: string }[])[0]!.text, /Hello, inspector!/);
  assert.ok((prompts["prompts"] as { name: string }[]).some((p) => p.name === "hello"));
});
