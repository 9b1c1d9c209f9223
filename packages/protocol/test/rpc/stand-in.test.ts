/**
 * standInChannel: the in-process end of a stand-in child's channel (the rpi and MCP bridges).
 * Frames go to the stand-in's stdout until the host reads messages; the host's messages are judged
 * as envelopes, nothing is read once the channel is closed, and what the stand-in hands over is
 * held to the frame bound as its frame would be.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { RpcPeer } from "../../src/rpc/peer.js";
import { standInChannel } from "../../src/rpc/stand-in.js";
import type { Message } from "../../src/jsonrpc.js";
import { ErrorCode } from "../../src/errors.js";
import { MAX_FRAME_BYTES } from "../../src/bounds.js";
import { FakeTimers } from "../helpers/rpc.js";

function setup() {
  const frames: string[] = [];
  const channel = standInChannel((frame) => frames.push(frame));
  const peer = new RpcPeer({
    transport: channel.transport,
    timers: new FakeTimers(),
    onRequest: (r) => ({ method: r.method }),
  });
  let open = true;
  const messages = channel.messages(peer, () => open);
  return { frames, peer, messages, close: () => (open = false) };
}

test("frames go to stdout until the host reads messages; from then on each message is handed over", () => {
  const { frames, peer, messages } = setup();
  peer.notify("$/early", { n: 1 });
  const got: Message[] = [];
  messages.read((m) => got.push(m));
  peer.notify("$/late", { n: 2 });
  assert.deepEqual(frames, ['{"jsonrpc":"2.0","method":"$/early","params":{"n":1}}\n']);
  assert.deepEqual(got, [{ jsonrpc: "2.0", method: "$/late", params: { n: 2 } }]);
});

test("FRAME-01: the host's request is served; no envelope is answered -32600 with its id", async () => {
  const { peer, messages } = setup();
  const got: Message[] = [];
  messages.read((m) => got.push(m));
  messages.write({ jsonrpc: "2.0", id: 7, method: "tool/call", params: {} });
  messages.write({ jsonrpc: "2.0", id: 8, method: "tool/call", params: "no" } as unknown as Message);
  messages.write({ jsonrpc: "2.0", id: 9, method: "x", extra: 1 } as unknown as Message);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, [
    { jsonrpc: "2.0", id: 7, result: { method: "tool/call" } },
    {
      jsonrpc: "2.0",
      id: 8,
      error: { code: ErrorCode.InvalidRequest, message: 'invalid request: "params" must be an object or an array' },
    },
    {
      jsonrpc: "2.0",
      id: 9,
      error: { code: ErrorCode.InvalidRequest, message: 'invalid request: unknown envelope member "extra"' },
    },
  ]);
  assert.equal(peer.pendingCount, 0);
});

test("once the channel is closed, the host's messages are not read", async () => {
  const { messages, close } = setup();
  const got: Message[] = [];
  messages.read((m) => got.push(m));
  close();
  messages.write({ jsonrpc: "2.0", id: 1, method: "tool/call", params: {} });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, []);
});

test("FRAME-09: a result whose frame is at the bound is handed over, one past it is answered as an error", async () => {
  const bound = MAX_FRAME_BYTES;
  const frames: string[] = [];
  const channel = standInChannel((frame) => frames.push(frame));
  // The JSON text of {"jsonrpc":"2.0","id":N,"result":{"t":""}} plus the padding is exactly `bound` bytes at pad 0.
  const empty = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { t: "" } }).length;
  const peer = new RpcPeer({
    transport: channel.transport,
    timers: new FakeTimers(),
    onRequest: (r) => ({ t: "x".repeat(bound - empty + (r.params as { over: number }).over) }),
  });
  const messages = channel.messages(peer, () => true);
  const got: Message[] = [];
  messages.read((m) => got.push(m));
  messages.write({ jsonrpc: "2.0", id: 1, method: "tool/call", params: { over: 0 } });
  messages.write({ jsonrpc: "2.0", id: 2, method: "tool/call", params: { over: 1 } });
  await new Promise((r) => setImmediate(r));
  assert.equal(JSON.stringify(got[0]).length, bound);
  assert.equal((got[0] as { result: { t: string } }).result.t.length, bound - empty);
  assert.deepEqual(got[1], {
    jsonrpc: "2.0",
    id: 2,
    error: {
      code: ErrorCode.InternalError,
      message:
        "result of tool/call could not be sent: " +
        `outbound frame is ${bound + 1} bytes, over the ${bound}-byte limit`,
    },
  });
  assert.deepEqual(frames, []);
});
