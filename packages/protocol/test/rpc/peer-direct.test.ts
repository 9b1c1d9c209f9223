/**
 * RpcPeer over a transport that takes messages as objects (`PeerTransport.direct`, what an
 * in-process stand-in offers through ForeignMessages): every message is still encoded, so the
 * frame bound and the JSON rules hold as on a pipe, but the message goes there instead of its
 * frame, and no member of it holds undefined.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { RpcPeer, type PeerTransport } from "../../src/rpc/peer.js";
import type { Message } from "../../src/jsonrpc.js";
import { parseEnvelope } from "../../src/jsonrpc.js";
import { ErrorCode, OctetError, WireError } from "../../src/errors.js";
import { MAX_FRAME_BYTES } from "../../src/bounds.js";
import { FakeTimers, envelope } from "../helpers/rpc.js";

function setup(onRequest?: (r: { method: string; params?: unknown }) => unknown) {
  const sent: Message[] = [];
  const frames: string[] = [];
  const transport: PeerTransport = {
    send: (frame) => {
      frames.push(frame);
      return { withdraw: () => false };
    },
    direct: (message) => {
      sent.push(message);
      return { withdraw: () => false };
    },
  };
  const peer = new RpcPeer({ transport, timers: new FakeTimers(), ...(onRequest ? { onRequest } : {}) });
  return { peer, sent, frames, transport };
}

const turn = () => new Promise((r) => setImmediate(r));

test("a direct transport gets each message as an object, and no frame is sent", async () => {
  const { peer, sent, frames } = setup();
  const withParams = peer.request("tool/call", { name: "echo" }, { paramsText: '{"name":"ignored"}' });
  const bare = peer.request("shutdown", undefined);
  peer.notify("$/cancelRequest", { id: 1 });
  peer.notify("$/ping", undefined);
  assert.deepEqual(frames, []);
  assert.deepEqual(sent, [
    // The params object itself: paramsText is a frame's text, and there is no frame.
    { jsonrpc: "2.0", id: withParams.id, method: "tool/call", params: { name: "echo" } },
    { jsonrpc: "2.0", id: bare.id, method: "shutdown" },
    { jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } },
    { jsonrpc: "2.0", method: "$/ping" },
  ]);
  for (const m of sent) {
    assert.ok(!Object.values(m).includes(undefined), `no undefined member in ${JSON.stringify(m)}`);
    assert.equal(parseEnvelope(m).ok, true, "every message is a valid envelope");
  }
  peer.receive(envelope({ jsonrpc: "2.0", id: withParams.id, result: { ok: 1 } }));
  peer.receive(envelope({ jsonrpc: "2.0", id: bare.id, error: { code: -32603, message: "no" } }));
  assert.deepEqual(await withParams.result, { ok: 1 });
  await assert.rejects(bare.result, (e: unknown) => e instanceof WireError && e.code === -32603);
  await turn();
});

test("answers go to the direct transport: undefined becomes null, an error's undefined data is left out", async () => {
  const { peer, sent } = setup((r) => {
    if (r.method === "none") return undefined;
    if (r.method === "later") return Promise.resolve({ later: true });
    throw new WireError(ErrorCode.InvalidParams, "bad", undefined);
  });
  peer.receive(envelope({ jsonrpc: "2.0", id: "a", method: "none", params: {} }));
  peer.receive(envelope({ jsonrpc: "2.0", id: "b", method: "later", params: {} }));
  peer.receive(envelope({ jsonrpc: "2.0", id: "c", method: "fails", params: {} }));
  peer.replyError(null, ErrorCode.ParseError, "parse error");
  await turn();
  assert.deepEqual(sent, [
    { jsonrpc: "2.0", id: "a", result: null },
    { jsonrpc: "2.0", id: "c", error: { code: ErrorCode.InvalidParams, message: "bad" } },
    { jsonrpc: "2.0", id: null, error: { code: ErrorCode.ParseError, message: "parse error" } },
    { jsonrpc: "2.0", id: "b", result: { later: true } },
  ]);
  const error = (sent[1] as { error: object }).error;
  assert.equal(Object.hasOwn(error, "data"), false);
});

test("direct is read per message: a transport that learns its reader late sends frames until then", () => {
  const { peer, sent, frames, transport } = setup();
  const direct = transport.direct;
  transport.direct = null;
  peer.notify("$/early", { n: 1 });
  transport.direct = direct;
  peer.notify("$/late", { n: 2 });
  assert.deepEqual(frames, ['{"jsonrpc":"2.0","method":"$/early","params":{"n":1}}\n']);
  assert.deepEqual(sent, [{ jsonrpc: "2.0", method: "$/late", params: { n: 2 } }]);
});

test("FRAME-09: a message past the bound or without JSON text is refused before direct sees it", async () => {
  const { peer, sent } = setup((r) => (r.method === "big" ? { t: "x".repeat(MAX_FRAME_BYTES) } : { n: 1n }));
  const request = peer.request("tool/call", { t: "x".repeat(MAX_FRAME_BYTES) });
  await assert.rejects(request.result, (e: unknown) => e instanceof OctetError && e.code === "frame_too_large");
  assert.throws(
    () => peer.notify("$/progress", { n: 1n }),
    (e: unknown) => e instanceof OctetError && e.code === "frame_invalid",
  );
  peer.receive(envelope({ jsonrpc: "2.0", id: "big", method: "big", params: {} }));
  peer.receive(envelope({ jsonrpc: "2.0", id: "odd", method: "odd", params: {} }));
  await turn();
  assert.deepEqual(
    sent.map((m) => [(m as { id: unknown }).id, (m as { error: { code: number } }).error.code]),
    [
      ["big", ErrorCode.InternalError],
      ["odd", ErrorCode.InternalError],
    ],
  );
  assert.equal(peer.pendingCount, 0);
});

test("a direct transport's own throw is not taken for an encoding failure: one answer per request", () => {
  const { peer, sent, transport } = setup(() => ({ ok: true }));
  const deliver = transport.direct!;
  transport.direct = (m) => {
    deliver(m);
    throw new Error("the receiver failed");
  };
  assert.throws(() => peer.receive(envelope({ jsonrpc: "2.0", id: "a", method: "m", params: {} })), /receiver failed/);
  assert.deepEqual(sent, [{ jsonrpc: "2.0", id: "a", result: { ok: true } }]);
});
