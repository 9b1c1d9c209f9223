/**
 * The host's requests to one generation, over a real RpcPeer whose frames the test reads and
 * answers (issue 14.3): admission (FRAME-13), cancellation (CANCEL-01..10), progress (PROG-*),
 * and settlement as the peer reports it (PROG-04, REV-08).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { OctetError, RpcPeer, bounds, type ProgressEvent, type SendTicket } from "@octet/protocol";
import { HostRequests, chunkOutput, type HostRequestsOptions } from "../src/generation/host-requests.js";
import { waitUntil } from "./helpers/wait.js";

interface Sent {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
}

/** A peer whose transport keeps frames; with `hold`, frames stay unwritten (withdrawable) until flushed. */
function setup(o: Partial<HostRequestsOptions> = {}, hold = false) {
  const sent: Sent[] = [];
  const held: { frame: string; gone: boolean }[] = [];
  const said: string[] = [];
  const expired: string[] = [];
  const peer = new RpcPeer({
    transport: {
      send(frame): SendTicket {
        if (!hold) {
          sent.push(JSON.parse(frame) as Sent);
          return { withdraw: () => false };
        }
        const entry = { frame, gone: false };
        held.push(entry);
        return { withdraw: () => (entry.gone = true) };
      },
    },
  });
  const requests = new HostRequests({
    peer,
    cancellation: true,
    maxConcurrent: 2,
    progress: { enabled: true, decoration: false, partialResult: false, api: "0.2" },
    graceMs: 30,
    onGraceExpired: (id, method) => expired.push(`${method} ${id}`),
    diagnose: (level, message) => said.push(`${level}: ${message}`),
    ...o,
  });
  const answer = (id: number, result: unknown = {}): void =>
    peer.receive({ kind: "response", message: { jsonrpc: "2.0", id, result } });
  const progress = (params: unknown): void => requests.progress(params);
  return { peer, requests, sent, held, said, expired, answer, progress };
}

const opts = { timeoutMs: 5_000 };

test(
  "FRAME-13: past max_concurrent_requests a request waits for a slot; nothing is written until " + "one frees",
  async () => {
    const t = setup({ maxConcurrent: 1 });
    const first = t.requests.send("tool/call", { n: 1 }, opts);
    const second = t.requests.send("tool/call", { n: 2 }, opts);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(
      t.sent.map((s) => s.params?.["n"]),
      [1],
    );
    t.answer(t.sent[0]!.id!, "one");
    assert.equal(await first, "one");
    await waitUntil(() => t.sent.length === 2, 2_000, "the second request to be written");
    t.answer(t.sent[1]!.id!, "two");
    assert.equal(await second, "two");
    assert.equal(t.requests.inFlight, 0);
  },
);

test(
  "CANCEL-02: a request cancelled while it waits for a slot, or whose frame was never written, " + "sends nothing",
  async () => {
    const t = setup({ maxConcurrent: 1 });
    const first = t.requests.send("tool/call", {}, opts);
    const c = new AbortController();
    const waiting = t.requests.send("tool/call", {}, { ...opts, signal: c.signal });
    c.abort();
    await assert.rejects(waiting, /was cancelled while waiting for a free request slot; nothing was sent/);
    assert.equal(t.sent.length, 1);
    t.answer(t.sent[0]!.id!);
    await first;
    const h = setup({}, true);
    const c2 = new AbortController();
    const unwritten = h.requests.send("tool/call", {}, { ...opts, signal: c2.signal });
    await new Promise((r) => setImmediate(r));
    c2.abort();
    await assert.rejects(unwritten, /was cancelled/);
    assert.deepEqual(
      h.held.map((e) => e.gone),
      [true],
      "the frame was withdrawn, and no $/cancelRequest queued",
    );
  },
);

test(
  "CANCEL-03, CANCEL-07: a written request that is cancelled gets exactly one $/cancelRequest; unsettled " +
    "past the grace, the generation is told",
  async () => {
    const t = setup({ maxConcurrent: 1 });
    const c = new AbortController();
    const call = t.requests.send("tool/call", {}, { ...opts, signal: c.signal });
    await new Promise((r) => setImmediate(r));
    c.abort();
    c.abort();
    await assert.rejects(call, (err: unknown) => err instanceof OctetError && err.code === "request_cancelled");
    const id = t.sent[0]!.id!;
    assert.deepEqual(t.sent.slice(1), [{ jsonrpc: "2.0", method: "$/cancelRequest", params: { id, reason: "user" } }]);
    assert.equal(t.requests.inFlight, 1, "its slot is held until it settles");
    await waitUntil(() => t.expired.length > 0, 2_000, "the grace to expire");
    assert.deepEqual(t.expired, [`tool/call ${id}`]);
  },
);

test(
  "CANCEL-04: a late reply to a cancelled request, told by the peer, releases its slot for the " + "next request",
  async () => {
    const t = setup({ maxConcurrent: 1, graceMs: 60_000 });
    const c = new AbortController();
    const call = t.requests.send("tool/call", {}, { ...opts, signal: c.signal });
    await new Promise((r) => setImmediate(r));
    c.abort();
    await call.catch(() => undefined);
    const next = t.requests.send("tool/call", { n: 2 }, opts);
    await new Promise((r) => setImmediate(r));
    const calls = t.sent.filter((s) => s.method === "tool/call");
    assert.equal(calls.length, 1, "no slot while the cancelled one is unsettled");
    t.answer(t.sent[0]!.id!);
    await waitUntil(() => t.sent.some((s) => s.params?.["n"] === 2), 2_000, "the next request");
    assert.equal(t.requests.inFlight, 1);
    t.answer(t.sent.find((s) => s.params?.["n"] === 2)!.id!, "ok");
    assert.equal(await next, "ok");
    assert.deepEqual(t.expired, []);
  },
);

test(
  "CANCEL-01: a deadline cancels with reason timeout; API 0.1 (no cancellation) sends no " + "$/cancelRequest",
  async () => {
    const t = setup();
    await assert.rejects(t.requests.send("tool/call", {}, { timeoutMs: 20 }), /got no response within 20 ms/);
    assert.equal(t.sent[1]?.params?.["reason"], "timeout");
    const old = setup({ cancellation: false, maxConcurrent: null });
    await assert.rejects(old.requests.send("tool/call", {}, { timeoutMs: 20 }), /got no response within 20 ms/);
    assert.deepEqual(
      old.sent.map((s) => s.method),
      ["tool/call"],
    );
    assert.equal(old.requests.inFlight, 0, "nothing is held for a grace on API 0.1");
  },
);

test(
  "PROG-02, PROG-07: progress for an active request reaches its sink, output cut to 8 KiB pieces without " +
    "splitting a character",
  async () => {
    const t = setup();
    const got: ProgressEvent[] = [];
    const call = t.requests.send("tool/call", {}, { ...opts, onProgress: (e) => got.push(e) });
    await new Promise((r) => setImmediate(r));
    const id = t.sent[0]!.id!;
    const data = "é".repeat(bounds.PROGRESS_OUTPUT_CHUNK_BYTES);
    t.progress({ request_id: id, sequence: 0, event: { type: "output", stream: "stdout", encoding: "utf8", data } });
    assert.equal(got.length, 2);
    assert.equal(got.map((e) => (e as { data: string }).data).join(""), data);
    for (const e of got)
      assert.ok(Buffer.byteLength((e as { data: string }).data) <= bounds.PROGRESS_OUTPUT_CHUNK_BYTES);
    t.progress({ request_id: id, sequence: 0, event: { type: "status", message: "again" } });
    t.progress({ request_id: 9_999, sequence: 1, event: { type: "status", message: "who" } });
    assert.deepEqual(t.said, [
      `warning: ignored $/progress for request ${id}: sequence 0 does not increase (last 0)`,
      "warning: ignored $/progress for inactive request 9999",
    ]);
    t.answer(id);
    await call;
  },
);

test(
  "PROG-04, REV-08: the peer reports the settlement as the response is read: progress right after it finds " +
    "the request inactive",
  async () => {
    const t = setup();
    const c = new AbortController();
    const call = t.requests.send("tool/call", {}, { ...opts, signal: c.signal });
    await new Promise((r) => setImmediate(r));
    const id = t.sent[0]!.id!;
    const parent = t.requests.active(id)!;
    t.answer(id, "done");
    // Same read, before the waiter has run: already settled, its children's signal aborted (CANCEL-10).
    assert.equal(t.requests.active(id), undefined);
    assert.equal(parent.signal.aborted, true);
    assert.equal((parent.signal.reason as OctetError).message, "parent_settled");
    t.progress({ request_id: id, sequence: 1, event: { type: "status", message: "late" } });
    assert.deepEqual(t.said, [`warning: ignored $/progress for inactive request ${id}`]);
    assert.equal(await call, "done");
  },
);

test("PROG-01: progress is refused when request_progress was not negotiated", () => {
  const t = setup({ progress: { enabled: false, decoration: false, partialResult: false, api: "0.2" } });
  t.progress({ request_id: 1, sequence: 0, event: { type: "status", message: "x" } });
  assert.deepEqual(t.said, ["warning: ignored $/progress: request_progress was not negotiated"]);
});

test(
  "SHUT-08: once admission stops, waiting and new requests are refused as not sent; idle() resolves when " +
    "the rest settle",
  async () => {
    const t = setup({ maxConcurrent: 1 });
    const running = t.requests.send("tool/call", {}, opts);
    const waiting = t.requests.send("tool/call", {}, opts);
    await new Promise((r) => setImmediate(r));
    t.requests.stopAdmitting("draining");
    const notSent = (err: unknown): boolean => err instanceof OctetError && err.code === "not_sent";
    await assert.rejects(waiting, (err: unknown) => notSent(err) && (err as Error).message === "not sent: draining");
    await assert.rejects(t.requests.send("tool/call", {}, opts), /not sent: draining/);
    const idle = t.requests.idle(60_000);
    t.answer(t.sent[0]!.id!);
    await running;
    await idle;
    assert.equal(t.requests.inFlight, 0);
  },
);

test("SHUT-08: cancelAll cancels every active request with the reason, one $/cancelRequest each", async () => {
  const t = setup();
  const a = t.requests.send("tool/call", {}, opts);
  const b = t.requests.send("command/execute", {}, opts);
  await new Promise((r) => setImmediate(r));
  t.requests.cancelAll("shutdown");
  await assert.rejects(a, /tool\/call \(id \d+\) was cancelled: shutdown/);
  await assert.rejects(b, /command\/execute \(id \d+\) was cancelled: shutdown/);
  const reasons = t.sent.filter((s) => s.method === "$/cancelRequest").map((s) => s.params?.["reason"]);
  assert.deepEqual(reasons, ["shutdown", "shutdown"]);
});

test("PROG-07: chunkOutput keeps small output whole and cuts base64 output on byte boundaries", () => {
  const small: ProgressEvent = { type: "output", stream: "stdout", encoding: "utf8", data: "hi" };
  assert.deepEqual(chunkOutput(small), [small]);
  const bytes = Buffer.alloc(bounds.PROGRESS_OUTPUT_CHUNK_BYTES * 2 + 1, 7);
  const pieces = chunkOutput({ type: "output", stream: "stderr", encoding: "base64", data: bytes.toString("base64") });
  assert.equal(pieces.length, 3);
  const back = Buffer.concat(pieces.map((p) => Buffer.from((p as { data: string }).data, "base64")));
  assert.ok(back.equals(bytes));
});

test("FRAME-13: every way a request ends gives its slot back exactly once, and a grace holds it", async () => {
  // One slot: after each ending the next request must be written at once, and inFlight must say
  // what is left. Answered; refused before writing (no JSON text); timed out (its grace holds the
  // slot until the late answer); cancelled by the caller; cancelAll; close.
  const t = setup({ maxConcurrent: 1, graceMs: 10_000 });
  const writtenNext = async (what: string): Promise<number> => {
    const before = t.sent.length;
    const p = t.requests.send("tool/call", { what }, opts);
    await new Promise((r) => setImmediate(r));
    assert.equal(t.sent.length, before + 1, `a request after "${what}" is written at once`);
    const id = t.sent.at(-1)!.id!;
    t.answer(id, what);
    assert.equal(await p, what);
    return id;
  };
  const answered = t.requests.send("tool/call", {}, opts);
  t.answer(t.sent.at(-1)!.id!, "ok");
  assert.equal(await answered, "ok");
  await writtenNext("answered");

  await assert.rejects(t.requests.send("tool/call", { n: 1n }, opts), (e: OctetError) => e.code === "frame_invalid");
  assert.equal(t.requests.inFlight, 0);
  await writtenNext("refused before writing");

  const timedOut = t.requests.send("tool/call", {}, { timeoutMs: 20 });
  await assert.rejects(timedOut, (e: OctetError) => e.code === "request_timeout");
  const lateId = t.sent.filter((s) => s.method === "tool/call").at(-1)!.id!;
  assert.equal(t.sent.at(-1)?.method, "$/cancelRequest");
  assert.equal(t.requests.inFlight, 1, "the timed-out request's grace holds its slot");
  const waiting = t.requests.send("tool/call", { what: "after grace" }, opts);
  await new Promise((r) => setImmediate(r));
  assert.equal(t.sent.filter((s) => s.params?.["what"] === "after grace").length, 0, "nothing written yet");
  t.answer(lateId, "late");
  await waitUntil(() => t.sent.some((s) => s.params?.["what"] === "after grace"), 2_000, "the waiting request");
  t.answer(t.sent.at(-1)!.id!, "after grace");
  assert.equal(await waiting, "after grace");

  const c = new AbortController();
  const cancelled = t.requests.send("tool/call", {}, { timeoutMs: 5_000, signal: c.signal });
  c.abort();
  await assert.rejects(cancelled, (e: OctetError) => e.code === "request_cancelled");
  t.answer(t.sent.filter((s) => s.method === "tool/call").at(-1)!.id!, "late");
  assert.equal(t.requests.inFlight, 0);
  await writtenNext("cancelled");

  const drained = t.requests.send("tool/call", {}, opts);
  t.requests.cancelAll("shutdown");
  await assert.rejects(drained, (e: OctetError) => e.code === "request_cancelled");
  assert.equal(t.requests.inFlight, 0);
  await writtenNext("cancelAll");

  const open = t.requests.send("tool/call", {}, opts);
  const closed = new OctetError("transport_closed", "gone");
  t.peer.close(closed);
  t.requests.close(closed);
  await assert.rejects(open, (e: OctetError) => e.code === "transport_closed");
  assert.equal(t.requests.inFlight, 0);
  await assert.rejects(t.requests.send("tool/call", {}, opts), (e: OctetError) => e.code === "transport_closed");
});
