/**
 * The peer reports settlement itself (issue 14.3): the layer above is told as a response is read,
 * before the waiter runs, and once more only for the late answer to a request it gave up on, so it
 * keeps no ledger of its own from the wire.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { RpcPeer, type PeerDiagnostic } from "../../src/rpc/peer.js";
import { ErrorCode } from "../../src/errors.js";
import { FakeTimers, MemoryTransport, envelope } from "../helpers/rpc.js";

function setup() {
  const transport = new MemoryTransport();
  const diagnostics: PeerDiagnostic[] = [];
  const peer = new RpcPeer({ transport, timers: new FakeTimers(), onDiagnostic: (d) => diagnostics.push(d) });
  return { peer, diagnostics };
}

test(
  "issue 14.3: onSettled is told 'answered' as the response is read, before the waiter runs, for results " +
    "and errors",
  async () => {
    const { peer } = setup();
    const order: string[] = [];
    const a = peer.request("m", {}, { onSettled: (how) => order.push(`a ${how}`) });
    const b = peer.request("m", {}, { onSettled: (how) => order.push(`b ${how}`) });
    void a.result.then(() => order.push("a waiter"));
    void b.result.catch(() => order.push("b waiter"));
    peer.receive(envelope({ jsonrpc: "2.0", id: a.id, result: 1 }));
    peer.receive(envelope({ jsonrpc: "2.0", id: b.id, error: { code: ErrorCode.InternalError, message: "no" } }));
    assert.deepEqual(order, ["a answered", "b answered"], "told synchronously, in the read");
    await Promise.allSettled([a.result, b.result]);
    assert.deepEqual(order, ["a answered", "b answered", "a waiter", "b waiter"]);
  },
);

test(
  "issue 14.3: a request given up on after its frame was written is told 'late' once, at its first " + "late answer",
  () => {
    const { peer, diagnostics } = setup();
    const told: string[] = [];
    const r = peer.request("m", {}, { onSettled: (how) => told.push(how) });
    r.result.catch(() => undefined);
    assert.deepEqual(peer.abandon(r.id, "cancelled", new Error("cancelled")), { withdrawn: false });
    assert.deepEqual(told, []);
    peer.receive(envelope({ jsonrpc: "2.0", id: r.id, result: {} }));
    peer.receive(envelope({ jsonrpc: "2.0", id: r.id, result: {} }));
    assert.deepEqual(told, ["late"]);
    assert.deepEqual(
      diagnostics.map((d) => d.kind),
      ["late_response", "late_response"],
    );
  },
);

test("issue 14.3: a closed peer tells nothing; a request without onSettled settles as before", async () => {
  const { peer } = setup();
  const told: string[] = [];
  const plain = peer.request("m", {});
  peer.receive(envelope({ jsonrpc: "2.0", id: plain.id, result: "ok" }));
  assert.equal(await plain.result, "ok");
  const r = peer.request("m", {}, { onSettled: (how) => told.push(how) });
  peer.close(new Error("closed"));
  await r.result.catch(() => undefined);
  peer.receive(envelope({ jsonrpc: "2.0", id: r.id, result: {} }));
  assert.deepEqual(told, []);
});
