// The agent's sessions through the octet binary (issue 15.6, 15.1): sessions list / --continue /
// --resume, the interactive shell over a pipe, kill -9 in the middle of a turn, and an
// extension's user message in the shell (WAVE1-32), against the scripted model server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, ROOT, runCli, waitUntil } from "./helpers.js";

import { MODEL, scripted, sessionFiles, entries } from "./agent-cli-support.js";

test("issue 15.6: sessions list, --continue and --resume carry the conversation on", async () => {
  const t = await scripted([{ text: "first reply" }, { text: "second reply" }, { text: "third reply" }]);
  try {
    const env = { OCTET_HOME: t.home };
    const base = [...MODEL, "--workspace", t.ws];
    assert.equal((await runCli([...base, "run", "remember the word PAPAYA"], { env, timeoutMs: 60_000 })).code, 0);
    const list = await runCli([...base, "--json", "sessions", "list"], { env });
    const sessions = JSON.parse(list.stdout) as { id: string; first_prompt: string }[];
    assert.equal(sessions.length, 1);
    assert.match(sessions[0]!.first_prompt, /PAPAYA/);
    const cont = await runCli([...base, "--continue", "run", "which word?"], { env, timeoutMs: 60_000 });
    assert.equal(cont.code, 0, cont.stderr);
    assert.match(JSON.stringify(t.server.requests[1]), /PAPAYA/);
    const resumed = await runCli([...base, "--resume", sessions[0]!.id.slice(0, 6), "run", "again?"], {
      env,
      timeoutMs: 60_000,
    });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(JSON.stringify(t.server.requests[2]), /which word\?/);
    assert.equal(sessionFiles(t.home).length, 1, "one session file throughout");
    const table = await runCli([...base, "sessions", "list"], { env });
    assert.match(table.stdout, new RegExp(sessions[0]!.id.slice(0, 8)));
  } finally {
    await t.server.close();
  }
});

test("issue 15.6: the shell over a pipe: a plain line is a prompt, /name and /session act on the session", async () => {
  const t = await scripted([{ text: "shell answer" }]);
  try {
    const r = await runCli([...MODEL, "--workspace", t.ws], {
      env: { OCTET_HOME: t.home },
      input: "hello from the shell\n/name my session\n/session\n/quit\n",
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /shell answer/);
    assert.match(r.stdout, /session named "my session"/);
    assert.match(r.stdout, /name\s+my session/);
    assert.match(r.stdout, /entries\s+3/);
  } finally {
    await t.server.close();
  }
});

test("issue 15.1: kill -9 mid-turn, a torn line left, then --continue: nothing committed is lost", async () => {
  const t = await scripted([
    { tool_calls: [{ name: "read", arguments: { path: "a.txt" } }] },
    { chunks: ["never ", "ending"], delay_ms: 30, hang: true },
    { text: "continued fine" },
  ]);
  try {
    writeFileSync(join(t.ws, "a.txt"), "content of a\n");
    const child = spawn(process.execPath, [CLI, ...MODEL, "--workspace", t.ws, "run", "read a.txt"], {
      env: { ...process.env, NO_COLOR: "1", OCTET_HOME: t.home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The second request is streaming: the user, assistant and tool result entries are committed.
    await waitUntil(() => t.server.requests.length >= 2, 30_000, "the second model request");
    const file = sessionFiles(t.home)[0]!;
    await waitUntil(() => entries(file).length >= 3, 10_000, "three committed entries");
    const before = entries(file);
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    // What a write cut by the kill leaves: part of a line, never reported as committed.
    appendFileSync(file, '{"type":"message","id":"torn0000","parent_id":');
    const r = await runCli([...MODEL, "--workspace", t.ws, "--continue", "run", "go on"], {
      env: { OCTET_HOME: t.home },
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "continued fine\n");
    assert.match(r.stderr, /torn|skipp/i, "the torn line is reported");
    assert.match(r.stderr, /stale lock/, "the dead process's lock is taken over, and said so");
    assert.doesNotMatch(readFileSync(file, "utf8"), /torn0000/, "the torn line is gone from the file");
    const after = entries(file);
    assert.deepEqual(after.slice(0, before.length), before, "every committed entry is still there, unchanged");
    const roles = after.map((e) => (e["message"] as { role: string }).role);
    assert.deepEqual(roles.slice(0, 3), ["user", "assistant", "toolResult"]);
    assert.equal(roles.at(-1), "assistant");
    assert.match(JSON.stringify(t.server.requests.at(-1)), /content of a/);
  } finally {
    await t.server.close();
  }
});

test("WAVE1-32: in the shell, an extension's user message runs and is drawn like a prompt", async () => {
  const t = await scripted([{ match: "from the extension", text: "answer to the extension's message" }]);
  const ext = mkdtempSync(join(tmpdir(), "octet-cli-inject-"));
  cpSync(join(ROOT, "tests/fixtures/inject-probe"), join(ext, "inject-probe"), { recursive: true });
  mkdirSync(join(ext, "inject-probe/node_modules/@octet"), { recursive: true });
  symlinkSync(join(ROOT, "sdk/typescript"), join(ext, "inject-probe/node_modules/@octet/extension"));
  try {
    const r = await runCli(
      [...MODEL, "--workspace", t.ws, "--extension-dir", ext, "--enable-extension", "inject-probe"],
      { env: { OCTET_HOME: t.home }, input: "/inject from the extension\n", timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /inject: ok/);
    assert.match(r.stdout, /message from an extension: from the extension\n(.|\n)*answer to the extension's message/);
    const [file] = sessionFiles(t.home);
    const users = entries(file!).filter((e) => (e["message"] as { role?: string } | undefined)?.role === "user");
    assert.equal(users.length, 1);
  } finally {
    await t.server.close();
  }
});
