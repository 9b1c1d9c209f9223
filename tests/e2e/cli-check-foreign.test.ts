/**
 * `octet check` on the examples in other languages and runtimes (issue 18.4): the Python SDK's,
 * the pi extensions (QuickJS, node and a process one) and an MCP server behind octet's bridge
 * pass the same language-neutral kit.
 * Split from cli-check.test.ts so each file stays short.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkExamples, examplesWithManifest, foreignExamples } from "./check-helpers.js";

test("issue 18.4: octet check passes on every Python, pi and MCP server example in examples/", async () => {
  const names = foreignExamples();
  assert.ok(
    names.includes("hello-tools") && names.includes("quickjs") && names.includes("mcp-server"),
    names.join(" "),
  );
  // Every example with a manifest is checked by one of the two files.
  assert.ok(examplesWithManifest().length > names.length);
  await checkExamples(names);
});
