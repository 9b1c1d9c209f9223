// session/wait_for_idle, session/switch (W 2.21b) and session/compact (W 2.21c) in the host: the
// closed params and their bounds at the limit and one past, the owner rules, the ordered bounded
// queue, the deadlock refusal and the negotiation gates.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, WireError, bounds, methodSpec, methodsFor } from "@octet/protocol";
import {
  sessionControlService,
  type SessionControlRequester,
  type SessionControlService,
} from "../../../src/modules/session-control/session-control-service.js";
import { sessionControlModule } from "../../../src/modules/session-control/module.js";
import { ControlQueue } from "../../../src/modules/session-control/queue.js";
import { call, fakeGeneration, wireError } from "../fake-generation.js";
import type { ExtensionManifest } from "../../../src/manifest/manifest.js";

/** A lifecycle service whose operations finish when the test says so. */
function lifecycle(o: { idle?: boolean; compact?: boolean } = {}) {
  const done: string[] = [];
  const gates: { what: string; open: () => void }[] = [];
  let idle = o.idle ?? true;
  const gate = (what: string, r: SessionControlRequester): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      gates.push({
        what,
        open: () => {
          done.push(what);
          resolve();
        },
      });
      r.signal.addEventListener("abort", () => reject(new Error(`${what} cancelled`)), { once: true });
    });
  const service: SessionControlService = {
    idle: () => idle,
    waitForIdle: (r) => gate("wait", r),
    switchTo: (r) => gate(`switch ${r.session_id}`, r),
    ...(o.compact === false
      ? {}
      : {
          compact: async (r: SessionControlRequester & { custom_instructions?: string }) => {
            await gate(`compact ${r.custom_instructions ?? "-"}`, r);
            return { entry_id: "c1", summary: "S", first_kept: "e2" };
          },
        }),
  };
  return {
    service,
    done,
    gates,
    setIdle: (v: boolean) => (idle = v),
    /** Opens the oldest waiting operation once it has started. */
    next: async (): Promise<string> => {
      for (let i = 0; i < 200 && gates.length === 0; i++) await new Promise((r) => setImmediate(r));
      const g = gates.shift();
      assert.ok(g, "an operation should have started");
      g.open();
      return g.what;
    },
  };
}

function setup(o: { idle?: boolean; compact?: boolean; limit?: number } = {}) {
  const l = lifecycle(o);
  const g = fakeGeneration();
  const s = sessionControlService(l.service, new ControlQueue(o.limit))(g);
  return { ...l, g, s };
}

const settle = () => new Promise((r) => setImmediate(r));

test("SCTL-02: params are closed; session_id only for switch; a missing parent is invalid_request", async () => {
  const { g, s, gates } = setup();
  g.addParent(2);
  for (const [method, params, why] of [
    ["session/wait_for_idle", { parent_request_id: 2, extra: 1 }, /extra: unknown member/],
    ["session/wait_for_idle", { parent_request_id: 2, session_id: "x" }, /session_id: must be absent or null/],
    ["session/switch", { parent_request_id: 2 }, /session_id: missing/],
    ["session/switch", { parent_request_id: 2, session_id: "" }, /session_id: must not be empty/],
    ["session/wait_for_idle", {}, /parent_request_id/],
  ] as const) {
    const err = await wireError(call(g, s, method, params));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, new RegExp(`^invalid_request ${method.replace("/", "\\/")}: `));
    assert.match(err.message, why);
  }
  assert.equal(gates.length, 0, "nothing refused reached the lifecycle service");
  // session_id null on a wait is the same as absent.
  const ok = call(g, s, "session/wait_for_idle", { parent_request_id: 2, session_id: null });
  assert.equal(await (async () => (await settle(), gates.length))(), 1);
  gates[0]!.open();
  assert.deepEqual(await ok, {});
});

test("SCTL-04: only wait_for_idle, switch and compact are declared; another session/* name is no method", () => {
  for (const m of ["session/wait_for_idle", "session/switch", "session/compact"]) assert.ok(methodSpec(m), m);
  assert.equal(methodSpec("session/new"), undefined);
  assert.equal(methodSpec("session/fork"), undefined);
});

test("SCTL-05: a live parent's owner wins over a foreign one; its settlement cancels the call", async () => {
  const { g, s, gates } = setup();
  const parent = g.addParent(2);
  const foreign = { session_id: "other", extension_instance_id: "x", process_generation: 9 };
  const pending = call(g, s, "session/wait_for_idle", { parent_request_id: 2, resource_owner: foreign });
  await settle();
  assert.equal(gates.length, 1, "admitted as the parent's child");
  parent.abort();
  await assert.rejects(pending, /wait cancelled/);
});

test("SCTL-06: a settled parent: the issued owner is admitted; missing, foreign, stale are not", async () => {
  const { g, s, next } = setup();
  const owner = g.owner();
  const ok = call(g, s, "session/wait_for_idle", { parent_request_id: 7, resource_owner: owner });
  assert.equal(await next(), "wait");
  assert.deepEqual(await ok, {});
  for (const resource_owner of [
    undefined,
    { ...owner, session_id: "other" },
    { ...owner, extension_instance_id: "other" },
    { ...owner, process_generation: owner.process_generation + 1 },
  ]) {
    const err = await wireError(
      call(g, s, "session/switch", {
        parent_request_id: 7,
        session_id: "s2",
        ...(resource_owner ? { resource_owner } : {}),
      }),
    );
    assert.equal(err.code, ErrorCode.Unavailable);
    assert.match(err.message, /^not_foreground_owner session\/switch refused: /);
  }
});

test("SCTL-07, SCTL-08: the queue keeps order; a wait is answered after the earlier switch", async () => {
  const { g, s, done, next } = setup();
  const owner = g.owner();
  const answered: string[] = [];
  const sw = call(g, s, "session/switch", { parent_request_id: 7, resource_owner: owner, session_id: "s2" }).then(() =>
    answered.push("switch"),
  );
  const wait = call(g, s, "session/wait_for_idle", { parent_request_id: 7, resource_owner: owner }).then(() =>
    answered.push("wait"),
  );
  await settle();
  assert.deepEqual(answered, [], "nothing answered before its operation ran");
  assert.equal(await next(), "switch s2");
  assert.equal(await next(), "wait");
  await Promise.all([sw, wait]);
  assert.deepEqual(done, ["switch s2", "wait"]);
  assert.deepEqual(answered, ["switch", "wait"]);
});

test("SCTL-09: queued work of a generation that ended never runs; a started switch is not rolled back", async () => {
  const { g, s, gates, done, next } = setup();
  const owner = g.owner();
  const gone = new AbortController();
  const first = call(g, s, "session/switch", { parent_request_id: 7, resource_owner: owner, session_id: "s2" });
  const queued = call(g, s, "session/wait_for_idle", { parent_request_id: 7, resource_owner: owner }, gone.signal);
  await settle();
  gone.abort(new Error("generation ended"));
  const err = await wireError(queued);
  assert.equal(err.code, ErrorCode.RequestCancelled);
  assert.match(err.message, /^request_cancelled session\/wait_for_idle was not run: generation ended/);
  assert.equal(await next(), "switch s2");
  assert.deepEqual(await first, {});
  await settle();
  assert.equal(gates.length, 0, "the fenced wait never started");
  assert.deepEqual(done, ["switch s2"]);
});

test("SCTL-10: the queue takes its bound of operations; one more is -32012; a failed operation is -32603", async () => {
  const { g, s, next } = setup({ limit: bounds.MAX_SESSION_CONTROL_QUEUE });
  const owner = g.owner();
  const calls = Array.from({ length: bounds.MAX_SESSION_CONTROL_QUEUE }, () =>
    call(g, s, "session/wait_for_idle", { parent_request_id: 7, resource_owner: owner }),
  );
  const err = await wireError(call(g, s, "session/wait_for_idle", { parent_request_id: 7, resource_owner: owner }));
  assert.equal(err.code, ErrorCode.LifecycleExhausted);
  assert.equal(err.code, -32012);
  assert.match(err.message, /^lifecycle_exhausted session\/wait_for_idle refused: 32 .* the limit is 32/);
  for (let i = 0; i < calls.length; i++) await next();
  for (const c of calls) assert.deepEqual(await c, {});

  const failing = sessionControlService({
    idle: () => true,
    waitForIdle: async () => {
      throw new Error("the lifecycle driver broke");
    },
    switchTo: async () => {
      throw new WireError(ErrorCode.InvalidParams, "invalid_request session/switch: no such session");
    },
  })(g);
  const broke = await wireError(
    call(g, failing, "session/wait_for_idle", { parent_request_id: 7, resource_owner: owner }),
  );
  assert.equal(broke.code, ErrorCode.InternalError);
  assert.match(broke.message, /^internal_error session\/wait_for_idle failed: the lifecycle driver broke/);
  const passed = await wireError(
    call(g, failing, "session/switch", { parent_request_id: 7, resource_owner: owner, session_id: "x" }),
  );
  assert.equal(passed.code, ErrorCode.InvalidParams, "the service's own WireError reaches the extension as it is");
});

test("SCTL-11: a tool/call waiting for idle while the session runs is refused (deadlock)", async () => {
  const { g, s, setIdle, gates, next } = setup({ idle: false });
  g.addParent(2);
  for (const [method, extra] of [
    ["session/wait_for_idle", {}],
    ["session/switch", { session_id: "s2" }],
  ] as const) {
    const err = await wireError(call(g, s, method, { parent_request_id: 2, ...extra }));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(
      err.message,
      /^invalid_request session\/(wait_for_idle|switch) refused: deadlock, .*tool\/call 2 settles/,
    );
  }
  assert.equal(gates.length, 0);
  // The same handler while nothing runs (a /call from the shell) is answered.
  setIdle(true);
  const ok = call(g, s, "session/wait_for_idle", { parent_request_id: 2 });
  assert.equal(await next(), "wait");
  assert.deepEqual(await ok, {});
});

test("SCOMP-03, SCOMP-05: compact needs the issued owner; a live parent is invalid_request", async () => {
  const { g, s, gates } = setup();
  g.addParent(2);
  const live = await wireError(call(g, s, "session/compact", { parent_request_id: 2, resource_owner: g.owner() }));
  assert.equal(live.code, ErrorCode.InvalidParams);
  assert.match(
    live.message,
    /^invalid_request session\/compact refused: parent request 2 \(tool\/call\) is still live/,
  );
  const noOwner = await wireError(call(g, s, "session/compact", { parent_request_id: 7 }));
  assert.equal(noOwner.code, ErrorCode.InvalidParams);
  assert.match(noOwner.message, /^invalid_request session\/compact: resource_owner: missing/);
  const extra = await wireError(
    call(g, s, "session/compact", { parent_request_id: 7, resource_owner: g.owner(), session_id: "x" }),
  );
  assert.match(extra.message, /session_id: unknown member/);
  const stale = await wireError(
    call(g, s, "session/compact", { parent_request_id: 7, resource_owner: { ...g.owner(), process_generation: 5 } }),
  );
  assert.equal(stale.code, ErrorCode.Unavailable);
  assert.match(stale.message, /^not_foreground_owner session\/compact refused/);
  assert.equal(gates.length, 0);
});

test("SCOMP-04: custom_instructions of 16 KiB with LF and TAB pass, one byte more is bounds_exceeded", async () => {
  const { g, s, next } = setup();
  const owner = g.owner();
  const max = bounds.MAX_COMPACT_INSTRUCTIONS_BYTES;
  const text = `a\tb\n${"é".repeat((max - 4) / 2)}`;
  assert.equal(Buffer.byteLength(text), max);
  const ok = call(g, s, "session/compact", { parent_request_id: 7, resource_owner: owner, custom_instructions: text });
  assert.equal(await next(), `compact ${text}`);
  assert.deepEqual(await ok, { entry_id: "c1", summary: "S", first_kept: "e2" });
  const over = await wireError(
    call(g, s, "session/compact", { parent_request_id: 7, resource_owner: owner, custom_instructions: `${text}x` }),
  );
  assert.equal(over.code, ErrorCode.InvalidParams);
  assert.match(over.message, /^bounds_exceeded session\/compact: custom_instructions: .*over the 16384-byte/);
  const cr = await wireError(
    call(g, s, "session/compact", { parent_request_id: 7, resource_owner: owner, custom_instructions: "a\rb" }),
  );
  assert.match(cr.message, /^invalid_request session\/compact: custom_instructions: control character U\+000D/);
  // Blank instructions are valid and read as absent; the 16 KiB counts the raw text before trimming.
  const blank = call(g, s, "session/compact", {
    parent_request_id: 7,
    resource_owner: owner,
    custom_instructions: " \n\t",
  });
  assert.equal(await next(), "compact -");
  await blank;
  const spaces = await wireError(
    call(g, s, "session/compact", {
      parent_request_id: 7,
      resource_owner: owner,
      custom_instructions: " ".repeat(max + 1),
    }),
  );
  assert.match(spaces.message, /^bounds_exceeded /);
});

test("SCOMP-01, SCOMP-02: offered on API 0.4 only, compaction only with a service that compacts", () => {
  const m = {} as ExtensionManifest;
  const withCompact = sessionControlModule.bind!(
    { sessionControl: lifecycle().service },
    { nameOwners: () => new Map() },
  );
  const without = sessionControlModule.bind!(
    { sessionControl: lifecycle({ compact: false }).service },
    { nameOwners: () => new Map() },
  );
  assert.equal(sessionControlModule.bind!({}, { nameOwners: () => new Map() }), null, "no service: not bound");
  assert.deepEqual(sessionControlModule.offer(m, "0.4", withCompact), ["session_control_v1", "session_compaction_v1"]);
  assert.deepEqual(sessionControlModule.offer(m, "0.4", without), ["session_control_v1"]);
  assert.equal(sessionControlModule.offer(m, "0.2", withCompact), null);
  assert.equal(sessionControlModule.offer(m, "0.1", withCompact), null);
  const on02 = methodsFor({ apiVersion: "0.2", features: ["session_control_v1", "session_compaction_v1"] });
  assert.ok(!on02.some((x) => x.method.startsWith("session/") && x.feature?.startsWith("session_co")));
  const g = fakeGeneration();
  const s = sessionControlService(lifecycle({ compact: false }).service)(g);
  assert.equal(s?.requests?.["session/compact"], undefined, "without compact nothing answers session/compact");
});

test("SCTL-06, SCOMP-08: a cancellation tombstone is refused; another parent still works", async () => {
  const { g, s, next } = setup();
  g.cancelledRequest = (id) => id === 9;
  for (const method of ["session/wait_for_idle", "session/compact"]) {
    const err = await wireError(call(g, s, method, { parent_request_id: 9, resource_owner: g.owner() }));
    assert.equal(err.code, ErrorCode.Unavailable);
    assert.match(
      err.message,
      /^not_foreground_owner session\/(wait_for_idle|compact) refused: parent request 9 was cancelled/,
    );
  }
  const ok = call(g, s, "session/compact", { parent_request_id: 10, resource_owner: g.owner() });
  assert.equal(await next(), "compact -");
  assert.deepEqual(await ok, { entry_id: "c1", summary: "S", first_kept: "e2" });
});

test("SCOMP-09: a compaction admitted against one session is not run after a switch", async () => {
  const l = lifecycle();
  let active = "s1";
  const g = fakeGeneration();
  const s = sessionControlService({ ...l.service, epoch: () => active })(g);
  const owner = g.owner();
  const sw = call(g, s, "session/switch", { parent_request_id: 7, resource_owner: owner, session_id: "s2" });
  const compact = call(g, s, "session/compact", { parent_request_id: 7, resource_owner: owner });
  await settle();
  active = "s2";
  assert.equal(await l.next(), "switch s2");
  await sw;
  const err = await wireError(compact);
  assert.equal(err.code, ErrorCode.InternalError);
  assert.match(err.message, /^internal_error session\/compact was not run: the active session changed/);
  assert.deepEqual(l.done, ["switch s2"], "the fenced compaction never reached the consumer");
});
