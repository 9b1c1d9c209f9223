/**
 * The shell's interactive frontend on a real pseudo-terminal (issue 16.1, 16.5, 16.6) with the
 * composer-keys example: an extension fills the composer, a shortcut runs its handler, and Tab
 * completes from the extension, then natively.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, runCli } from "./helpers.js";
import { runOnPty } from "./pty.js";

const ARGS = ["--extension-dir", join(ROOT, "examples"), "--enable-extension", "composer-keys"];

async function shell() {
  const pty = await runOnPty(ARGS, { env: { NO_COLOR: "1" } });
  await pty.waitFor(/running composer-keys/, "the banner naming composer-keys");
  await pty.waitFor(/octet> /, "the prompt");
  return pty;
}

test("WAVE1-15: a command that calls composer/set leaves its text in the prompt line, ready to edit", async () => {
  const pty = await shell();
  try {
    const mark = pty.output().length;
    pty.type("/draft /draft fix the tests\r");
    await pty.waitFor(/drafted "\/draft fix the tests"[\s\S]*octet> \/draft fix the tests/, "the draft", {
      from: mark,
    });
    // The line is the composer: edited and submitted, it runs as typed.
    const second = pty.output().length;
    pty.type(" now\r");
    await pty.waitFor(/drafted "fix the tests now"/, "the edited line run as a command", { from: second });
    pty.type("\x15/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
  }
});

test("WAVE1-03, WAVE1-21: Ctrl-G, the extension's shortcut, runs its handler (shortcut/trigger)", async () => {
  const pty = await shell();
  try {
    const mark = pty.output().length;
    pty.type("\x07");
    await pty.waitFor(/Ctrl-G pressed/, "the handler's notification", { from: mark });
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
  }
});

test("ACMP-02, ACMP-06, ACMP-08: Tab completes from the extension, then /commands and paths natively", async () => {
  const pty = await shell();
  try {
    // Tab as a person would press it, until the extension's registration (it follows the
    // initialize answer) is admitted and its completion lands.
    let mark = pty.output().length;
    for (let attempt = 0; ; attempt++) {
      pty.type("say :roc\t");
      if (await completedWithin(() => /:rocket:/.test(pty.output().slice(mark)), 1_000)) break;
      if (attempt >= 15) throw new Error(`no completion from the extension: ${JSON.stringify(pty.output())}`);
      pty.type("\x15");
      mark = pty.output().length;
    }
    pty.type("\x15"); // Ctrl-U: clear the line
    mark = pty.output().length;
    pty.type("say :ta\t");
    await pty.waitFor(/:tada:\s+:taco:/, "both choices listed", { from: mark });
    pty.type("\x15");
    mark = pty.output().length;
    pty.type("/dra\t");
    await pty.waitFor(/\/draft/, "the extension command completed natively", { from: mark });
    pty.type("\x15");
    mark = pty.output().length;
    pty.type("see packages/proto\t");
    await pty.waitFor(/packages\/protocol\//, "a path completed natively from the workspace", { from: mark });
    pty.type("\x15/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
  }
});

/** An extension directory holding tests/fixtures/frontend-ext.mjs in its "pty" mode (an /echo command). */
function fixtureDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "octet-fe-pty-"));
  mkdirSync(join(dir, "fe"));
  const args = [join(ROOT, "tests", "fixtures", "frontend-ext.mjs"), "0.4", "pty"];
  writeFileSync(
    join(dir, "fe", "extension.toml"),
    `name = "fe"\nversion = "0.0.1"\napi_version = "0.4"\n\n` +
      `[entrypoint]\ncommand = ${JSON.stringify(process.execPath)}\n` +
      `args = ${JSON.stringify(args)}\n\n[capabilities]\nfilesystem = "none"\nprocess = false\nnetwork = false\n\n` +
      `[contributes]\ntools = ["composer"]\ncommands = ["echo"]\nnotifications = true\n`,
  );
  return dir;
}

test("ACMP-07, ACMP-17: an answer that arrives after the line was submitted never edits the next draft", async () => {
  const dir = fixtureDir();
  const pty = await runOnPty(["--extension-dir", dir, "--enable-extension", "fe"], { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    // First a completion that lands: the extension's registration is admitted (on a busy machine
    // it may come after the prompt is drawn), so the lagging query below really reaches it.
    // The registration follows the initialize answer, so a Tab right after the prompt may come
    // before it: press Tab as a person would, until the extension's completion lands.
    let mark = pty.output().length;
    for (let attempt = 0; ; attempt++) {
      pty.type("/echo :x\t");
      const landed = await completedWithin(() => /:xyz-0\.4/.test(pty.output().slice(mark)), 1_000);
      if (landed) break;
      if (attempt >= 15) throw new Error(`no completion from the extension: ${JSON.stringify(pty.output())}`);
      pty.type("\x15");
      mark = pty.output().length;
    }
    pty.type("\x15"); // Ctrl-U: clear the line
    mark = pty.output().length;
    pty.type("/echo lag :x");
    await pty.waitFor(/lag :x/, "the typed draft", { from: mark });
    // Tab asks the extension (it answers in 300 ms); the line is changed and submitted at once.
    pty.type("\tQ\r");
    await pty.waitFor(/echo lag :xQ/, "the line as typed, run");
    await pty.waitFor(/answering the lagging query/, "the extension answering late");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
    assert.doesNotMatch(pty.output().slice(mark), /:xyz/, "the late completion was discarded");
  } finally {
    pty.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("ACMP-16: several choices are listed and the line stays as typed; displaying applies none", async () => {
  const dir = fixtureDir();
  const pty = await runOnPty(["--extension-dir", dir, "--enable-extension", "fe"], { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    let mark = pty.output().length;
    for (let attempt = 0; ; attempt++) {
      pty.type("/echo :x\t");
      if (await completedWithin(() => /:xyz-0\.4/.test(pty.output().slice(mark)), 1_000)) break;
      if (attempt >= 15) throw new Error(`no completion from the extension: ${JSON.stringify(pty.output())}`);
      pty.type("\x15");
      mark = pty.output().length;
    }
    pty.type("\x15");
    mark = pty.output().length;
    // Two choices share ":xyz-": a shell completing their common part would edit the line.
    pty.type("/echo many :x\t");
    await pty.waitFor(/:xyz-a\s+:xyz-b/, "both choices listed", { from: mark });
    const listed = pty.output().length;
    pty.type("\r");
    await pty.waitFor(/echo many :x\s/, "the line run as typed", { from: listed });
    assert.doesNotMatch(pty.output().slice(listed), /echo many :xyz/, "the list applied nothing");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("ACMP-01: over a pipe the composer is refused, and the shell runs on", async () => {
  const args = ["--extension-dir", join(ROOT, "examples"), "--enable-extension", "composer-keys"];
  const r = await runCli(args, { input: "/draft hello\n/commands\n/quit\n" });
  assert.match(r.stdout, /error: .*no interactive frontend/);
  assert.match(r.stdout, /\/draft/, "the next line still ran");
});

/** Whether `check` holds within `ms` (polled every 20 ms); unlike waitFor, a miss stops nothing. */
async function completedWithin(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}
