// session_before_compact and session_compact (W 1.11, WAVE1-40) through a real host, the agent's
// own /compact, the scripted model server and an extension written with the TypeScript SDK
// (tests/fixtures/compact-hooks-probe, in its own process).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost } from "@octet/host";
import {
  Agent,
  AgentError,
  SessionFile,
  sessionControlService,
  sessionEntriesService,
  type AgentEvent,
  type SessionEntry,
} from "../src/index.js";
import {
  expectReady,
  entriesOnDisk,
  fixtureExtension,
  scriptedHome,
  scriptedModel,
  scriptedServer,
  tempWorkspace,
  type ScriptStep,
} from "./support/harness.js";

const NAME = "compact-hooks-probe";

interface HookRecord {
  hook: string;
  payload: Record<string, any>;
  note?: string;
  recursive?: string;
}

async function setup(script: ScriptStep[]) {
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url);
  const workspace = tempWorkspace();
  // The probe writes hooks.log beside itself, in the extension folder's parent.
  const { dir, log } = fixtureExtension<HookRecord>(NAME, "../hooks.log");
  let agent: Agent | null = null;
  const host = await ExtensionHost.start({
    workspace,
    octetHome: home,
    extensionDirs: [dir],
    enable: [NAME],
    services: {
      sessionEntries: sessionEntriesService(() => agent),
      sessionControl: sessionControlService({ agent: () => agent, replace: (a) => (agent = a), home }),
    },
  });
  await expectReady(host, NAME, () => server.close());
  const session = await SessionFile.create({ home, workspace });
  agent = new Agent({
    session,
    model: await scriptedModel(home),
    host,
    maxRetries: 0,
    compaction: { keepRecentTokens: 1 },
  });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  return {
    server,
    events,
    agent: agent as Agent,
    log,
    entries: (): SessionEntry[] => entriesOnDisk(agent!.session.path),
    done: async (): Promise<void> => {
      await agent!.close();
      await host.shutdown();
      await server.close();
    },
  };
}

test("WAVE1-40 (TypeScript SDK): ext.hook handlers veto, then observe the committed entry and append", async () => {
  const t = await setup([{ text: "First answer." }, { text: "SDK summary." }]);
  try {
    await t.agent.prompt("first question");
    const before = t.server.requests.length;
    await assert.rejects(t.agent.compact("veto"), (err: unknown) => {
      assert.ok(err instanceof AgentError);
      assert.equal(err.code, "compaction_vetoed");
      assert.match(err.message, /session_before_compact hook of extension compact-hooks-probe cancelled/);
      return true;
    });
    assert.equal(t.server.requests.length, before, "vetoed before the summarizer was asked");
    assert.deepEqual(
      t.entries().filter((e) => e.type === "compaction"),
      [],
    );
    const done = await t.agent.compact("Keep the plan.");
    assert.equal(done.summary, "SDK summary.");
    const log = t.log();
    assert.deepEqual(
      log.map((r) => r.hook),
      ["session_before_compact", "session_before_compact", "session_compact"],
    );
    assert.equal(log[1]!.payload["custom_instructions"], "Keep the plan.");
    assert.equal(log[1]!.payload["first_kept"], done.first_kept);
    assert.equal(log[2]!.payload["compaction_entry"].id, done.entry.id);
    assert.match(log[2]!.recursive!, /refused: called from a compaction hook/);
    // The private entry was written while the awaited after-hook ran, right after the checkpoint.
    const note = t.entries().find((e) => e.id === log[2]!.note);
    assert.ok(note && note.type === "custom");
    assert.equal(note.parent_id, done.entry.id);
    assert.deepEqual(note.data, { seen: done.entry.id });
    const notice = t.events.find((e) => e.type === "notice" && e.source === NAME);
    assert.ok(
      notice && notice.type === "notice" && notice.text === "compaction seen — before",
      "the hook's notification",
    );
  } finally {
    await t.done();
  }
});
