import { test } from "node:test";
import assert from "node:assert/strict";
import { OctetError } from "@octet/protocol";
import type { Entry } from "../../src/host/extension-status.js";
import type { HostEvent } from "../../src/events.js";
import { catalogOf } from "../../src/host/extension-status.js";
import { ToolNameLedger } from "../../src/host/tool-ledger.js";
import { ReplacementQueue } from "../../src/host/replacement.js";
import { entry, fakeGeneration, readyGeneration, setState, type FakeGenerationOptions } from "./fake-entries.js";

interface Rig {
  queue: ReplacementQueue;
  log: string[];
  events: HostEvent[];
  /** How the next candidates start, in order; a candidate beyond the list just starts. */
  plan: Partial<FakeGenerationOptions>[];
  shuttingDown: { value: boolean };
}

function rig(entries: Entry[], log: string[], o: { supervise?: boolean } = {}): Rig {
  const events: HostEvent[] = [];
  const plan: Partial<FakeGenerationOptions>[] = [];
  const shuttingDown = { value: false };
  let next = 2;
  const queue = new ReplacementQueue({
    ledger: new ToolNameLedger(entries, []),
    newGeneration: (e) => {
      const tools = e.discovered.manifest!.contributes.tools;
      return fakeGeneration({ name: e.discovered.name, number: next++, tools, log, ...plan.shift() });
    },
    isShuttingDown: () => shuttingDown.value,
    supervision: { enabled: o.supervise ?? false },
    emit: (event) => events.push(event),
  });
  return { queue, log, events, plan, shuttingDown };
}

async function serving(name: string, tools: string[], log: string[]): Promise<Entry> {
  const e = entry(name, tools);
  e.generation = await readyGeneration({ name, number: 1, tools, log });
  e.catalog = catalogOf(e.generation);
  return e;
}

test("issue 14.3: replacements of one extension run in turn; each swaps, then drains the old one", async () => {
  const log: string[] = [];
  const e = await serving("ext", ["t"], log);
  const r = rig([e], log);
  let open!: () => void;
  r.plan.push({ gate: new Promise<void>((resolve) => (open = resolve)) });
  const first = r.queue.enqueue(e, "manual");
  const second = r.queue.enqueue(e, "manual");
  await new Promise((resolve) => setImmediate(resolve));
  // The second waits for the first: only one candidate exists while the first is starting.
  assert.deepEqual(r.log, ["start 2"]);
  assert.equal(e.generation!.number, 1, "the current generation keeps serving while the candidate starts");
  open();
  const [s1, s2] = await Promise.all([first, second]);
  assert.deepEqual(r.log, ["start 2", "drain 1", "start 3", "drain 2"]);
  assert.equal(s1.generation, 2);
  assert.equal(s2.generation, 3);
  assert.equal(e.generation!.number, 3);
});

test("issue 14.3: a failed candidate leaves the serving generation active, says so; the queue goes on", async () => {
  const log: string[] = [];
  const e = await serving("ext", ["t"], log);
  const r = rig([e], log);
  r.plan.push({ fail: "initialize timed out" });
  const failed = r.queue.enqueue(e, "manual");
  const next = r.queue.enqueue(e, "manual");
  await assert.rejects(failed, (err: unknown) => {
    assert.ok(err instanceof OctetError);
    assert.equal(err.code, "initialize_failed");
    assert.equal(err.message, 'reload of "ext" failed; generation 1 stays active: initialize timed out');
    return true;
  });
  assert.equal(e.parkedError, null, "a failed reload of a serving extension parks nothing");
  assert.equal((await next).generation, 3);
  assert.deepEqual(r.log, ["start 2", "start 3", "drain 1"]);
});

test("issue 14.3: a restart queued behind a reload that brought a ready generation starts nothing", async () => {
  const log: string[] = [];
  const e = await serving("ext", ["t"], log);
  setState(e.generation!, "crashed");
  const r = rig([e], log);
  const reload = r.queue.enqueue(e, "manual");
  const restart = r.queue.enqueue(e, "restart");
  assert.equal((await reload).generation, 2);
  assert.equal((await restart).generation, 2);
  assert.deepEqual(r.log, ["start 2", "drain 1"]);
});

test("issue 14.3: a name another holds refuses the reload before any start, and parks one that is down", async () => {
  const log: string[] = [];
  const holder = await serving("holder", ["shared"], log);
  const e = entry("ext", ["shared"]);
  const r = rig([holder, e], log);
  await assert.rejects(r.queue.enqueue(e, "manual"), (err: unknown) => {
    assert.ok(err instanceof OctetError);
    assert.equal(err.code, "tool_conflict");
    assert.equal(err.message, 'reload of "ext" refused: tool "shared" is already provided by extension "holder"');
    return true;
  });
  assert.deepEqual(r.log, [], "no candidate was created");
  assert.equal(e.nameConflict, true);
  assert.equal(e.parkedError, 'reload of "ext" refused: tool "shared" is already provided by extension "holder"');
});

test("issue 14.3: a changed catalog needs re-registration: the candidate is stopped, the old one serves", async () => {
  const log: string[] = [];
  const e = await serving("ext", ["t"], log);
  const r = rig([e], log);
  r.plan.push({ tools: ["t", "new_tool"] });
  await assert.rejects(r.queue.enqueue(e, "manual"), (err: unknown) => {
    assert.ok(err instanceof OctetError);
    assert.equal(err.code, "reregistration_required");
    assert.match(err.message, /re-registration required .*; generation 1 stays active$/);
    return true;
  });
  assert.deepEqual(r.log, ["start 2", "stop 2"]);
  assert.equal(e.generation!.number, 1);
});

test("issue 14.3: a candidate ready after shutdown began is stopped, never swapped in", async () => {
  const log: string[] = [];
  const e = await serving("ext", ["t"], log);
  const r = rig([e], log);
  let open!: () => void;
  r.plan.push({ gate: new Promise<void>((resolve) => (open = resolve)) });
  const reload = r.queue.enqueue(e, "manual");
  await new Promise((resolve) => setImmediate(resolve));
  r.shuttingDown.value = true;
  open();
  await assert.rejects(reload, /reload of "ext" abandoned: the host is shutting down/);
  assert.deepEqual(r.log, ["start 2", "stop 2"]);
  assert.equal(e.generation!.number, 1);
  await assert.rejects(r.queue.enqueue(e, "manual"), /the host is shutting down/);
});

test("issue 14.3: a successful replacement gives a supervised extension its supervisor, watching", async () => {
  const e = entry("ext", ["t"]);
  const r = rig([e], [], { supervise: true });
  const status = await r.queue.enqueue(e, "manual");
  assert.equal(status.supervision, "watching");
  assert.equal(status.state, "ready");
  e.supervisor!.stop();
});
