// session/wait_for_idle, session/switch (W 2.21b, SCTL) and session/compact (W 2.21c, SCOMP)
// through a real host, the control-probe extension (the TypeScript SDK in its own process), the
// agent's SessionFile and the scripted model server over HTTP.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost } from "@octet/host";
import { ErrorCode } from "@octet/protocol";
import { Agent, SessionFile, sessionControlService, type AgentEvent } from "../src/index.js";
import {
  expectReady,
  entriesOnDisk,
  fixtureExtension,
  scriptedHome,
  scriptedModel,
  scriptedServer,
  tempWorkspace,
  until,
  type ScriptStep,
} from "./support/harness.js";

interface ControlRecord {
  tag: string;
  op: string;
  ok: boolean;
  result?: Record<string, unknown> | null;
  code?: number | null;
  message?: string;
}

function controlProbe(python: boolean): { dir: string; log(): ControlRecord[] } {
  // The probe writes its log beside itself, in the extension folder's parent.
  return fixtureExtension<ControlRecord>(python ? "control-probe-py" : "control-probe", "../control.log", { python });
}

async function setup(script: ScriptStep[], o: { python?: boolean } = {}) {
  const server = await scriptedServer(script);
  const home = await scriptedHome(server.url);
  const workspace = tempWorkspace();
  const probe = controlProbe(o.python === true);
  const probeName = o.python === true ? "control-probe-py" : "control-probe";
  let agent: Agent | null = null;
  const lifecycle: string[] = [];
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
    extensionDirs: [probe.dir],
    enable: [probeName],
    reservedToolNames: ["read", "write", "edit", "bash"],
    services: { sessionControl },
  });
  await expectReady(host, probeName, () => server.close());
  const session = await SessionFile.create({ home, workspace });
  const model = await scriptedModel(home);
  agent = new Agent({ session, model, host, maxRetries: 0, compaction: { keepRecentTokens: 1 } });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => events.push(e));
  const t = {
    server,
    home,
    workspace,
    host,
    events,
    lifecycle,
    log: probe.log,
    agent: (): Agent => agent!,
    /** Waits for the probe's record tagged `tag` with this op. */
    record: async (tag: string, op?: string): Promise<ControlRecord> => {
      const find = () => probe.log().find((r) => r.tag === tag && (op === undefined || r.op === op));
      await until(() => find() !== undefined, `the probe's ${tag} record`);
      return find()!;
    },
    done: async (): Promise<void> => {
      await agent!.close();
      await host.shutdown();
      await server.close();
    },
  };
  return t;
}

test("SCTL-01, SCTL-03: wait_for_idle from a handler outside a run is answered {} once idle", async () => {
  const t = await setup([]);
  try {
    const out = await t.host.callTool("ctl", { op: "wait", tag: "w" });
    assert.equal(out.is_error, false);
    const r = await t.record("w");
    assert.deepEqual([r.ok, r.result], [true, null]);
  } finally {
    await t.done();
  }
});

test("SCTL-11: a tool of the running prompt waiting for idle is refused (deadlock), not hung", async () => {
  const t = await setup([
    { tool_calls: [{ name: "ctl", arguments: { op: "wait", tag: "dl" }, id: "c1" }] },
    { text: "ok" },
  ]);
  try {
    const run = await t.agent().prompt("wait inside");
    assert.equal(run.outcome, "completed", String(run.error));
    const r = await t.record("dl");
    assert.equal(r.ok, false);
    assert.equal(r.code, ErrorCode.InvalidParams);
    assert.match(r.message!, /^invalid_request session\/wait_for_idle refused: deadlock/);
  } finally {
    await t.done();
  }
});

test("SCTL-06, SCTL-08: an issued owner's wait is answered only after the prompt ended", async () => {
  const t = await setup([{ text: "slow answer", chunks: ["slow ", "answer"], delay_ms: 400 }]);
  try {
    let promptDone = false;
    const running = t
      .agent()
      .prompt("take your time")
      .then((r) => {
        promptDone = true;
        return r;
      });
    await until(() => !t.agent().isIdle(), "the prompt to start");
    const out = await t.host.callTool("ctl", { op: "later_wait", tag: "lw" });
    assert.equal(out.is_error, false);
    const r = await t.record("lw");
    assert.equal(r.ok, true, r.message);
    assert.equal(promptDone, true, "the wait was answered before the prompt ended");
    assert.equal((await running).outcome, "completed");
  } finally {
    await t.done();
  }
});

test("SCTL-04: session/switch closes the session and the next prompt goes to the other", async () => {
  const t = await setup([{ text: "in the other session" }]);
  try {
    const other = await SessionFile.create({ home: t.home, workspace: t.workspace });
    const otherId = other.id;
    await other.close();
    const first = t.agent();
    const out = await t.host.callTool("ctl", { op: "switch", tag: "sw", session_id: otherId });
    assert.equal(out.is_error, false);
    const r = await t.record("sw");
    assert.equal(r.ok, true, r.message);
    assert.equal(first.closed, true, "the first session was closed");
    assert.equal(t.agent().session.id, otherId);
    // The lock of the first session is released: it opens again.
    const reopened = await SessionFile.open(first.session.path);
    await reopened.close();
    const run = await t.agent().prompt("hello there");
    assert.equal(run.outcome, "completed", String(run.error));
    const texts = entriesOnDisk(t.agent().session.path).filter((e) => e.type === "message");
    assert.equal(texts.length, 2, "the prompt and its answer are in the other session");
  } finally {
    await t.done();
  }
});

test("SCTL-04: session/switch to an unknown id is invalid_request; nothing closes", async () => {
  const t = await setup([]);
  try {
    await t.host.callTool("ctl", { op: "switch", tag: "bad", session_id: "no-such-session" });
    const r = await t.record("bad");
    assert.equal(r.code, ErrorCode.InvalidParams);
    assert.match(r.message!, /^invalid_request session\/switch: session_id "no-such-session" is no session/);
    assert.equal(t.agent().closed, false);
  } finally {
    await t.done();
  }
});

test("SCOMP-06, SCOMP-10, SCOMP-11: a queued ctx.compact() goes out after the reply", async () => {
  const t = await setup([{ text: "First answer." }, { text: "Actual stored summary." }]);
  try {
    const run = await t.agent().prompt("first question");
    assert.equal(run.outcome, "completed", String(run.error));
    const out = await t.host.callTool("ctl", { op: "compact", tag: "c", instructions: "Keep the open questions." });
    assert.equal(out.is_error, false);
    const r = await t.record("c", "compact");
    assert.equal(r.ok, true, r.message);
    const compaction = entriesOnDisk(t.agent().session.path).find((e) => e.type === "compaction");
    assert.ok(compaction && compaction.type === "compaction");
    assert.deepEqual(r.result, {
      entry_id: compaction.id,
      summary: "Actual stored summary.",
      first_kept: compaction.first_kept,
    });
    const asked = JSON.stringify(t.server.requests.at(-1));
    assert.match(asked, /Focus: Keep the open questions\./);
    const order = t
      .log()
      .filter((x) => x.tag === "c")
      .map((x) => x.op);
    assert.deepEqual(order, ["queued", "compact"]);
  } finally {
    await t.done();
  }
});

test("SCOMP-07: a handler that fails after queueing compact(): nothing is sent and onError is told", async () => {
  const t = await setup([{ text: "First answer." }]);
  try {
    await t.agent().prompt("first question");
    const before = t.server.requests.length;
    const out = await t.host.callTool("ctl", { op: "compact", tag: "f", fail: true });
    assert.equal(out.is_error, true);
    const r = await t.record("f", "compact");
    assert.equal(r.ok, false);
    assert.match(r.message!, /session\/compact was not sent: request \d+ did not succeed/);
    assert.equal(t.server.requests.length, before, "no summarizer request");
    assert.equal(entriesOnDisk(t.agent().session.path).filter((e) => e.type === "compaction").length, 0);
  } finally {
    await t.done();
  }
});

test("SCOMP-05: session/compact while its parent is live is invalid_request", async () => {
  const t = await setup([]);
  try {
    await t.host.callTool("ctl", { op: "compact_live", tag: "live" });
    const r = await t.record("live");
    assert.equal(r.code, ErrorCode.InvalidParams);
    assert.match(
      r.message!,
      /^invalid_request session\/compact refused: parent request \d+ \(tool\/call\) is still live/,
    );
  } finally {
    await t.done();
  }
});

test("SCOMP-12: nothing to compact is a refusal (invalid_request), never shaped like success", async () => {
  const t = await setup([]);
  try {
    await t.host.callTool("ctl", { op: "later_compact", tag: "empty" });
    const r = await t.record("empty");
    assert.equal(r.ok, false);
    assert.equal(r.code, ErrorCode.InvalidParams);
    assert.match(r.message!, /^invalid_request session\/compact refused: nothing to compact/);
  } finally {
    await t.done();
  }
});

test("SCOMP-06: compactNow() after the parent settled, with the issued owner, compacts once", async () => {
  const t = await setup([{ text: "First answer." }, { text: "Later summary." }]);
  try {
    await t.agent().prompt("first question");
    await t.host.callTool("ctl", { op: "later_compact", tag: "lc" });
    const r = await t.record("lc");
    assert.equal(r.ok, true, r.message);
    assert.equal(r.result!["summary"], "Later summary.");
    assert.equal(entriesOnDisk(t.agent().session.path).filter((e) => e.type === "compaction").length, 1);
  } finally {
    await t.done();
  }
});

test("SCOMP-08: a call naming a cancelled parent is refused; the owner's next one is admitted", async () => {
  const t = await setup([]);
  try {
    const abort = new AbortController();
    const held = t.host.callTool("ctl", { op: "hold_then_compact", tag: "tomb" }, { signal: abort.signal });
    await t.record("tomb", "held");
    abort.abort(new Error("the user cancelled"));
    await held.catch(() => undefined);
    const r = await t.record("tomb", "hold_then_compact");
    assert.equal(r.code, ErrorCode.Unavailable);
    assert.match(r.message!, /^not_foreground_owner session\/compact refused: parent request \d+ was cancelled/);
    // Cancelling one request does not revoke the owner: a later call is admitted (and refused only
    // because this session has nothing to compact).
    await t.host.callTool("ctl", { op: "later_compact", tag: "after" });
    assert.match((await t.record("after")).message!, /^invalid_request session\/compact refused: nothing to compact/);
  } finally {
    await t.done();
  }
});

test("SCTL-03, SCTL-11 (Python SDK): wait_for_idle outside a run; a deadlock inside one", async () => {
  const t = await setup(
    [{ tool_calls: [{ name: "ctl", arguments: { op: "wait", tag: "in" }, id: "c1" }] }, { text: "ok" }],
    {
      python: true,
    },
  );
  try {
    await t.host.callTool("ctl", { op: "wait", tag: "out" });
    const out = await t.record("out");
    assert.equal(out.ok, true, out.message);
    const run = await t.agent().prompt("wait inside");
    assert.equal(run.outcome, "completed", String(run.error));
    const inside = await t.record("in");
    assert.equal(inside.code, ErrorCode.InvalidParams);
    assert.match(inside.message!, /^invalid_request session\/wait_for_idle refused: deadlock/);
  } finally {
    await t.done();
  }
});

test("SCOMP-06, SCOMP-07, SCOMP-11 (Python SDK): queued compact after the reply or dropped", async () => {
  const t = await setup([{ text: "First answer." }, { text: "Python summary." }], { python: true });
  try {
    await t.agent().prompt("first question");
    const failed = await t.host.callTool("ctl", { op: "compact", tag: "f", fail: true });
    assert.equal(failed.is_error, true);
    const dropped = await t.record("f", "compact");
    assert.match(dropped.message!, /session\/compact was not sent: request \d+ did not succeed/);
    await t.host.callTool("ctl", { op: "compact", tag: "c" });
    const r = await t.record("c", "compact");
    assert.equal(r.ok, true, r.message);
    const compaction = entriesOnDisk(t.agent().session.path).find((e) => e.type === "compaction");
    assert.ok(compaction && compaction.type === "compaction");
    assert.deepEqual(r.result, {
      entry_id: compaction.id,
      summary: "Python summary.",
      first_kept: compaction.first_kept,
    });
    await t.host.callTool("ctl", { op: "bad_owner", tag: "b" });
    assert.match((await t.record("b")).message!, /^invalid_request session_control\.compact_now\(\): owner must be/);
  } finally {
    await t.done();
  }
});

test("SCOMP-12 (Python SDK): compact_now() on a session with nothing to compact is refused, not success", async () => {
  const t = await setup([], { python: true });
  try {
    await t.host.callTool("ctl", { op: "later_compact", tag: "e" });
    const r = await t.record("e");
    assert.equal(r.ok, false);
    assert.equal(r.code, ErrorCode.InvalidParams);
    assert.match(r.message!, /^invalid_request session\/compact refused: nothing to compact/);
  } finally {
    await t.done();
  }
});

test("SCTL-10: before an agent is open (no active session) every operation is -32603, not success", async () => {
  const service = sessionControlService({ agent: () => null, replace: () => undefined, home: tempWorkspace() });
  const who = {
    extension: "x",
    owner: { session_id: "s", extension_instance_id: "i", process_generation: 1 },
    signal: new AbortController().signal,
  };
  for (const op of [
    () => service.waitForIdle(who),
    () => service.switchTo({ ...who, session_id: "other" }),
    () => service.compact!(who),
  ])
    await assert.rejects(op(), (err: { code?: number; message: string }) => {
      assert.equal(err.code, ErrorCode.InternalError);
      assert.match(err.message, /^internal_error session\/\w+ failed: no agent session is open yet/);
      return true;
    });
  assert.equal(service.idle(), true);
});
