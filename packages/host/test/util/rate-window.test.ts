import { test } from "node:test";
import assert from "node:assert/strict";
import { RateWindow } from "../../src/util/rate-window.js";

test("NOTIF-03: a window admits max events per second and reports the drops once when the next one opens", () => {
  let now = 1_000;
  const w = new RateWindow(10, () => now);
  const results = Array.from({ length: 15 }, () => w.admit());
  assert.equal(results.filter((r) => r.admitted).length, 10, "10 pass");
  assert.equal(w.dropped, 5);
  now += 999;
  assert.equal(w.admit().admitted, false, "still the same second");
  now += 1;
  assert.deepEqual(w.admit(), { admitted: true, droppedBefore: 6 });
  assert.deepEqual(w.admit(), { admitted: true, droppedBefore: 0 });
});
