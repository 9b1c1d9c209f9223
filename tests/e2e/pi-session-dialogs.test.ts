// The dialogs of a pi handler the agent's session layer invokes (pi's tool_call, the
// session_before_* events) have no octet request to be asked under; the CLI asks them at the
// terminal like an extension's confirmation or input request (ForeignSessionLayer.dialogs).
// pi's permission-gate.ts, as shipped, in the shell on a real pseudo-terminal, against the
// scripted model server. (Without a terminal pi's ctx.hasUI is false and the gate blocks by
// itself: pi-examples-gates.test.ts.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { EXAMPLES } from "./pi-examples-support.js";
import { ROOT } from "./helpers.js";
import { runOnPty } from "./pty.js";

async function setup() {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const rm = (path: string) => ({ tool_calls: [{ name: "bash", arguments: { command: `rm -rf ${path}` } }] });
  const server = (await mod.startScriptedServer({
    script: [rm("first"), { text: "tried first" }, rm("second"), { text: "tried second" }],
  })) as { close(): Promise<void>; url: string };
  const home = mkdtempSync(join(tmpdir(), "octet-pi-dialogs-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-pi-dialogs-ws-"));
  writeFileSync(join(ws, "first"), "keep me");
  writeFileSync(join(ws, "second"), "remove me");
  // bash itself is allowed by the policy: only the extension's gate stands before rm -rf.
  const policy = join(home, "policy.toml");
  writeFileSync(policy, '[operations]\n"builtin.bash" = "allow"\n');
  const args = ["--model", "scripted/scripted-model", "--workspace", ws, "--policy", policy];
  return { server, home, ws, args: [...args, "--pi-extension", join(EXAMPLES, "permission-gate.ts")] };
}

const toolResults = (home: string): string[] => {
  const dir = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
  return readFileSync(join(dir, readdirSync(dir)[0]!), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { message?: { role?: string; content?: { text?: string }[] } })
    .filter((e) => e.message?.role === "toolResult")
    .map((e) => e.message!.content!.map((p) => p.text ?? "").join(""));
};

test("pi permission-gate, shell: its tool_call select is asked on the terminal; No blocks, Yes runs", async () => {
  const t = await setup();
  const pty = await runOnPty(t.args, { env: { OCTET_HOME: t.home, NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("clean first\r");
    await pty.waitFor(/Dangerous command:.*rm -rf first.*Allow\? \(Yes \| No\)/s, "the gate's question");
    pty.type("No\r");
    await pty.waitFor(/tried first/, "the first answer");
    assert.equal(existsSync(join(t.ws, "first")), true, "a 'No' kept the file");
    pty.type("clean second\r");
    await pty.waitFor(/rm -rf second.*Allow\?/s, "the second question");
    pty.type("Yes\r");
    await pty.waitFor(/tried second/, "the second answer");
    assert.equal(existsSync(join(t.ws, "second")), false, "a 'Yes' let rm -rf run");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
    const [blocked, ran] = toolResults(t.home);
    assert.match(blocked!, /Blocked by user/);
    assert.doesNotMatch(ran!, /Blocked/);
  } finally {
    pty.stop();
    await t.server.close();
  }
});
