/**
 * The wire to an in-process stand-in that takes messages as objects (ForeignMessages, the rpi
 * bridge's way): nothing crosses stdin or stdout, each message the stand-in hands over is judged
 * as a decoded envelope, and a closed stdin still ends the transport.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  MAX_FRAME_BYTES,
  OctetError,
  RpcPeer,
  standInChannel,
  type ForeignMessages,
  type Message,
  type NotificationMessage,
  type RequestMessage,
} from "@octet/protocol";
import { Connection } from "../../src/generation/connection.js";
import { FakeChild } from "./fake-child.js";

/** A stand-in on the far side: its own RpcPeer answering `echo`, reached only through `messages`. */
function standIn() {
  const fromHost: Message[] = [];
  const child = new FakeChild(null);
  const channel = standInChannel(() => assert.fail("the stand-in wrote a frame"));
  const peer = new RpcPeer({ transport: channel.transport, onRequest: (r) => ({ echoed: r.params ?? null }) });
  const served = channel.messages(peer, () => !child.stdin.destroyed);
  let toHost: ((m: Message) => void) | null = null;
  const messages: ForeignMessages = {
    write(m) {
      fromHost.push(m);
      served.write(m);
    },
    read(listener) {
      toHost = listener;
      served.read(listener);
    },
  };
  return { child, messages, peer, fromHost, send: (m: Message) => toHost?.(m) };
}

function connect(s: ReturnType<typeof standIn>, trace?: { frame(dir: string, f: unknown): void }) {
  const seen: string[] = [];
  const ended = new AbortController();
  const conn = new Connection({
    stdin: s.child.stdin,
    stdout: s.child.stdout,
    stderr: s.child.stderr,
    messages: s.messages,
    inbox: {
      request: async (r: RequestMessage) => {
        seen.push(`request ${r.method}`);
        return { host: "answer" };
      },
      notification: (n: NotificationMessage) => seen.push(`notification ${n.method}`),
      cancel: (id: unknown) => seen.push(`cancel ${String(id)}`),
    },
    childCancels: true,
    progress: () => false,
    onStderr: () => undefined,
    onViolation: (m) => seen.push(`violation ${m}`),
    onTransportEnded: (which, detail) => seen.push(`ended ${which}${detail ? ` ${detail}` : ""}`),
    diagnose: (level, m) => seen.push(`${level} ${m}`),
    ended: ended.signal,
    ...(trace ? { trace: { frame: trace.frame, refused: (e: string) => trace.frame("refused", e) } } : {}),
  });
  return { conn, seen };
}

test("a stand-in's messages cross as objects both ways, and no byte crosses stdin", async () => {
  const s = standIn();
  const { conn, seen } = connect(s);
  const written: Buffer[] = [];
  s.child.stdin.on("data", (b: Buffer) => written.push(b));
  const answer = await conn.peer.request("tool/call", { name: "echo", arguments: { a: 1 } }).result;
  assert.deepEqual(answer, { echoed: { name: "echo", arguments: { a: 1 } } });
  assert.deepEqual(s.fromHost[0], {
    jsonrpc: "2.0",
    id: 1,
    method: "tool/call",
    params: { name: "echo", arguments: { a: 1 } },
  });
  // The stand-in's own request reaches the inbox and its answer comes back as an object.
  const asked = await s.peer.request("confirmation/request", { message: "ok?" }).result;
  assert.deepEqual(asked, { host: "answer" });
  s.peer.notify("notification/show", { text: "hi" });
  assert.deepEqual(seen, ["request confirmation/request", "notification notification/show"]);
  assert.equal(Buffer.concat(written).length, 0);
});

test("FRAME-01: a stand-in's message that is no closed envelope is a violation and is not delivered", () => {
  const s = standIn();
  const { seen } = connect(s);
  s.send({ jsonrpc: "2.0", method: "notification/show", params: {}, extra: true } as unknown as Message);
  s.send({ jsonrpc: "2.0", id: -1, method: "confirmation/request", params: {} });
  assert.deepEqual(seen, [
    'violation sent an invalid JSON-RPC message: unknown envelope member "extra"',
    "violation sent an invalid JSON-RPC message: id -1 is not an unsigned integer",
  ]);
});

test("issue 13.4: once the stand-in's stdin is destroyed, a request is refused and the transport ends", async () => {
  const s = standIn();
  const { conn, seen } = connect(s);
  s.child.stdin.destroy();
  // Nothing was handed over, so the request waits for the generation to end it; the transport ended.
  void conn.peer.request("tool/call", { name: "echo" }).result.catch(() => undefined);
  assert.deepEqual(s.fromHost, []);
  assert.deepEqual(seen, ["ended stdin the extension's stdin is closed"]);
});

test("--trace records a stand-in's messages in both directions", async () => {
  const s = standIn();
  const traced: [string, unknown][] = [];
  const { conn } = connect(s, { frame: (dir, f) => traced.push([dir, f]) });
  await conn.peer.request("tool/call", { name: "echo" }).result;
  assert.deepEqual(traced, [
    ["out", { jsonrpc: "2.0", id: 1, method: "tool/call", params: { name: "echo" } }],
    ["in", { jsonrpc: "2.0", id: 1, result: { echoed: { name: "echo" } } }],
  ]);
});

test("FRAME-09: the host's messages to a stand-in: at the frame bound handed over, past it refused", async () => {
  const bound = MAX_FRAME_BYTES;
  const s = standIn();
  const traced: [string, unknown][] = [];
  const { conn, seen } = connect(s, { frame: (dir, f) => traced.push([dir, f]) });
  const empty = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tool/call", params: { t: "" } }).length;
  await conn.peer.request("tool/call", { t: "x".repeat(bound - empty) }).result;
  assert.equal(JSON.stringify(s.fromHost[0]).length, bound);
  await assert.rejects(
    conn.peer.request("tool/call", { t: "x".repeat(bound - empty + 1) }).result,
    (e: unknown) =>
      e instanceof OctetError &&
      e.code === "frame_too_large" &&
      e.message === `outbound frame is ${bound + 1} bytes, over the ${bound}-byte limit`,
  );
  // A value with no JSON text is refused the same way, before the trace or the stand-in sees it.
  await assert.rejects(
    conn.peer.request("tool/call", { n: 1n }).result,
    (e: unknown) => e instanceof OctetError && e.code === "frame_invalid",
  );
  assert.equal(s.fromHost.length, 1);
  assert.deepEqual(
    traced.filter(([dir]) => dir === "out").map(([, f]) => (f as { id: number }).id),
    [1],
    "only the message handed over is traced",
  );
  // Refused before anything was handed over; the channel stays up.
  assert.deepEqual(seen, []);
  assert.equal(conn.peer.pendingCount, 0);
});
