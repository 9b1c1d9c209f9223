// `octet run` binds the session services of API 0.4 as the shell does (issue 16): an extension's
// tool, called by the scripted model (examples/scripted-model, real HTTP through pi-ai), sets the
// active tools, sends a system message and queues a user message; the queued message runs before
// octet run exits, and its answer is the one printed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, runCli } from "./helpers.js";

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

test("octet run: set_active, a system message and a queued user message act on the run's session", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({
    script: [
      {
        match: "start",
        tool_calls: [
          { name: "set_active", arguments: { names: ["probe_note", "inject_user", "inject_message"] } },
          { name: "inject_message", arguments: { role: "system", text: "a note from the extension" } },
          { name: "inject_user", arguments: { text: "the follow-up" } },
        ],
      },
      { match: "start", text: "first answer" },
      { match: "the follow-up", text: "answer to the follow-up" },
    ],
  })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-run-services-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-run-services-ws-"));
  const ext = mkdtempSync(join(tmpdir(), "octet-run-services-ext-"));
  cpSync(join(ROOT, "tests/fixtures/inject-probe"), join(ext, "inject-probe"), { recursive: true });
  mkdirSync(join(ext, "inject-probe/node_modules/@octet"), { recursive: true });
  symlinkSync(join(ROOT, "sdk/typescript"), join(ext, "inject-probe/node_modules/@octet/extension"));
  try {
    const r = await runCli(
      [
        ...["--model", "scripted/scripted-model", "--workspace", ws],
        ...["--extension-dir", ext, "--enable-extension", "inject-probe", "run", "start"],
      ],
      { env: { OCTET_HOME: home }, timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "answer to the follow-up\n", "the answer printed is the last run's");
    const sent = readFileSync(join(ext, "inject-probe/inject.log"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { what: string; tool?: string; results?: string[] })
      .filter((l) => l.what === "sent");
    assert.deepEqual(
      sent.map((l) => [l.tool, l.results]),
      [
        ["set_active", ["ok"]],
        ["inject_message", ["ok"]],
        ["inject_user", ["ok"]],
      ],
      "each service admitted the request in octet run",
    );
    // The second request of the first run offered only the active tools and carried the message.
    const second = JSON.stringify(server.requests[1]);
    assert.match(second, /a note from the extension/);
    const tools = (server.requests[1]!["tools"] as { function: { name: string } }[]).map((t) => t.function.name);
    assert.deepEqual(tools.sort(), ["inject_message", "inject_user", "probe_note"]);
    // Both runs are in the one session, the follow-up as a user entry.
    const dir = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
    const lines = readFileSync(join(dir, readdirSync(dir)[0]!), "utf8")
      .split("\n")
      .filter(Boolean);
    const users = lines
      .map((l) => JSON.parse(l) as { message?: { role: string; content: unknown } })
      .filter((e) => e.message?.role === "user")
      .map((e) => JSON.stringify(e.message!.content));
    assert.equal(users.length, 2);
    assert.match(users[1]!, /the follow-up/);
    assert.equal(server.requests.length, 3);
  } finally {
    await server.close();
  }
});
