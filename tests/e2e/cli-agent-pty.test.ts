// The agent in the interactive session on a real pseudo-terminal (issue 15.6): the answer
// streams, a write is asked first and "always" holds for the session, and Ctrl-C during a
// streaming answer cancels the prompt (not the session), which keeps what was committed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, processesMentioning, waitUntil } from "./helpers.js";
import { runOnPty } from "./pty.js";

async function scripted(script: Record<string, unknown>[]) {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as { url: string; close(): Promise<void> };
  const home = mkdtempSync(join(tmpdir(), "octet-pty-agent-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  writeFileSync(join(home, "settings.json"), JSON.stringify({ model: "scripted/scripted-model" }));
  return { server, home, ws: mkdtempSync(join(tmpdir(), "octet-pty-agent-ws-")) };
}

test("issue 15.4: on a terminal a write is asked first; 'always' allows the next write without asking", async () => {
  const t = await scripted([
    { match: "first", tool_calls: [{ name: "write", arguments: { path: "a.txt", content: "one" } }] },
    { match: "first", text: "Wrote a.txt." },
    { match: "second", tool_calls: [{ name: "write", arguments: { path: "b.txt", content: "two" } }] },
    { match: "second", text: "Wrote b.txt." },
  ]);
  const pty = await runOnPty(["--workspace", t.ws], { env: { OCTET_HOME: t.home, NO_COLOR: "1" } });
  try {
    await pty.waitFor(/model scripted\/scripted-model/, "the banner naming the model (from settings.json)");
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("first write\r");
    await pty.waitFor(/write a\.txt[\s\S]*allow\? \[y\]es \/ \[N\]o \/ \[a\]lways/, "the approval question");
    pty.type("a\r");
    await pty.waitFor(/Wrote a\.txt\./, "the first answer");
    const mark = pty.output().length;
    pty.type("second write\r");
    await pty.waitFor(/Wrote b\.txt\./, "the second answer", { from: mark });
    assert.doesNotMatch(pty.output().slice(mark), /allow\?/, "not asked again");
    assert.equal(readFileSync(join(t.ws, "a.txt"), "utf8"), "one");
    assert.equal(readFileSync(join(t.ws, "b.txt"), "utf8"), "two");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    await t.server.close();
  }
});

test("issue 15.3: Ctrl-C while the answer streams cancels the prompt; the session goes on", async () => {
  const t = await scripted([
    { match: "long", chunks: ["streaming ", "a ", "very ", "long ", "answer "], delay_ms: 200, hang: true },
    { match: "again", text: "Still here." },
  ]);
  const pty = await runOnPty(["--workspace", t.ws], { env: { OCTET_HOME: t.home, NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("a long one\r");
    await pty.waitFor(/streaming a/, "the answer streaming");
    pty.type("\x03");
    await pty.waitFor(/cancel/, "the cancellation");
    const cancelledAt = pty.output().search(/cancel/);
    await pty.waitFor(/octet> /, "the prompt again", { from: cancelledAt });
    pty.type("again\r");
    await pty.waitFor(/Still here\./, "the next answer");
    pty.type("/session\r");
    await pty.waitFor(/entries\s+4/, "four entries: two prompts, the aborted and the final answer");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    await t.server.close();
  }
});

test("issue 15.3: Ctrl-C during a bash tool call kills its process group; the prompt returns", async () => {
  const marker = `octet-pty-sleep-${process.pid}-${Date.now()}`;
  const t = await scripted([
    { match: "sleepy", tool_calls: [{ name: "bash", arguments: { command: `sleep 30; echo ${marker}` } }] },
    { match: "after", text: "Back again." },
  ]);
  const pty = await runOnPty(["--workspace", t.ws, "--yes"], { env: { OCTET_HOME: t.home, NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("sleepy command\r");
    await waitUntil(() => processesMentioning(marker).length > 0, 15_000, "the sleep to start");
    pty.type("\x03");
    await waitUntil(() => processesMentioning(marker).length === 0, 10_000, "the bash group to be gone");
    const mark = pty.output().length;
    await pty.waitFor(/octet> /, "the prompt again", { from: mark - 200 });
    pty.type("after that\r");
    await pty.waitFor(/Back again\./, "the next answer", { from: mark });
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    await t.server.close();
  }
});

test("WAVE1-32: an extension's user message streams like a prompt; Ctrl-C cancels it, the shell goes on", async () => {
  const t = await scripted([
    { match: "from the extension", chunks: ["extension ", "run ", "streaming "], delay_ms: 200, hang: true },
    { match: "typed", text: "Typed answer." },
  ]);
  const ext = mkdtempSync(join(tmpdir(), "octet-pty-inject-"));
  cpSync(join(ROOT, "tests/fixtures/inject-probe"), join(ext, "inject-probe"), { recursive: true });
  mkdirSync(join(ext, "inject-probe/node_modules/@octet"), { recursive: true });
  symlinkSync(join(ROOT, "sdk/typescript"), join(ext, "inject-probe/node_modules/@octet/extension"));
  const pty = await runOnPty(["--workspace", t.ws, "--extension-dir", ext, "--enable-extension", "inject-probe"], {
    env: { OCTET_HOME: t.home, NO_COLOR: "1" },
  });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/inject from the extension\r");
    await pty.waitFor(/message from an extension: from the extension/, "the run's heading");
    await pty.waitFor(/extension run streaming/, "its answer streaming");
    pty.type("\x03");
    await pty.waitFor(/cancelled: /, "the cancellation");
    const cancelledAt = pty.output().search(/cancelled: /);
    await pty.waitFor(/octet> /, "the prompt again", { from: cancelledAt });
    pty.type("typed\r");
    await pty.waitFor(/Typed answer\./, "a typed prompt after it");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    await t.server.close();
  }
});
