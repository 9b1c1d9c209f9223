// pi's named examples in a real session (issue 17, "what it must show"), each loaded as shipped
// from pi's package (node_modules/@mariozechner/pi-coding-agent/examples/extensions/, never edited)
// with --pi-extension and driven through `octet run` or the shell over a pipe against the scripted
// OpenAI-compatible server (real HTTP through pi-ai). What each example did is read where pi would
// leave it: the session file, the workspace, the requests the model received, what octet prints.
// Here: hello (in both runtimes) and input-transform; pi-examples-gates.test.ts: permission-gate
// and protected-paths; pi-examples-session.test.ts: todo, bookmark and trigger-compact.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { rpiRuntime } from "@octet/rpi";
import { ROOT, runCli } from "./helpers.js";
import { EXAMPLES, session } from "./pi-examples-support.js";

for (const runtime of ["quickjs", "node"] as const) {
  test(`pi example hello (${runtime}): the model calls its tool and gets pi's result and details`, async () => {
    const t = await session(
      "hello.ts",
      [{ tool_calls: [{ name: "hello", arguments: { name: "pi" } }] }, { text: "greeted" }],
      runtime === "node" ? { runtime } : {},
    );
    try {
      const r = await t.octet(["run", "greet pi"]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, "greeted\n");
      const [result] = t.toolResults();
      assert.equal(result?.toolName, "hello");
      assert.equal(result?.isError, false, `${JSON.stringify(result)}\n${r.stderr}`);
      assert.equal(result?.content[0]?.text, "Hello, pi!");
      assert.deepEqual(result?.details, { greeted: "pi" });
      // The second request carries the result back to the model.
      assert.match(JSON.stringify(t.server.requests[1]), /Hello, pi!/);
      // The tool is offered to the model with its schema.
      assert.match(JSON.stringify(t.server.requests[0]?.["tools"]), /"name":"hello".*Name to greet/);
    } finally {
      await t.server.close();
    }
  });
}

test("pi example input-transform: ?quick is rewritten before the model sees it; ping is handled", async () => {
  const t = await session("input-transform.ts", [{ match: "Respond briefly", text: "TypeScript is typed JS." }]);
  try {
    const r = await t.octet(["run", "?quick What is TypeScript?"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "TypeScript is typed JS.\n");
    const sent = JSON.stringify(t.server.requests[0]);
    assert.match(sent, /Respond briefly in 1-2 sentences: What is TypeScript\?/);
    assert.doesNotMatch(sent, /\?quick/);
    const users = t.entries().filter((e) => (e["message"] as { role?: string } | undefined)?.role === "user");
    assert.match(JSON.stringify(users), /Respond briefly in 1-2 sentences/, "the transformed prompt is saved");
    // "ping" is answered by the extension: a notification, no model request.
    const ping = await t.octet(["--continue", "run", "ping"]);
    assert.equal(ping.code, 0, ping.stderr);
    assert.match(ping.stderr, /pong/);
    assert.equal(t.server.requests.length, 1, "a handled input never reaches the model");
  } finally {
    await t.server.close();
  }
});

test("--pi-runtime node runs a pi file QuickJS refuses for node:fs; an unknown runtime is a usage error", async () => {
  const t = await session("file-trigger.ts", [], { runtime: "node" });
  try {
    const r = await t.octet(["extensions", "status"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /file-trigger\s+rpi-node\s+ready/);
    const quickjs = await runCli(["--pi-extension", join(EXAMPLES, "file-trigger.ts"), "extensions", "status"], {
      timeoutMs: 60_000,
    });
    assert.match(quickjs.stdout + quickjs.stderr, /file-trigger\s+quickjs\s+parked[^\n]*import "node:fs"/);
    const bad = await runCli(["--pi-runtime", "deno", "--pi-extension", join(EXAMPLES, "hello.ts"), "call", "hello"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--pi-runtime "deno": expected quickjs or node/);
    assert.throws(
      () => rpiRuntime({ piRuntime: "deno" as never }),
      /piRuntime must be one of quickjs, node; got "deno"/,
    );
  } finally {
    await t.server.close();
  }
});

test("--pi-runtime node grants provider_metadata: a pi extension's registerProvider serves --model", async () => {
  const t = await session("hello.ts", [{ text: "from the extension's provider" }]);
  try {
    const probe = join(ROOT, "tests/fixtures/pi-provider-probe");
    const r = await runCli(
      [
        ...["--pi-runtime", "node", "--pi-extension", probe, "--model", "pi-scripted/probe-model"],
        ...["--workspace", t.ws, "--pi-flag", `scripted-url=${t.server.url}`, "run", "hi"],
      ],
      { env: { OCTET_HOME: t.home }, timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "from the extension's provider\n");
    assert.equal(t.server.requests[0]?.["model"], "probe-model");
  } finally {
    await t.server.close();
  }
});
