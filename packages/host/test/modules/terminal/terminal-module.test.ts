// terminal/acquire, terminal/release, terminal/grant-lost (W 2.24): one grant at a time, release
// by the holder only, the owner rules, the grant_id bound, and the host taking the grant back
// when the call settles or the process ends. The frontend here records what it was told.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, MAX_TERMINAL_GRANT_ID_BYTES } from "@octet/protocol";
import { terminalModule, type TerminalService } from "../../../src/modules/terminal/module.js";
import { BARE_HOST } from "../../../src/modules/registry.js";
import type { GenerationService } from "../../../src/modules/module.js";
import { call, fakeGeneration, wireError, type FakeGeneration } from "../fake-generation.js";

interface Frontend extends TerminalService {
  log: string[];
  revoke?: (reason: string) => Promise<void>;
  grantId: string;
  tty: boolean;
  /** When set, cede waits for it. */
  gate?: Promise<void>;
}

function frontend(): Frontend {
  let n = 0;
  const f: Frontend = {
    log: [],
    grantId: "",
    tty: true,
    available: () => f.tty,
    async cede(who) {
      f.log.push(`cede ${who.extension}#${who.generation}`);
      if (f.gate) await f.gate;
      return { grant_id: f.grantId || `g${++n}`, columns: 80, rows: 24 };
    },
    async resume(reason) {
      f.log.push(`resume ${reason}`);
    },
    attach(control) {
      f.revoke = control.revoke;
    },
  };
  return f;
}

interface Opened {
  g: FakeGeneration & { sent: { method: string; params: Record<string, unknown> }[] };
  s: GenerationService;
}

function open(f: Frontend, number = 1): { grants: unknown; gen: (n?: number) => Opened } {
  const grants = terminalModule.bind!({ terminal: f }, BARE_HOST);
  const gen = (n = number): Opened => {
    const sent: { method: string; params: Record<string, unknown> }[] = [];
    const g = Object.assign(fakeGeneration({ number: n }), {
      sent,
      notify: (method: string, params: Record<string, unknown>) => void sent.push({ method, params }),
    });
    return { g, s: terminalModule.open(g, grants)! };
  };
  return { grants, gen };
}

test("TERM-01, TERM-02: acquire answers the frontend's grant once it ceded; release once it resumed", async () => {
  const f = frontend();
  const { g, s } = open(f).gen();
  g.addParent(2);
  assert.deepEqual(await call(g, s, "terminal/acquire", { parent_request_id: 2 }), {
    grant_id: "g1",
    columns: 80,
    rows: 24,
  });
  assert.deepEqual(f.log, ["cede ext#1"]);
  assert.deepEqual(await call(g, s, "terminal/release", { parent_request_id: 2 }), {});
  assert.deepEqual(f.log, ["cede ext#1", "resume released"]);
  assert.equal(g.sent.length, 0, "a release is not a loss");
});

test("TERM-03: a second acquire, from the holder or another process, is invalid_request", async () => {
  const f = frontend();
  const o = open(f);
  const a = o.gen(1);
  const b = o.gen(2);
  a.g.addParent(2);
  b.g.addParent(3);
  await call(a.g, a.s, "terminal/acquire", { parent_request_id: 2 });
  const again = await wireError(call(a.g, a.s, "terminal/acquire", { parent_request_id: 2 }));
  assert.equal(again.code, ErrorCode.InvalidParams);
  assert.match(again.message, /^invalid_request terminal\/acquire refused: this extension already holds/);
  const other = await wireError(call(b.g, b.s, "terminal/acquire", { parent_request_id: 3 }));
  assert.match(other.message, /^invalid_request terminal\/acquire refused: another extension holds/);
  assert.deepEqual(f.log, ["cede ext#1"], "the frontend was asked once");
});

test("TERM-03: an acquire while the frontend is still ceding is refused too", async () => {
  const f = frontend();
  let open1: () => void = () => {};
  f.gate = new Promise<void>((r) => (open1 = r));
  const o = open(f);
  const a = o.gen(1);
  const b = o.gen(2);
  a.g.addParent(2);
  b.g.addParent(3);
  const first = call(a.g, a.s, "terminal/acquire", { parent_request_id: 2 });
  const second = await wireError(call(b.g, b.s, "terminal/acquire", { parent_request_id: 3 }));
  assert.match(second.message, /^invalid_request .*another extension holds/);
  open1();
  assert.equal(((await first) as { grant_id: string }).grant_id, "g1");
});

test("TERM-04: release from a process not holding the grant, or with none live, is invalid_request", async () => {
  const f = frontend();
  const o = open(f);
  const a = o.gen(1);
  const b = o.gen(2);
  a.g.addParent(2);
  b.g.addParent(3);
  const none = await wireError(call(a.g, a.s, "terminal/release", { parent_request_id: 2 }));
  assert.equal(none.code, ErrorCode.InvalidParams);
  assert.match(none.message, /^invalid_request terminal\/release refused: the caller does not hold/);
  await call(a.g, a.s, "terminal/acquire", { parent_request_id: 2 });
  const foreign = await wireError(call(b.g, b.s, "terminal/release", { parent_request_id: 3 }));
  assert.match(foreign.message, /^invalid_request terminal\/release refused: the caller does not hold/);
  assert.deepEqual(f.log, ["cede ext#1"], "the holder keeps the terminal");
  await call(a.g, a.s, "terminal/release", { parent_request_id: 2 });
  // The next grant may go to anyone.
  await call(b.g, b.s, "terminal/acquire", { parent_request_id: 3 });
  assert.deepEqual(f.log, ["cede ext#1", "resume released", "cede ext#2"]);
});

test("TERM-05: with no interactive frontend, and without a live parent, both methods are refused", async () => {
  const f = frontend();
  f.tty = false;
  const { g, s } = open(f).gen();
  g.addParent(2);
  const pipe = await wireError(call(g, s, "terminal/acquire", { parent_request_id: 2 }));
  assert.equal(pipe.code, ErrorCode.InvalidParams);
  assert.match(pipe.message, /^invalid_request terminal\/acquire refused: no interactive frontend/);
  f.tty = true;
  for (const method of ["terminal/acquire", "terminal/release"]) {
    const missing = await wireError(call(g, s, method, {}));
    assert.equal(missing.code, ErrorCode.Unavailable);
    assert.match(missing.message, /^not_foreground_owner .*parent_request_id is missing/);
    const inactive = await wireError(call(g, s, method, { parent_request_id: 9 }));
    assert.equal(inactive.code, ErrorCode.Unavailable);
    assert.match(inactive.message, /^not_foreground_owner .*parent_request_id 9 is not an active/);
  }
  const bad = await wireError(call(g, s, "terminal/acquire", { parent_request_id: "2" }));
  assert.match(bad.message, /^invalid_request terminal\/acquire: parent_request_id/);
  assert.deepEqual(f.log, []);
});

test("TERM-06: a frontend grant_id of 128 bytes is answered; 129 bytes is never handed out", async () => {
  const f = frontend();
  const { g, s } = open(f).gen();
  g.addParent(2);
  f.grantId = "é".repeat(MAX_TERMINAL_GRANT_ID_BYTES / 2);
  const ok = (await call(g, s, "terminal/acquire", { parent_request_id: 2 })) as { grant_id: string };
  assert.equal(Buffer.byteLength(ok.grant_id), 128);
  await call(g, s, "terminal/release", { parent_request_id: 2 });
  f.grantId = `${"x".repeat(MAX_TERMINAL_GRANT_ID_BYTES)}x`;
  const err = await wireError(call(g, s, "terminal/acquire", { parent_request_id: 2 }));
  assert.equal(err.code, ErrorCode.InternalError);
  assert.match(err.message, /grant_id: .*over the 128-byte limit/);
  assert.equal(f.log.at(-1), "resume the frontend's grant was invalid", "the frontend took its terminal back");
  f.grantId = "";
  await call(g, s, "terminal/acquire", { parent_request_id: 2 });
});

test("TERM-07: the call that acquired settles: grant-lost to the holder, the frontend recovers", async () => {
  const f = frontend();
  const { g, s } = open(f).gen();
  const parent = g.addParent(2);
  await call(g, s, "terminal/acquire", { parent_request_id: 2 });
  parent.abort();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(g.sent, [
    {
      method: "terminal/grant-lost",
      params: { grant_id: "g1", reason: "call_ended: the call that acquired the terminal settled" },
    },
  ]);
  assert.equal(f.log.at(-1), "resume call_ended: the call that acquired the terminal settled");
});

test("TERM-07: the holder's process crashes mid-grant: the frontend recovers; the next grant is free", async () => {
  const f = frontend();
  const o = open(f);
  const a = o.gen(1);
  a.g.addParent(2);
  await call(a.g, a.s, "terminal/acquire", { parent_request_id: 2 });
  a.s.dispose?.();
  await new Promise((r) => setImmediate(r));
  assert.equal(f.log.at(-1), "resume process_ended: the extension's process ended");
  const b = o.gen(2);
  b.g.addParent(4);
  assert.equal(
    ((await call(b.g, b.s, "terminal/acquire", { parent_request_id: 4 })) as { grant_id: string }).grant_id,
    "g2",
  );
  // Disposing a generation that holds nothing leaves the live grant alone.
  a.s.dispose?.();
  await new Promise((r) => setImmediate(r));
  assert.equal(f.log.at(-1), "cede ext#2");
});

test("TERM-07: the embedder revokes; a revocation while ceding takes the terminal back before answering", async () => {
  const f = frontend();
  const { g, s } = open(f).gen();
  g.addParent(2);
  await call(g, s, "terminal/acquire", { parent_request_id: 2 });
  await f.revoke!("shutting down");
  assert.deepEqual(g.sent.at(-1), {
    method: "terminal/grant-lost",
    params: { grant_id: "g1", reason: "revoked: shutting down" },
  });
  assert.equal(f.log.at(-1), "resume revoked: shutting down");
  let open1: () => void = () => {};
  f.gate = new Promise<void>((r) => (open1 = r));
  const pending = call(g, s, "terminal/acquire", { parent_request_id: 2 });
  await new Promise((r) => setImmediate(r));
  const revoked = f.revoke!("x".repeat(2000));
  open1();
  const err = await wireError(pending);
  assert.match(err.message, /^invalid_request terminal\/acquire refused: the grant was revoked while/);
  await revoked;
  const last = f.log.at(-1)!;
  assert.ok(last.startsWith("resume revoked: xxx"));
  assert.ok(Buffer.byteLength(last) - "resume ".length <= 1024, "TERM-10: the reason is bounded to 1 KiB");
});

test("TERM-09: the module is offered only when bound, and only on negotiated API versions", () => {
  assert.equal(terminalModule.bind!({}, BARE_HOST), null);
  const grants = terminalModule.bind!({ terminal: frontend() }, BARE_HOST);
  const manifest = fakeGeneration().manifest;
  assert.deepEqual(terminalModule.offer(manifest, "0.4", grants), ["terminal_handoff"]);
  assert.equal(terminalModule.offer(manifest, "0.1", grants), null);
});

test("TERM-07: an acquire the extension cancels while the frontend cedes gets the terminal straight back", async () => {
  const f = frontend();
  let open1: () => void = () => {};
  f.gate = new Promise<void>((r) => (open1 = r));
  const { g, s } = open(f).gen();
  g.addParent(2);
  const own = new AbortController();
  const pending = call(g, s, "terminal/acquire", { parent_request_id: 2 }, own.signal);
  own.abort();
  open1();
  const err = await wireError(pending);
  assert.equal(err.code, ErrorCode.RequestCancelled);
  assert.deepEqual(f.log, ["cede ext#1", "resume cancelled: the terminal/acquire request was cancelled"]);
  await call(g, s, "terminal/acquire", { parent_request_id: 2 });
});
