// What pi extensions draw, in octet's shell on a real pseudo-terminal (issue 17, item 7): pi's
// shipped custom-header.ts, custom-footer.ts and message-renderer.ts, loaded as shipped by
// --pi-extension (QuickJS), in a session with the scripted model server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, runCli } from "./helpers.js";
import { EXAMPLES } from "./pi-examples-support.js";
import { runOnPty, type PtyRun } from "./pty.js";

async function shell(example: string, script: Record<string, unknown>[]) {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as { close(): Promise<void>; url: string };
  const home = mkdtempSync(join(tmpdir(), "octet-pi-chrome-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-pi-chrome-ws-"));
  const args = ["--model", "scripted/scripted-model", "--workspace", ws, "--pi-extension", join(EXAMPLES, example)];
  const pty = await runOnPty(args, { env: { OCTET_HOME: home, NO_COLOR: "1" } });
  return { pty, server, home };
}

/** The session file's entries (the one session the shell opened). */
function entries(home: string): Record<string, unknown>[] {
  const dir = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
  return readFileSync(join(dir, readdirSync(dir)[0]!), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

async function quit(pty: PtyRun): Promise<void> {
  pty.type("/quit\r");
  assert.equal(await pty.exit(), 0);
}

test("pi custom-header.ts: session_start's header is drawn above the prompt; /builtin-header removes it", async () => {
  const { pty, server } = await shell("custom-header.ts", [{ match: "hello", text: "Hi there." }]);
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("hello\r");
    await pty.waitFor(/Hi there\./, "the answer");
    await pty.waitFor(/shitty coding agent v\d[\s\S]*octet> /, "the header's subtitle above the prompt");
    assert.match(pty.output(), /█▌ {2}█▌/, "the mascot's eyes drawn as text");
    // It changed while the prompt ran: drawn before the next prompt, not into the answer.
    assert.ok(pty.output().indexOf("shitty coding agent") > pty.output().indexOf("Hi there."), "after the answer");
    const mark = pty.output().length;
    pty.type("/builtin-header\r");
    await pty.waitFor(/Built-in header restored/, "the command's notification", { from: mark });
    await pty.waitFor(/octet> /, "the prompt again", { from: mark });
    assert.doesNotMatch(pty.output().slice(mark), /shitty coding agent/, "an empty header draws nothing");
    await quit(pty);
  } finally {
    pty.stop();
    await server.close();
  }
});

test("pi custom-footer.ts: /footer puts its line above the prompt, typed text kept; again removes it", async () => {
  const { pty, server } = await shell("custom-footer.ts", []);
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/footer\r");
    await pty.waitFor(/Custom footer enabled/, "the command's notification");
    await pty.waitFor(/↑0 ↓0 \$0\.000[^\n]*\n[^\n]*octet> /, "the footer's line right above the prompt");
    // The footer is cut to the terminal (100 columns here): no drawn line is wider than that.
    const footerLine = /↑0 ↓0 \$0\.000[^\r\n]*/.exec(pty.output())?.[0] ?? "";
    assert.ok([...footerLine].length <= 99, `the footer line fits the terminal (${[...footerLine].length} cells)`);
    pty.type("draft");
    await pty.waitFor(/octet> (?:\x1b\[\d+G)?draft/, "the typed text");
    // Narrowed to 80 columns: the footer is drawn again, cut to the new width, the typed text kept.
    let mark = pty.output().length;
    pty.resize();
    // readline redraws first with the old prompt; then the footer is cut to 79 cells (only blanks
    // are left of its right part).
    await pty.waitFor(/↑0 ↓0 \$0\.000 +…\r?\n[^\n]*octet> (?:\x1b\[\d+G)?draft/, "the footer redrawn", {
      from: mark,
    });
    const narrow =
      [
        ...pty
          .output()
          .slice(mark)
          .matchAll(/↑0 ↓0 \$0\.000[^\r\n]*/g),
      ].at(-1)?.[0] ?? "";
    assert.ok([...narrow].length <= 79, `the footer line fits 80 columns (${[...narrow].length} cells)`);
    mark = pty.output().length;
    pty.type("\x15/footer\r");
    await pty.waitFor(/Default footer restored/, "the footer removed", { from: mark });
    await pty.waitFor(/octet> /, "the prompt again", { from: mark });
    const after = pty.output().slice(pty.output().lastIndexOf("Default footer restored"));
    assert.doesNotMatch(after, /↑0 ↓0/, "no footer line after it was removed");
    await quit(pty);
  } finally {
    pty.stop();
    await server.close();
  }
});

test("WAVE1-39: pi message-renderer.ts: /status warn shows the custom message through its renderer", async () => {
  const { pty, server, home } = await shell("message-renderer.ts", [{ match: "hello", text: "Hi there." }]);
  try {
    await pty.waitFor(/octet> /, "the prompt");
    // The first prompt opens the session the message is appended to.
    pty.type("hello\r");
    await pty.waitFor(/Hi there\./, "the answer");
    await pty.waitFor(/octet> /, "the prompt again", { from: pty.output().indexOf("Hi there.") });
    pty.type("/status warn disk almost full\r");
    await pty.waitFor(/status-update:\s*\r?\n[\s\S]*\[WARN\] disk almost full/, "the message as its renderer drew it");
    // The host records display (WAVE1-39); the renderer's text travels with the entry for the frontend.
    const entry = entries(home).find((e) => JSON.stringify(e).includes("disk almost full"));
    assert.ok(entry, "the custom message is in the session file");
    const text = JSON.stringify(entry);
    assert.match(text, /"display":true/, "display recorded in the entry's payload");
    assert.match(text, /\[WARN\] disk almost full/, "the rendered text recorded with it");
    await quit(pty);
  } finally {
    pty.stop();
    await server.close();
  }
});

test("pi message-renderer.ts over a pipe: the displayed message is printed as its renderer drew it", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script: [{ match: "hello", text: "Hi there." }] })) as {
    close(): Promise<void>;
    url: string;
  };
  const home = mkdtempSync(join(tmpdir(), "octet-pi-chrome-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  try {
    const args = ["--model", "scripted/scripted-model", "--workspace", home];
    const r = await runCli([...args, "--pi-extension", join(EXAMPLES, "message-renderer.ts")], {
      env: { OCTET_HOME: home },
      timeoutMs: 60_000,
      input: "hello\n/status error out of disk\n/quit\n",
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\[message-renderer\] status-update:\n {0,2}\[ERROR\] out of disk\n\n?octet> /);
  } finally {
    await server.close();
  }
});
