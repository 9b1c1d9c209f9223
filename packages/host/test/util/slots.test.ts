import { test } from "node:test";
import assert from "node:assert/strict";
import { Slots } from "../../src/util/slots.js";

test("FRAME-13: slots admit at most N at once, in order, and an aborted waiter never holds one", async () => {
  const slots = new Slots(1);
  await slots.acquire();
  const order: string[] = [];
  const controller = new AbortController();
  const aborted = slots.acquire(controller.signal).then(
    () => order.push("aborted got it"),
    () => order.push("aborted gave up"),
  );
  const second = slots.acquire().then(() => order.push("second"));
  controller.abort(new Error("cancelled"));
  await aborted;
  slots.release();
  await second;
  assert.deepEqual(order, ["aborted gave up", "second"]);
  assert.equal(slots.free, 0);
  slots.release();
  assert.equal(slots.free, 1);
});
