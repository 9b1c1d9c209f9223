// message/updated coalescing (W 1.11, WAVE1-04/05/07): the 4096-byte, 64-delta and 50 ms rules
// with injected timers (nothing waits on a clock), and message/settled after the last batch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MessageBatcher, type BatchTimers } from "../../../src/modules/message-injection/message-batches.js";

function setup() {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  const timers: { fn: () => void; ms: number; live: boolean }[] = [];
  const fake: BatchTimers = {
    set(fn, ms) {
      const t = { fn, ms, live: true };
      timers.push(t);
      return t;
    },
    clear(handle) {
      (handle as { live: boolean }).live = false;
    },
  };
  const b = new MessageBatcher((method, params) => sent.push({ method, params }), fake);
  const fire = (): void => {
    for (const t of timers.filter((x) => x.live)) {
      t.live = false;
      t.fn();
    }
  };
  return { b, sent, timers, fire };
}

test("WAVE1-05: 64 deltas make a batch; 200 one-byte deltas are 64, 64, 64 and 8 on settle", () => {
  const { b, sent } = setup();
  for (let i = 0; i < 200; i++) b.delta("m1", "x");
  assert.deepEqual(
    sent.map((s) => s.params["deltas"]),
    [64, 64, 64],
  );
  b.settle("m1");
  assert.deepEqual(
    sent.map((s) => [s.method, s.params["deltas"] ?? null]),
    [
      ["message/updated", 64],
      ["message/updated", 64],
      ["message/updated", 64],
      ["message/updated", 8],
      ["message/settled", null],
    ],
  );
  assert.deepEqual(sent.at(-1)!.params, { message_id: "m1" });
  assert.equal(sent.map((s) => s.params["delta"] ?? "").join(""), "x".repeat(200));
});

test("WAVE1-05: a batch is sent at 4096 bytes; a delta that would pass it sends the batch before it", () => {
  const { b, sent } = setup();
  b.delta("m", "a".repeat(4095));
  assert.equal(sent.length, 0, "4095 bytes wait");
  b.delta("m", "b");
  assert.deepEqual(sent[0]!.params, { message_id: "m", delta: `${"a".repeat(4095)}b`, deltas: 2 });
  b.delta("m", "c".repeat(3000));
  b.delta("m", "é".repeat(600)); // 1200 bytes: 4200 would pass the bound
  assert.equal(sent.length, 2);
  assert.deepEqual(sent[1]!.params, { message_id: "m", delta: "c".repeat(3000), deltas: 1 });
  b.delta("m", "z".repeat(5000)); // one delta alone over the bound is one batch of its own
  assert.deepEqual(
    sent.slice(2).map((s) => Buffer.byteLength(s.params["delta"] as string)),
    [1200, 5000],
  );
});

test("WAVE1-05: 50 ms after a batch's first delta it is sent, whatever its size; the timer is per batch", () => {
  const { b, sent, timers, fire } = setup();
  b.delta("m", "one");
  b.delta("m", "two");
  assert.equal(timers.length, 1);
  assert.equal(timers[0]!.ms, 50);
  fire();
  assert.deepEqual(sent[0]!.params, { message_id: "m", delta: "onetwo", deltas: 2 });
  fire();
  assert.equal(sent.length, 1, "no empty batch");
  b.delta("m", "three");
  assert.equal(timers.length, 2, "a new batch starts its own 50 ms");
  b.settle("m");
  assert.equal(timers[1]!.live, false, "settling clears the timer");
  assert.deepEqual(
    sent.map((s) => s.method),
    ["message/updated", "message/updated", "message/settled"],
  );
});

test("WAVE1-04, WAVE1-07: messages are batched apart; settle of a message without text sends settled only", () => {
  const { b, sent } = setup();
  b.delta("a", "1");
  b.delta("b", "2");
  b.settle("b");
  b.settle("c");
  assert.deepEqual(
    sent.map((s) => s.params),
    [{ message_id: "b", delta: "2", deltas: 1 }, { message_id: "b" }, { message_id: "c" }],
  );
  b.settleAll();
  assert.deepEqual(
    sent.slice(3).map((s) => s.params),
    [{ message_id: "a", delta: "1", deltas: 1 }, { message_id: "a" }],
  );
  assert.throws(() => b.delta("i".repeat(257), "x"), /message id refused: message_id: 257 bytes, over the 256-byte/);
});
