// session/compact outcomes on the wire (W 2.21c, SCOMP-13/15/16): a real host, the agent's
// SessionFile, the scripted model server over HTTP and the wire-level fixture fake-ext-v2.mjs
// (no SDK), so each request and answer is read exactly as the extension sent and received it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import {
  Agent,
  SessionFile,
  sessionControlService,
  sessionEntriesService,
  type AgentEvent,
  type SessionEntry,
} from "../src/index.js";
import {
  expectReady,
  entriesOnDisk,
  readJsonl,
  ROOT,
  scriptedHome,
  scriptedModel,
  scriptedServer,
  tempWorkspace,
  until,
  type ScriptStep,
} from "./support/harness.js";

const FAKE_V2 = join(ROOT, "tests/fixtures/fake-ext-v2.mjs");
const NAME = "compact-wire";
const BASE_FEATURES = ["request_cancellation", "content_parts", "session_control_v1"];

interface Msg {
  id?: number | string;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string };
}

/** An API 0.4 fake-ext-v2 folder selecting `features`; frames() reads the wire it saw. */
function wireExtension(
  features: string[],
  hooks: Record<string, string> = {},
): { dir: string; frames(): { dir: string; msg: Msg }[] } {
  const dir = mkdtempSync(join(tmpdir(), "octet-compact-wire-"));
  const ext = join(dir, NAME);
  mkdirSync(ext);
  const config = { api: "0.4", tools: ["echo", "ask"], features, hooks };
  writeFileSync(
    join(ext, "extension.toml"),
    `name = "${NAME}"
version = "0.0.1"
api_version = "0.4"

[entrypoint]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(FAKE_V2)}, ${JSON.stringify(JSON.stringify(config))}]

[capabilities]
filesystem = "none"
process = false
network = false

[contributes]
tools = ["echo", "ask"]
hooks = ${JSON.stringify(Object.keys(hooks))}
`,
  );
  const file = join(ext, "frames.jsonl");
  return { dir, frames: () => readJsonl<{ dir: string; msg: Msg }>(file) };
}

async function setup(
  script: ScriptStep[],
  o: { compaction?: boolean; hooks?: Record<string, string>; sessionEntries?: boolean } = {},
) {
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url);
  const workspace = tempWorkspace();
  const features = o.compaction === false ? [...BASE_FEATURES] : [...BASE_FEATURES, "session_compaction_v1"];
  if (o.sessionEntries !== false) features.push("session_entries");
  const ext = wireExtension(features, o.hooks);
  let agent: Agent | null = null;
  const sessionControl = sessionControlService({
    agent: () => agent,
    replace: (next) => {
      agent = next;
    },
    home,
  });
  const host = await ExtensionHost.start({
    workspace,
    octetHome: home,
    extensionDirs: [ext.dir],
    enable: [NAME],
    services: { sessionControl, sessionEntries: sessionEntriesService(() => agent) },
  });
  await expectReady(host, NAME, () => server.close());
  const session = await SessionFile.create({ home, workspace });
  const model = await scriptedModel(home);
  agent = new Agent({ session, model, host, maxRetries: 0, compaction: { keepRecentTokens: 1 } });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  const t = {
    server,
    host,
    events,
    agent: (): Agent => agent!,
    frames: ext.frames,
    /** A settled tool/call of this generation: its id and the owner the host issued with it. */
    settledParent: async (): Promise<{ parent_request_id: number; resource_owner: Record<string, unknown> }> => {
      const tag = `parent-${Math.random()}`;
      await host.callTool("echo", { tag });
      const call = ext
        .frames()
        .find((f) => f.dir === "in" && f.msg.method === "tool/call" && f.msg.params.arguments?.tag === tag);
      assert.ok(call, "the fixture saw the echo call");
      const owner = call.msg.params.context?.resource_owner;
      assert.ok(owner, "API 0.4 tool/call carries the issued resource_owner");
      return { parent_request_id: call.msg.id as number, resource_owner: owner };
    },
    /** session/compact sent by the fixture with `params`; the host's answer as the fixture read it. */
    compact: async (params: Record<string, unknown>): Promise<Msg> => {
      const out = await host.callTool("ask", { method: "session/compact", params });
      return JSON.parse(out.text) as Msg;
    },
    entries: (): SessionEntry[] => entriesOnDisk(agent!.session.path),
    compactions: (): SessionEntry[] => t.entries().filter((e) => e.type === "compaction"),
    /** The hook/run requests the fixture received, in order. */
    hookRuns: (): Msg[] => ext.frames().flatMap((f) => (f.dir === "in" && f.msg.method === "hook/run" ? [f.msg] : [])),
    done: async (): Promise<void> => {
      await agent!.close();
      await host.shutdown();
      await server.close();
    },
  };
  return t;
}

const ANSWERED: ScriptStep[] = [{ text: "First answer." }];

test("SCOMP-13: admission refusals carry -32601, -32602 (invalid_request, bounds_exceeded) and -32002", async () => {
  const t = await setup(ANSWERED);
  try {
    await t.agent().prompt("first question");
    const before = t.server.requests.length;
    const parent = await t.settledParent();
    const missing = await t.compact({ parent_request_id: parent.parent_request_id });
    assert.equal(missing.error?.code, -32602);
    assert.match(missing.error!.message, /^invalid_request session\/compact: resource_owner: missing/);
    const control = await t.compact({ ...parent, custom_instructions: "keep\u0007this" });
    assert.equal(control.error?.code, -32602);
    assert.match(control.error!.message, /^invalid_request session\/compact: custom_instructions/);
    const big = await t.compact({ ...parent, custom_instructions: "x".repeat(16 * 1024 + 1) });
    assert.equal(big.error?.code, -32602);
    assert.match(big.error!.message, /^bounds_exceeded session\/compact: custom_instructions/);
    const owner = parent.resource_owner;
    const foreign = await t.compact({
      ...parent,
      resource_owner: { ...owner, process_generation: (owner["process_generation"] as number) + 1 },
    });
    assert.equal(foreign.error?.code, -32002);
    assert.match(foreign.error!.message, /^not_foreground_owner session\/compact refused: resource_owner is not/);
    assert.equal(t.server.requests.length, before, "no refusal reached the summarizer");
    assert.equal(t.compactions().length, 0);
  } finally {
    await t.done();
  }
});

test("SCOMP-13: session/compact without session_compaction_v1 negotiated is -32601 unsupported_feature", async () => {
  const t = await setup(ANSWERED, { compaction: false });
  try {
    await t.agent().prompt("first question");
    const parent = await t.settledParent();
    const answer = await t.compact(parent);
    assert.equal(answer.error?.code, -32601);
    assert.match(answer.error!.message, /^unsupported_feature session\/compact needs the session_compaction_v1/);
    assert.equal(t.compactions().length, 0);
  } finally {
    await t.done();
  }
});

test("SCOMP-13: a summarizer request answered 500 is a -32603 JSON-RPC error, never success-shaped", async () => {
  const t = await setup([...ANSWERED, { error: { status: 500, message: "the summarizer broke" } }]);
  try {
    await t.agent().prompt("first question");
    const parent = await t.settledParent();
    const answer = await t.compact(parent);
    assert.equal(answer.result, undefined);
    assert.equal(answer.error?.code, -32603);
    assert.match(answer.error!.message, /^internal_error session\/compact failed: compaction failed: .*500/);
    assert.equal(t.compactions().length, 0, "nothing was committed");
    assert.equal(t.agent().isIdle(), true);
  } finally {
    await t.done();
  }
});

test("SCOMP-15: an undeliverable answer (the caller stopped reading) is not replayed: one entry", async () => {
  const t = await setup([...ANSWERED, { text: "Summary nobody reads." }]);
  try {
    await t.agent().prompt("first question");
    const parent = await t.settledParent();
    const before = t.server.requests.length;
    const abort = new AbortController();
    // The fixture closes its stdin, then sends session/compact: the host cannot deliver the answer.
    const asked = t.host
      .callTool("ask", { method: "session/compact", params: parent, closeStdin: true }, { signal: abort.signal })
      .catch((err: unknown) => err);
    await until(() => t.compactions().length === 1, "the compaction entry");
    await until(() => t.agent().isIdle(), "the agent to settle");
    abort.abort(new Error("the test stops waiting"));
    await asked;
    await until(
      () => t.host.status().find((s) => s.name === NAME)?.state !== "ready",
      "the caller's generation to end",
    );
    assert.equal(t.compactions().length, 1, "exactly one compaction entry");
    assert.equal(t.server.requests.length, before + 1, "one summarizer request, never replayed");
    const answers = t.frames().filter((f) => f.dir === "in" && f.msg.id !== undefined && f.msg.method === undefined);
    assert.equal(
      answers.some((f) => JSON.stringify(f.msg).includes("Summary nobody reads.")),
      false,
      "the fixture never read the answer",
    );
  } finally {
    await t.done();
  }
});

test("SCOMP-15: an answer over the frame bound is an error, never a truncated success", async () => {
  const huge = `${"The long summary. ".repeat(70_000)}END`;
  const t = await setup([...ANSWERED, { text: huge }]);
  try {
    await t.agent().prompt("first question");
    const parent = await t.settledParent();
    const answer = await t.compact(parent);
    const [entry] = t.compactions();
    assert.ok(entry && entry.type === "compaction");
    assert.equal(entry.summary, huge, "the stored summary is whole");
    assert.equal(answer.result, undefined, "over 1 MiB the answer cannot be a success frame");
    assert.equal(answer.error?.code, -32603, JSON.stringify(answer.error));
    assert.match(answer.error!.message, /could not be sent: outbound frame is \d+ bytes, over the 1048576-byte limit/);
    assert.equal(t.compactions().length, 1, "not replayed");
  } finally {
    await t.done();
  }
});

test("SCOMP-16: the caller's process dies mid-compaction; the summary is read to its usage and committed", async () => {
  const t = await setup([...ANSWERED, { chunks: ["Settled ", "despite ", "the caller."], delay_ms: 300 }]);
  try {
    await t.agent().prompt("first question");
    const parent = await t.settledParent();
    const before = t.server.requests.length;
    const asked = t.host.callTool("ask", { method: "session/compact", params: parent }).catch((err: unknown) => err);
    await until(() => t.server.requests.length === before + 1, "the summarizer request");
    const pid = t.host.status().find((s) => s.name === NAME)?.pid;
    assert.ok(typeof pid === "number", "the caller runs");
    process.kill(pid, "SIGKILL");
    await asked;
    await until(() => t.agent().isIdle(), "the compaction to settle");
    const end = t.events.find((e) => e.type === "compaction_end");
    assert.ok(end && end.type === "compaction_end");
    assert.equal(end.error, null, "not abandoned");
    assert.ok(end.usage && end.usage.output > 0, "the provider's usage was read");
    const entries = t.compactions();
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.type === "compaction" && entries[0]!.summary, "Settled despite the caller.");
    assert.equal(entries[0]!.id, end.entry_id);
  } finally {
    await t.done();
  }
});

test("SCOMP-14: a session_compact failure after commit keeps the entry, is -32603, never retried", async () => {
  const t = await setup([...ANSWERED, { text: "Kept summary." }], { hooks: { session_compact: "error" } });
  try {
    await t.agent().prompt("first question");
    const parent = await t.settledParent();
    const before = t.server.requests.length;
    const answer = await t.compact(parent);
    const kept = t.compactions();
    assert.equal(kept.length, 1, "the checkpoint stays");
    assert.equal(kept[0]!.type === "compaction" && kept[0]!.summary, "Kept summary.");
    assert.equal(answer.result, undefined);
    assert.equal(answer.error?.code, -32603);
    assert.match(
      answer.error!.message,
      new RegExp(
        `^internal_error session/compact failed: compaction committed as entry ${kept[0]!.id} and kept; ` +
          "it is not retried: session_compact of extension compact-wire failed: hook failed as asked",
      ),
    );
    assert.equal(t.server.requests.length, before + 1, "one summarizer request: no replay");
    assert.equal(t.hookRuns().filter((h) => h.params.hook === "session_compact").length, 1, "the hook is not retried");
    const end = t.events.find((e) => e.type === "compaction_end");
    assert.ok(end && end.type === "compaction_end");
    assert.equal(end.entry_id, kept[0]!.id, "compaction_end names the kept entry");
    // The session goes on from the checkpoint: the next request carries the summary.
    t.server.push({ text: "After the checkpoint." });
    const run = await t.agent().prompt("next question");
    assert.equal(run.outcome, "completed", String(run.error));
    assert.match(JSON.stringify(t.server.requests.at(-1)), /Kept summary\./);
    assert.equal(t.compactions().length, 1);
  } finally {
    await t.done();
  }
});

test("WAVE1-40: a session_before_compact cancel vetoes the compaction: refused, no summarizer request", async () => {
  const t = await setup(ANSWERED, { hooks: { session_before_compact: "veto" } });
  try {
    await t.agent().prompt("first question");
    const parent = await t.settledParent();
    const before = t.server.requests.length;
    const answer = await t.compact({ ...parent, custom_instructions: "Keep the plan." });
    assert.equal(answer.error?.code, -32602);
    assert.match(
      answer.error!.message,
      /^invalid_request session\/compact refused: the session_before_compact hook of extension compact-wire cancelled/,
    );
    assert.equal(t.server.requests.length, before, "the before-hook ran before the summarizer was asked");
    assert.equal(t.compactions().length, 0);
    const [run] = t.hookRuns();
    assert.equal(run?.params.payload.kind, "session_before_compact");
    assert.equal(run?.params.payload.custom_instructions, "Keep the plan.");
  } finally {
    await t.done();
  }
});

test("WAVE1-40: both hooks are awaited hook/run; the after-hook sees the committed entry, appends", async () => {
  const t = await setup([...ANSWERED, { text: "Hooked summary." }], {
    hooks: { session_before_compact: "continue", session_compact: "append" },
  });
  try {
    await t.agent().prompt("first question");
    const parent = await t.settledParent();
    const answer = await t.compact(parent);
    const [entry] = t.compactions();
    assert.ok(entry && entry.type === "compaction");
    // The answer is the compaction entry's, not the session head (the hook's private entry).
    assert.deepEqual(answer.result, { entry_id: entry.id, summary: "Hooked summary.", first_kept: entry.first_kept });
    const head = t.entries().at(-1)!;
    assert.equal(head.type, "custom");
    assert.equal(head.parent_id, entry.id, "the private entry follows the compaction entry");
    const runs = t.hookRuns();
    assert.deepEqual(
      runs.map((h) => h.params.hook),
      ["session_before_compact", "session_compact"],
      "each callback once: no duplicate from advisory notifications",
    );
    assert.equal(runs[0]!.params.payload.first_kept, entry.first_kept);
    assert.equal(runs[1]!.params.payload.compaction_entry.id, entry.id);
    assert.equal(runs[1]!.params.payload.compaction_entry.summary, "Hooked summary.");
    // Awaited: the after-hook (and its append) settled before the caller got its answer.
    const frames = t.frames().filter((f) => f.dir === "in");
    const hookAt = frames.findIndex((f) => f.msg.method === "hook/run" && f.msg.params.hook === "session_compact");
    const answerAt = frames.findIndex((f) => f.msg.result?.entry_id === entry.id);
    assert.ok(hookAt >= 0 && answerAt > hookAt, `hook/run at ${hookAt}, the answer at ${answerAt}`);
    const advisory = frames.filter((f) => /^compaction\//.test(f.msg.method ?? ""));
    assert.deepEqual(advisory, [], "no advisory compaction/* notification stands in for a callback");
  } finally {
    await t.done();
  }
});

test("WAVE1-40: without session_entries negotiated the declared compaction hooks are not called", async () => {
  const t = await setup([...ANSWERED, { text: "Unhooked summary." }], {
    hooks: { session_before_compact: "veto", session_compact: "error" },
    sessionEntries: false,
  });
  try {
    await t.agent().prompt("first question");
    const answer = await t.compact(await t.settledParent());
    assert.equal(answer.result?.summary, "Unhooked summary.");
    assert.deepEqual(t.hookRuns(), []);
  } finally {
    await t.done();
  }
});
