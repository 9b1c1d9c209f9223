// pi's session_before_compact and session_compact, delivered by octet's agent (pi-events.ts) to a
// real pi extension in QuickJS (tests/fixtures/pi-session-probe), embedded as the README's
// "Embedding the agent" shows, with the host's sessionLayer option, against the scripted model
// server (real HTTP through pi-ai): a cancel vetoes, an extension's summary is saved instead of
// the model's, and session_compact sees the committed entry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import {
  Agent,
  PI_SESSION_EVENTS,
  SessionFile,
  loadModelsFile,
  parseModelRef,
  resolveModel,
  type AgentEvent,
} from "@octet/agent";
import { ROOT } from "./helpers.js";

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

test("pi compaction events: a veto, an extension's own summary, and session_compact with the entry", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({
    script: [{ text: "first answer" }, { text: "second answer" }],
  })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-pi-compact-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const workspace = mkdtempSync(join(tmpdir(), "octet-pi-compact-ws-"));
  const ext = mkdtempSync(join(tmpdir(), "octet-pi-compact-ext-"));
  cpSync(join(ROOT, "tests/fixtures/pi-session-probe"), join(ext, "pi-session-probe"), { recursive: true });
  let agent: Agent | null = null;
  const seen: string[] = [];
  const host = await ExtensionHost.start({
    workspace,
    extensionDirs: [ext],
    enable: ["pi-session-probe"],
    runtimes: [rpiRuntime({ mode: "print" })],
    sessionLayer: { events: PI_SESSION_EVENTS, state: () => agent?.piState() ?? null },
    onEvent: (e: HostEvent) => {
      if (e.type === "notification") seen.push(e.notification.message ?? "");
    },
  });
  try {
    const model = await resolveModel(parseModelRef("scripted/scripted-model"), {
      modelsFile: loadModelsFile(join(home, "models.json")),
      env: {},
    });
    const session = await SessionFile.create({ home, workspace });
    const a = new Agent({ session, model, host, compaction: { keepRecentTokens: 1 } });
    agent = a;
    const events: AgentEvent[] = [];
    a.subscribe((e) => events.push(e));
    assert.equal((await a.prompt("one")).outcome, "completed");
    assert.equal((await a.prompt("two")).outcome, "completed");
    await assert.rejects(a.compact("veto"), /session_before_compact hook of extension pi-session-probe cancelled/);
    assert.equal(a.session.entries().filter((e) => e.type === "compaction").length, 0, "a veto commits nothing");
    const requests = server.requests.length;
    const done = await a.compact("mine");
    assert.equal(server.requests.length, requests, "the extension's summary: the model is not asked");
    assert.match(done.summary, /^PI-SUMMARY of 5 messages, 6 entries$/);
    const entry = a.session.entries().find((e) => e.type === "compaction");
    assert.equal(entry?.type === "compaction" && entry.details?.["by"], "probe");
    assert.equal(entry?.type === "compaction" && entry.details?.["from_extension"], "pi-session-probe");
    // session_compact is awaited before compact() resolves; its notification may still be in flight.
    const deadline = Date.now() + 10_000;
    while (!seen.some((t) => t.startsWith("seen session_compact")) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    assert.ok(
      seen.includes("seen session_compact true compaction PI-SUMMARY of 5 messages, 6 entries"),
      seen.join("\n"),
    );
    await a.close();
  } finally {
    await host.shutdown();
    await server.close();
  }
});
