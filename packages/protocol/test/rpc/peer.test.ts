/**
 * RpcPeer: numeric host ids (FRAME-11), correlation, timeouts and tombstones (reliability R1-R3,
 * R6), withdraw-before-write (R5), close, and the single boundary where handler outcomes become
 * wire responses (ERR-01, ERR-02, FRAME-09). Randomised interleavings are in peer.model.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { RpcPeer, type PeerDiagnostic, type PeerOptions } from "../../src/rpc/peer.js";
import { ErrorCode, OctetError, WireError } from "../../src/errors.js";
import { MAX_FRAME_BYTES } from "../../src/bounds.js";
import { FakeTimers, MemoryTransport, envelope, track, turn } from "../helpers/rpc.js";

function setup(options: Partial<PeerOptions> = {}) {
  const transport = new MemoryTransport();
  const timers = new FakeTimers();
  const diagnostics: PeerDiagnostic[] = [];
  const peer = new RpcPeer({ transport, timers, onDiagnostic: (d) => diagnostics.push(d), ...options });
  return { peer, transport, timers, diagnostics };
}

const ok = (id: unknown, result: unknown) => envelope({ jsonrpc: "2.0", id, result });
const req = (id: unknown, method: string, params: unknown = {}) => envelope({ jsonrpc: "2.0", id, method, params });

test("FRAME-11: host request ids are numeric, unique and increasing", () => {
  const { peer, transport } = setup();
  const ids = Array.from({ length: 200 }, (_, i) => peer.request("m", { i }).id);
  const sent = transport.messages().map((m) => m["id"]);
  assert.deepEqual(sent, ids, "the frame carries the id the caller was given");
  for (const [i, id] of ids.entries()) {
    assert.ok(Number.isSafeInteger(id) && id >= 0, `id ${id} is an unsigned integer`);
    if (i > 0) assert.ok(id > ids[i - 1]!, "ids increase");
  }
  assert.equal(new Set(ids).size, ids.length);
});

test("responses settle the request with the same id, in any order", async () => {
  const { peer, transport } = setup();
  const calls = [peer.request("a", {}), peer.request("b", [1]), peer.request("c", {})];
  assert.deepEqual(transport.messages()[1], { jsonrpc: "2.0", id: calls[1]!.id, method: "b", params: [1] });
  for (const c of [...calls].reverse()) peer.receive(ok(c.id, { for: c.id }));
  assert.deepEqual(
    await Promise.all(calls.map((c) => c.result)),
    calls.map((c) => ({ for: c.id })),
  );
  assert.equal(peer.pendingCount, 0);
});

test("an error response rejects with a WireError carrying code, message and data", async () => {
  const { peer } = setup();
  const call = peer.request("tool/call", {});
  peer.receive(
    envelope({ jsonrpc: "2.0", id: call.id, error: { code: -32002, message: "no_owner here", data: { why: 1 } } }),
  );
  await assert.rejects(call.result, (e: unknown) => {
    assert.ok(e instanceof WireError);
    assert.deepEqual([e.code, e.message, e.data], [-32002, "no_owner here", { why: 1 }]);
    return true;
  });
});

test("a timeout rejects with request_timeout and a late response is only diagnosed", async () => {
  const { peer, timers, diagnostics } = setup();
  const slow = track(peer.request("hook/run", {}, { timeoutMs: 50 }).result);
  const other = peer.request("other", {});
  timers.advance(49);
  await turn();
  assert.equal(slow.settled, 0, "not before the deadline");
  timers.advance(1);
  await turn();
  assert.equal(slow.settled, 1);
  assert.ok(slow.error instanceof OctetError && slow.error.code === "request_timeout");
  assert.match(slow.error.message, /hook\/run \(id 1\).*50 ms/);
  assert.equal(peer.pendingCount, 1);
  peer.receive(ok(1, "late"));
  assert.deepEqual(diagnostics, [{ kind: "late_response", id: 1, reason: "timeout" }]);
  peer.receive(ok(other.id, "mine"));
  assert.equal(await other.result, "mine", "the late reply did not take another request's place");
  await turn();
  assert.equal(slow.settled, 1);
});

test("a settled request clears its timer", () => {
  const { peer, timers } = setup();
  const call = peer.request("m", {}, { timeoutMs: 1_000 });
  assert.equal(timers.active, 1);
  peer.receive(ok(call.id, null));
  assert.equal(timers.active, 0);
});

test("abandon() of a frame not yet written withdraws it: nothing is ever sent", async () => {
  const { peer, transport, diagnostics } = setup();
  transport.hold = true;
  const call = peer.request("tool/call", {}, { timeoutMs: 1_000 });
  const r = peer.abandon(call.id, "cancelled", new OctetError("request_cancelled", "cancelled by the caller"));
  assert.deepEqual(r, { withdrawn: true });
  await assert.rejects(call.result, { code: "request_cancelled" });
  transport.flush();
  assert.equal(transport.written.length, 0, "the peer never saw the request");
  peer.receive(ok(call.id, "?"));
  assert.deepEqual(diagnostics, [{ kind: "unknown_response", id: call.id }], "never sent, so not a tombstone");
});

test(
  "CANCEL-06: abandon() of a written frame tombstones its id; the late reply is diagnosed and " + "disturbs nothing",
  async () => {
    const { peer, diagnostics } = setup();
    const call = peer.request("tool/call", {});
    const other = track(peer.request("other", {}).result);
    assert.deepEqual(peer.abandon(call.id, "cancelled", new OctetError("request_cancelled", "x")), {
      withdrawn: false,
    });
    await assert.rejects(call.result, { code: "request_cancelled" });
    assert.equal(peer.abandon(call.id, "cancelled", new Error("again")), null, "only pending ids can be abandoned");
    peer.receive(ok(call.id, "late"));
    peer.receive(envelope({ jsonrpc: "2.0", id: call.id, error: { code: -32800, message: "cancelled" } }));
    assert.deepEqual(diagnostics, [
      { kind: "late_response", id: call.id, reason: "cancelled" },
      { kind: "late_response", id: call.id, reason: "cancelled", errorCode: -32800 },
    ]);
    await turn();
    assert.deepEqual([other.settled, peer.pendingCount, peer.closed], [0, 1, false], "the other call is still pending");
  },
);

test("a timeout of a frame still queued withdraws it instead of tombstoning", async () => {
  const { peer, transport, timers, diagnostics } = setup();
  transport.hold = true;
  const call = peer.request("m", {}, { timeoutMs: 10 });
  timers.advance(10);
  await assert.rejects(call.result, { code: "request_timeout" });
  assert.equal(transport.heldCount, 0);
  peer.receive(ok(call.id, 1));
  assert.equal(diagnostics[0]?.kind, "unknown_response");
});

test("a response to an unknown id is diagnosed and leaves other calls untouched", async () => {
  const { peer, diagnostics } = setup();
  const a = track(peer.request("a", {}).result);
  peer.receive(ok(999, "x"));
  peer.receive(ok("s-1", "x"));
  peer.receive(envelope({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } }));
  await turn();
  assert.deepEqual(diagnostics, [
    { kind: "unknown_response", id: 999 },
    { kind: "unknown_response", id: "s-1" },
    { kind: "error_response_without_id", message: "parse error" },
  ]);
  assert.equal(a.settled, 0);
  assert.equal(peer.pendingCount, 1);
  peer.receive(ok(1, "a"));
  await turn();
  assert.deepEqual([a.settled, a.value], [1, "a"]);
});

test("a response delivered twice settles once", async () => {
  const { peer, diagnostics } = setup();
  const call = peer.request("m", {});
  const o = track(call.result);
  peer.receive(ok(call.id, "first"));
  peer.receive(ok(call.id, "second"));
  await turn();
  assert.deepEqual([o.settled, o.value], [1, "first"]);
  assert.deepEqual(diagnostics, [{ kind: "unknown_response", id: call.id }]);
});

test("close() rejects every pending request and later input is ignored", async () => {
  const handled: string[] = [];
  const { peer, transport, timers, diagnostics } = setup({
    onRequest: (r) => handled.push(r.method),
    onNotification: (n) => handled.push(n.method),
  });
  const calls = [peer.request("a", {}, { timeoutMs: 100 }), peer.request("b", {})];
  const gone = new OctetError("transport_closed", "the child exited");
  peer.close(gone);
  for (const c of calls) await assert.rejects(c.result, (e) => e === gone);
  assert.equal(timers.active, 0, "deadlines cleared");
  assert.ok(peer.closed);
  const before = transport.written.length;
  peer.receive(ok(calls[0]!.id, "late"));
  peer.receive(req(5, "tool/call"));
  peer.receive(envelope({ jsonrpc: "2.0", method: "notification", params: {} }));
  peer.replyError(null, ErrorCode.ParseError, "x");
  await assert.rejects(peer.request("c", {}).result, (e) => e === gone);
  assert.throws(
    () => peer.notify("n", {}),
    (e) => e === gone,
  );
  await turn();
  assert.deepEqual([handled, diagnostics, transport.written.length], [[], [], before]);
});

test("a response after close() to a handler that was running is not sent", async () => {
  let finish: (v: unknown) => void = () => {};
  const { peer, transport } = setup({ onRequest: () => new Promise((r) => (finish = r)) });
  peer.receive(req(1, "tool/call"));
  peer.close(new Error("closed"));
  finish("done");
  await turn();
  assert.equal(transport.written.length, 0);
});

test("notifications go out without an id and come in to onNotification", () => {
  const seen: unknown[] = [];
  const { peer, transport } = setup({ onNotification: (n) => seen.push(n) });
  peer.notify("$/cancelRequest", { id: 3 });
  assert.deepEqual(transport.last(), { jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 3 } });
  peer.receive(envelope({ jsonrpc: "2.0", method: "$/progress", params: { request_id: 1 } }));
  assert.deepEqual(seen, [{ jsonrpc: "2.0", method: "$/progress", params: { request_id: 1 } }]);
});

test("incoming request: the handler's value is the result; undefined becomes null", async () => {
  const { peer, transport } = setup({
    onRequest: (r) => (r.method === "sync" ? { ok: 1 } : r.method === "void" ? undefined : Promise.resolve("later")),
  });
  peer.receive(req(1, "sync"));
  peer.receive(req("s", "void"));
  peer.receive(req(3, "async"));
  await turn();
  assert.deepEqual(transport.messages(), [
    { jsonrpc: "2.0", id: 1, result: { ok: 1 } },
    { jsonrpc: "2.0", id: "s", result: null },
    { jsonrpc: "2.0", id: 3, result: "later" },
  ]);
});

test("ERR-01: a request with no handler is answered -32601", () => {
  const { peer, transport } = setup();
  peer.receive(req(7, "no/such"));
  const m = transport.last();
  assert.equal(m["id"], 7);
  assert.deepEqual(m["error"], { code: -32601, message: "method not found: no/such" });
});

test("ERR-02: a handler that throws WireError(InvalidParams) is answered -32602 with its data", async () => {
  const { peer, transport, diagnostics } = setup({
    onRequest: (r) => {
      if (r.method === "sync")
        throw new WireError(ErrorCode.InvalidParams, "invalid_request name is required", { path: "name" });
      return Promise.reject(new WireError(ErrorCode.InvalidParams, "async refusal"));
    },
  });
  peer.receive(req(1, "sync"));
  peer.receive(req(2, "async"));
  await turn();
  assert.deepEqual(transport.messages(), [
    {
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32602, message: "invalid_request name is required", data: { path: "name" } },
    },
    { jsonrpc: "2.0", id: 2, error: { code: -32602, message: "async refusal" } },
  ]);
  assert.deepEqual(diagnostics, [], "a WireError is an answer, not a handler failure");
});

test("a plain Error from a handler becomes -32603 with its message and a handler_failed diagnostic", async () => {
  const { peer, transport, diagnostics } = setup({
    onRequest: (r) => {
      if (r.method === "throws") throw new Error("boom");
      if (r.method === "string") throw "not an error object";
      return Promise.reject(new TypeError("async boom"));
    },
  });
  peer.receive(req(1, "throws"));
  peer.receive(req(2, "string"));
  peer.receive(req(3, "rejects"));
  await turn();
  assert.deepEqual(
    transport.messages().map((m) => m["error"]),
    [
      { code: -32603, message: "boom" },
      { code: -32603, message: "not an error object" },
      { code: -32603, message: "async boom" },
    ],
  );
  assert.deepEqual(diagnostics, [
    { kind: "handler_failed", method: "throws", message: "boom" },
    { kind: "handler_failed", method: "string", message: "not an error object" },
    { kind: "handler_failed", method: "rejects", message: "async boom" },
  ]);
});

/** A result string that makes the response frame to id 1 exactly `bytes` long (without the LF). */
function resultForFrameOf(bytes: number): string {
  const overhead = JSON.stringify({ jsonrpc: "2.0", id: 1, result: "" }).length;
  return "x".repeat(bytes - overhead);
}

test("FRAME-09: a result of exactly 1 MiB is sent; one byte more becomes a -32603 naming the size", async () => {
  const results = [resultForFrameOf(MAX_FRAME_BYTES), resultForFrameOf(MAX_FRAME_BYTES + 1)];
  const { peer, transport, diagnostics } = setup({ onRequest: () => results.shift() });
  peer.receive(req(1, "at-limit"));
  peer.receive(req(1, "past-limit"));
  await turn();
  assert.equal(transport.written.length, 2);
  assert.equal(Buffer.byteLength(transport.written[0]!), MAX_FRAME_BYTES + 1, "frame at the limit plus its LF");
  const refused = transport.messages()[1]!;
  const error = refused["error"] as { code: number; message: string };
  assert.equal(error.code, ErrorCode.InternalError);
  assert.match(error.message, new RegExp(`past-limit.*${MAX_FRAME_BYTES + 1} bytes.*${MAX_FRAME_BYTES}-byte limit`));
  assert.ok(transport.written[1]!.length < 1_000, "the refusal is small, not a broken frame");
  assert.deepEqual(
    diagnostics.map((d) => d.kind),
    ["response_too_large"],
  );
});

test("FRAME-09: an error whose data cannot be sent still yields a valid error frame", async () => {
  const cyclic: Record<string, unknown> = {};
  cyclic["self"] = cyclic;
  const errors = [
    new WireError(-32001, "cyclic data", cyclic),
    new WireError(-32001, "bigint data", { n: 1n }),
    new WireError(-32001, "huge data", "x".repeat(MAX_FRAME_BYTES)),
    new Error("y".repeat(2 * MAX_FRAME_BYTES)),
  ];
  const { peer, transport } = setup({
    onRequest: () => {
      throw errors.shift();
    },
  });
  for (let id = 1; id <= 4; id++) peer.receive(req(id, "m"));
  await turn();
  const sent = transport.messages();
  assert.deepEqual(
    sent.slice(0, 3).map((m) => m["error"]),
    [
      { code: -32001, message: "cyclic data" },
      { code: -32001, message: "bigint data" },
      { code: -32001, message: "huge data" },
    ],
  );
  const last = sent[3]!["error"] as { code: number; message: string };
  assert.equal(last.code, -32603);
  assert.ok(last.message.startsWith("yyy") && last.message.length <= 4_096);
  assert.ok(transport.written.every((f) => Buffer.byteLength(f) <= MAX_FRAME_BYTES + 1));
});

test("a request whose params cannot be encoded rejects with the encoder's error and sends nothing", async () => {
  const { peer, transport } = setup();
  const call = peer.request("m", { n: 1n });
  await assert.rejects(call.result, { code: "frame_invalid" });
  assert.deepEqual([transport.written.length, peer.pendingCount], [0, 0]);
});

test("replyError answers an unparseable request with id null", () => {
  const { peer, transport } = setup();
  peer.replyError(null, ErrorCode.ParseError, "parse error: bad json");
  assert.deepEqual(transport.last(), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -32700, message: "parse error: bad json" },
  });
});

test("a transport that throws on send rejects the request and leaves nothing pending", async () => {
  const timers = new FakeTimers();
  const peer = new RpcPeer({
    timers,
    transport: {
      send: () => {
        throw new OctetError("transport_closed", "stdin is gone");
      },
    },
  });
  const call = peer.request("m", {}, { timeoutMs: 100 });
  await assert.rejects(call.result, { code: "transport_closed" });
  assert.deepEqual([peer.pendingCount, timers.active], [0, 0]);
});

test("CANCEL-12: tombstones are bounded per generation; the oldest is forgotten first", async () => {
  const { RpcPeer } = await import("../../src/rpc/peer.js");
  const { MAX_CHILD_IDS_PER_GENERATION } = await import("../../src/bounds.js");
  const { OctetError } = await import("../../src/errors.js");
  const diagnostics: { kind: string; id?: unknown }[] = [];
  const peer = new RpcPeer({
    transport: { send: () => ({ withdraw: () => false }) },
    onDiagnostic: (d) => void diagnostics.push(d as { kind: string }),
  });
  const ids: number[] = [];
  for (let i = 0; i <= MAX_CHILD_IDS_PER_GENERATION; i++) {
    const r = peer.request("tool/call", {});
    r.result.catch(() => {});
    ids.push(r.id);
    peer.abandon(r.id, "cancelled", new OctetError("request_cancelled", "x"));
  }
  peer.receive({ kind: "response", message: { jsonrpc: "2.0", id: ids[0]!, result: null } });
  peer.receive({ kind: "response", message: { jsonrpc: "2.0", id: ids[ids.length - 1]!, result: null } });
  assert.deepEqual(
    diagnostics.map((d) => d.kind),
    ["unknown_response", "late_response"],
    "65,536 kept: the first was dropped, the newest is still a tombstone",
  );
});
