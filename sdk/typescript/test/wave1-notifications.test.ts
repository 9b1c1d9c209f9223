/**
 * Wave-1 notifications as the SDK receives them (W 1.11, WAVE1-02), through a real child process:
 * a bounded plain-object payload sent as a notification reaches the handler; an unnegotiated
 * method, a non-object or oversized payload, or the method sent as a request (with an id) is
 * refused with a bounded diagnostic and never reaches a handler.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { CONTEXT, WireHost, killAll, resultOf } from "./harness.js";

afterEach(killAll);

async function start(optional: string[]): Promise<WireHost> {
  const host = new WireHost("negotiated", ["0.2", "messages"]);
  const init = resultOf(await host.initialize("0.2", { optional })) as { protocol: { features: string[] } };
  assert.equal(init.protocol.features.includes("message_injection"), optional.includes("message_injection"));
  return host;
}

/** A request round trip: every frame sent before it has been read and handled by the child. */
async function roundTrip(host: WireHost): Promise<void> {
  resultOf(await host.request("tool/call", { name: "count", arguments: {}, context: CONTEXT }));
}

const handled = (host: WireHost): string[] => host.stderr.split("\n").filter((l) => / handler \{/.test(l));

test("WAVE1-02: a bad message/updated is diagnosed and dropped; only the bounded object runs the handler", async () => {
  const host = await start(["message_injection"]);
  host.notify("message/updated", ["not", "an", "object"]);
  await host.waitForStderr("ignored message/updated: ");
  host.notify("message/updated", { message_id: "m1", deltas: Array.from({ length: 1025 }, () => "x") });
  host.notify("message/updated", { message_id: "m".repeat(10_000), delta: "hi", deltas: 1 });
  // Params that are no structured value are no valid envelope: answered -32600 with id null.
  host.notify("message/settled", "m1");
  const invalid = await host.waitForFrame((f) => f["id"] === null, undefined, "the invalid-envelope answer");
  assert.equal((invalid["error"] as { code: number }).code, -32600);
  // As a request (with an id) it is no notification: answered method-not-found, never delivered.
  const asRequest = await host.request("message/updated", { message_id: "m1", delta: "req", deltas: 1 });
  assert.equal((asRequest["error"] as { code: number }).code, -32601);
  await roundTrip(host);
  // stderr is its own pipe: wait for the last refusal; a handler run before it would be above it.
  await host.waitForStderr("message_id: 10000 bytes");
  assert.deepEqual(handled(host), [], "no refused notification reached a handler");
  const refusals = host.stderr.split("\n").filter((l) => l.startsWith("octet-extension: ignored message/"));
  assert.equal(refusals.length, 3, host.stderr);
  assert.match(refusals[1]!, /1024/);
  for (const r of refusals) assert.ok(Buffer.byteLength(r) <= 600, `a bounded diagnostic: ${r.length} bytes`);
  host.notify("message/updated", { message_id: "m1", delta: "Hello", deltas: 2 });
  host.notify("message/settled", { message_id: "m1" });
  await host.waitForStderr("message/settled handler");
  assert.deepEqual(handled(host), [
    'message/updated handler {"message_id":"m1","delta":"Hello","deltas":2}',
    'message/settled handler {"message_id":"m1"}',
  ]);
  assert.deepEqual(host.violations, []);
});

test("WAVE1-02: message/updated on a connection that did not negotiate message_injection is refused", async () => {
  const host = await start([]);
  host.notify("message/updated", { message_id: "m1", delta: "Hello", deltas: 1 });
  await host.waitForStderr("ignored message/updated: its feature was not negotiated");
  await roundTrip(host);
  assert.deepEqual(handled(host), []);
  assert.equal(host.frames.length, 2, "the initialize and tool/call answers only: a notification has no reply");
});
