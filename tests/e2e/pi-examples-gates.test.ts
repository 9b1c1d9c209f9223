// pi's named examples in a real session, the tool_call gates (issue 17, "what it must show"):
// permission-gate blocks `rm -rf` when no one can confirm (--no-input, no UI) and protected-paths
// refuses a write to .env with pi's reason, each loaded as shipped with --pi-extension and driven
// through `octet run` against the scripted model server. See pi-examples.test.ts for the others.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { session } from "./pi-examples-support.js";

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

test("pi example tool-override (node): its `read` replaces the built-in, with a warning, and guards .env", async () => {
  const t = await session(
    "tool-override.ts",
    [
      {
        tool_calls: [
          { name: "read", arguments: { path: ".env" } },
          { name: "read", arguments: { path: "notes.txt" } },
        ],
      },
      { text: "read" },
    ],
    { runtime: "node" },
  );
  try {
    writeFileSync(join(t.ws, ".env"), "SECRET=1\n");
    writeFileSync(join(t.ws, "notes.txt"), "plain notes\n");
    const r = await t.octet(["run", "read both"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /the built-in tool "read" is replaced by extension \S+'s tool of that name/);
    const [guarded, plain] = t.toolResults();
    // octet's own read would have returned SECRET=1: the extension's ran, as pi runs it.
    assert.match(guarded!.content[0]!.text, /Access denied: "\.env" matches a blocked pattern/);
    assert.doesNotMatch(guarded!.content[0]!.text, /SECRET/);
    assert.equal(plain?.isError, false, JSON.stringify(plain));
    assert.match(plain!.content[0]!.text, /plain notes/);
  } finally {
    await t.server.close();
  }
});
