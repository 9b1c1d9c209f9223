/**
 * `octet check` on the examples in other languages and runtimes (issue 18.4): the Python SDK's
 * and the pi extensions (QuickJS, node and a process one) pass the same language-neutral kit.
 * Split from cli-check.test.ts so each file stays short.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkExamples, examplesWithManifest, foreignExamples } from "./check-helpers.js";

test("issue 18.4: octet check passes on every Python and pi example in examples/", async () => {
  const names = foreignExamples();
  assert.ok(names.includes("hello-tools") && names.includes("quickjs"), names.join(" "));
  // Every example with a manifest is checked by one of the two files.
  assert.ok(examplesWithManifest().length > names.length);
  await checkExamples(names);
});
