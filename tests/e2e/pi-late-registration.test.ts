// pi's registrations and dialogs after the load, in octet's shell on a real pseudo-terminal
// (issue 17, item 6): a late pi.on for an event the session layer delivers is called, a late
// registerCommand says why octet cannot add it, and a shortcut handler's dialog is refused naming
// why (shortcut/trigger has no parent request to ask under). Extensions written as pi documents.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./helpers.js";
import { runOnPty, type PtyRun } from "./pty.js";

async function quit(pty: PtyRun): Promise<void> {
  pty.type("/quit\r");
  assert.equal(await pty.exit(), 0);
}

/** The session file's entries (the one session the shell opened). */
function entries(home: string): Record<string, unknown>[] {
  const dir = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
  return readFileSync(join(dir, readdirSync(dir)[0]!), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

// A pi extension that subscribes and registers from a command, after its load.
const LATE = `
export default function (pi) {
  pi.registerCommand("arm", {
    handler: async (_args, ctx) => {
      pi.on("agent_end", async () => {
        await pi.appendEntry("late-hook", { ran: true });
      });
      pi.on("message_update", () => {});
      pi.registerCommand("late", { handler: async () => {} });
      ctx.ui.notify("armed", "info");
    },
  });
}
`;

test("pi.on after the load: a session-layer event handler is called; others, late commands say why not", async () => {
  const dir = mkdtempSync(join(tmpdir(), "octet-pi-late-"));
  writeFileSync(join(dir, "late.ts"), LATE);
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script: [{ match: "hello", text: "Hi there." }] })) as {
    close(): Promise<void>;
    url: string;
  };
  const home = mkdtempSync(join(tmpdir(), "octet-pi-late-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const args = ["--model", "scripted/scripted-model", "--workspace", dir, "--pi-extension", join(dir, "late.ts")];
  const pty = await runOnPty(args, { env: { OCTET_HOME: home, NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/arm\r");
    await pty.waitFor(/armed/, "the command ran");
    await pty.waitFor(/registerCommand|"late"[\s\S]*tools only/, "the late registerCommand's warning");
    assert.match(pty.output(), /carries tools only/, "the warning says why a late command cannot be added");
    // message_update travels as octet's notifications, subscribed at initialize: not added later.
    await pty.waitFor(/ignored pi\.on\("message_update"\) after the load: octet subscribes/, "the late hook's refusal");
    const mark = pty.output().length;
    pty.type("hello\r");
    await pty.waitFor(/Hi there\./, "the answer", { from: mark });
    await pty.waitFor(/octet> /, "the prompt again", { from: pty.output().lastIndexOf("Hi there.") });
    await quit(pty);
    const late = entries(home).filter((e) => JSON.stringify(e).includes("late-hook"));
    assert.equal(late.length, 1, "the late agent_end handler appended its entry once");
  } finally {
    pty.stop();
    await server.close();
  }
});

// A shortcut whose handler asks: refused as the shortcut's, with the reason, never put under a call.
const ASKING_SHORTCUT = `
export default function (pi) {
  pi.registerShortcut("ctrl+g", {
    description: "asks",
    handler: async (ctx) => {
      try {
        const yes = await ctx.ui.confirm("Proceed?", "from a shortcut");
        ctx.ui.notify("answered " + yes, "info");
      } catch (e) {
        ctx.ui.notify("refused: " + e.message, "warning");
      }
    },
  });
}
`;

test("pi registerShortcut: a dialog from the handler is refused naming why (no parent to ask under)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "octet-pi-shortcut-"));
  writeFileSync(join(dir, "asks.ts"), ASKING_SHORTCUT);
  const pty = await runOnPty(["--workspace", dir, "--pi-extension", join(dir, "asks.ts")], {
    env: { NO_COLOR: "1" },
  });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("\x07");
    await pty.waitFor(/refused: [^\n]*shortcut\/trigger is a notification without a parent/, "the refusal");
    assert.doesNotMatch(pty.output(), /Proceed\?/, "nothing asked");
    await quit(pty);
  } finally {
    pty.stop();
  }
});
