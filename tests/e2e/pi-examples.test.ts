// pi's named examples in a real session (issue 17, "what it must show"): hello, permission-gate,
// protected-paths, todo, input-transform, bookmark and trigger-compact, each loaded as shipped from
// pi's package (node_modules/@mariozechner/pi-coding-agent/examples/extensions/, never edited) with
// --pi-extension, driven through `octet run` or the shell over a pipe against the scripted
// OpenAI-compatible server (real HTTP through pi-ai). What each example did is read where pi would
// leave it: the session file, the workspace, the requests the model received, what octet prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { session } from "./pi-examples-support.js";

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
      assert.equal(result?.isError, false);
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

test("pi example permission-gate: `rm -rf` is blocked under --no-input (no UI), a safe command runs", async () => {
  const t = await session("permission-gate.ts", [
    {
      tool_calls: [
        { name: "bash", arguments: { command: "rm -rf precious" } },
        { name: "bash", arguments: { command: "echo safe > ok.txt" } },
      ],
    },
    { text: "tried" },
  ]);
  try {
    writeFileSync(join(t.ws, "precious"), "keep me");
    // bash itself is allowed by a policy, so only the extension's gate stands between rm -rf and the file.
    const policy = join(mkdtempSync(join(tmpdir(), "octet-pi-examples-policy-")), "policy.toml");
    writeFileSync(policy, '[operations]\n"builtin.bash" = "allow"\n');
    const r = await t.octet(["--no-input", "--policy", policy, "run", "clean up"]);
    assert.equal(r.code, 0, r.stderr);
    const [blocked, allowed] = t.toolResults();
    assert.equal(blocked?.toolName, "bash");
    assert.equal(blocked?.isError, true);
    assert.match(blocked!.content[0]!.text, /Dangerous command blocked \(no UI for confirmation\)/);
    assert.equal(existsSync(join(t.ws, "precious")), true, "the blocked rm -rf did not run");
    assert.equal(allowed?.isError, false, JSON.stringify(allowed));
    assert.equal(readFileSync(join(t.ws, "ok.txt"), "utf8"), "safe\n", "a command that is not dangerous runs");
  } finally {
    await t.server.close();
  }
});

test("pi example protected-paths: a write to .env is refused with pi's reason, another write lands", async () => {
  const t = await session("protected-paths.ts", [
    {
      tool_calls: [
        { name: "write", arguments: { path: ".env", content: "SECRET=1" } },
        { name: "write", arguments: { path: "notes.txt", content: "fine" } },
      ],
    },
    { text: "wrote" },
  ]);
  try {
    const r = await t.octet(["--yes", "run", "write files"]);
    assert.equal(r.code, 0, r.stderr);
    const [refused, written] = t.toolResults();
    assert.equal(refused?.isError, true);
    assert.match(refused!.content[0]!.text, /Path "\.env" is protected/);
    assert.equal(existsSync(join(t.ws, ".env")), false, "the protected path was not written");
    assert.equal(written?.isError, false, JSON.stringify(written));
    assert.equal(readFileSync(join(t.ws, "notes.txt"), "utf8"), "fine");
  } finally {
    await t.server.close();
  }
});

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
