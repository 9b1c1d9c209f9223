/**
 * Issue 18.3: @octet/extension/testing, the authors' harness, on the bundled examples under the
 * real host: scripted answers to confirmations and inputs, captured progress, commands, hooks
 * and context, a start failure named with the extension's stderr, and close() that leaves no
 * process behind.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startExtension } from "@octet/extension/testing";
import { EXAMPLES, makeExtensions, processesMentioning, scratchOf } from "./helpers.js";

test("issue 18.3: long-task under the harness: scripted confirm and input, progress, close reaps it", async () => {
  const folder = join(EXAMPLES, "long-task");
  const ext = await startExtension(folder, { confirm: [true], input: ["nightly"] });
  // This run's processes, not those of examples.test.ts running long-task at the same time.
  let scratch = folder;
  try {
    scratch = scratchOf(ext.host.status().find((s) => s.name === "long-task")?.pid ?? -1);
    assert.equal(ext.name, "long-task");
    assert.deepEqual(ext.tools(), ["long_task"]);
    const r = await ext.call("long_task", { steps: 3, step_ms: 5 });
    assert.equal(r.isError, false, r.text);
    assert.deepEqual(r.structured, { completed: 3, steps: 3, label: "nightly" });
    assert.deepEqual(
      r.progress.flatMap((e) => (e.type === "status" ? [e.current] : [])),
      [0, 1, 2, 3],
    );
    assert.deepEqual(ext.asked, [
      { kind: "confirm", prompt: "Run a long task of 3 steps?", answer: true },
      { kind: "input", prompt: "A label for this run (optional):", answer: "nightly" },
    ]);
    // The answers ran out: the next confirmation is denied, as without a person.
    const denied = await ext.call("long_task", { steps: 2 });
    assert.equal(denied.text, "Not started: the run was not confirmed.");
    assert.equal(ext.asked.at(-1)?.answer, false);
  } finally {
    await ext.close();
  }
  assert.deepEqual(processesMentioning(scratch), []);
});

test("issue 18.3: hello-world under the harness: a command, a hook's deny and context, collected context", async () => {
  const ext = await startExtension(join(EXAMPLES, "hello-world"));
  try {
    const cmd = await ext.command("hello", "octet authors");
    assert.equal(cmd.text, "Hello, octet authors!");
    const denied = await ext.hook("before_prompt", { prompt: "please #deny-hello" });
    assert.equal(denied.denied, "the prompt asked hello-world to deny it");
    const allowed = await ext.hook("before_prompt", { prompt: "hi" });
    assert.equal(allowed.denied, null);
    assert.deepEqual(
      allowed.context.map((c) => c.label),
      ["hello-world"],
    );
    assert.deepEqual(
      (await ext.context("hi")).map((c) => c.content),
      ["The hello-world extension is active."],
    );
  } finally {
    await ext.close();
  }
});

test("issue 18.3: an extension that does not start is reported with its state and stderr", async () => {
  const { dir, cleanup } = await makeExtensions([{ name: "crasher", behaviour: "crash-on-start" }]);
  try {
    await assert.rejects(
      startExtension(join(dir, "crasher")),
      (err: Error) =>
        /extension crasher \(.*crasher\) is \w+, not ready: /.test(err.message) &&
        err.message.includes("fake-ext: crashing on start as asked"),
    );
    await assert.rejects(startExtension(dir), /no extension found in .*: no extension.toml or pi-extension.json there/);
    assert.deepEqual(processesMentioning(dir), []);
  } finally {
    await cleanup();
  }
});
