import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  DEFAULT_RESTART_POLICY,
  backoffCeiling,
  decideRestart,
  type RestartBudget,
} from "../../src/supervision/restart-policy.js";

const crash = (now: number, readySince: number | null = null) => ({ now, readySince });

test("SUP-03: the delay is full jitter, uniform in [0, min(30 s, 250 ms x 2^attempt)], attempt counting from 0", () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5, 6, 7, 8].map((a) => backoffCeiling(a)),
    [250, 500, 1000, 2000, 4000, 8000, 16000, 30000, 30000],
  );
  assert.equal(backoffCeiling(10_000), 30_000, "no overflow past the cap");
  // random() = 0 gives 0 ms; the top of [0, 1) gives the ceiling itself.
  const low = decideRestart({ attempts: 3 }, crash(0), () => 0);
  assert.deepEqual(low, { action: "restart", delayMs: 0, attempt: 3, budget: { attempts: 4 } });
  const high = decideRestart({ attempts: 3 }, crash(0), () => 1 - Number.EPSILON);
  assert.equal(high.action === "restart" && high.delayMs, 2000);
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 7 }),
      fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
      (attempts, r) => {
        const d = decideRestart({ attempts }, crash(0), () => r);
        return (
          d.action === "restart" &&
          Number.isInteger(d.delayMs) &&
          d.delayMs >= 0 &&
          d.delayMs <= backoffCeiling(attempts) &&
          d.attempt === attempts
        );
      },
    ),
  );
  // A broken random source cannot produce a negative, huge or NaN delay.
  for (const r of [-1, 2, Number.NaN, Number.POSITIVE_INFINITY]) {
    const d = decideRestart({ attempts: 0 }, crash(0), () => r);
    assert.ok(d.action === "restart" && d.delayMs >= 0 && d.delayMs <= 250, `random ${r}`);
  }
});

test(
  "SUP-04: eight failed restart attempts park the extension: the eighth attempt is still made, the failure " +
    "after it parks",
  () => {
    let budget: RestartBudget = { attempts: 0 };
    const delays: number[] = [];
    for (let i = 0; i < 8; i++) {
      const d = decideRestart(budget, crash(i * 1000, i * 1000 - 10), () => 0.5);
      assert.equal(d.action, "restart", `failure ${i + 1}`);
      if (d.action === "restart") delays.push(d.delayMs);
      budget = d.budget;
    }
    assert.equal(budget.attempts, DEFAULT_RESTART_POLICY.maxAttempts);
    const parked = decideRestart(budget, crash(9000, 8990), () => 0.5);
    assert.equal(parked.action, "park");
    assert.match(parked.action === "park" ? parked.reason : "", /8 restart attempts failed/);
    // Half of each ceiling: the delays double until the cap.
    assert.deepEqual(delays, [125, 250, 500, 1000, 2000, 4000, 8000, 15000]);
  },
);

test(
  "SUP-05: 30 s continuously ready resets the budget; 29.999 s does not, and a successful initialize alone " +
    "never does",
  () => {
    const tired: RestartBudget = { attempts: 8 };
    const reset = decideRestart(tired, crash(100_000, 70_000), () => 0);
    assert.deepEqual(reset, { action: "restart", delayMs: 0, attempt: 0, budget: { attempts: 1 } });
    const short = decideRestart(tired, crash(100_000, 70_001), () => 0);
    assert.equal(short.action, "park", "29.999 s ready is not enough");
    // A candidate that never became ready (readySince null) does not reset anything.
    assert.equal(decideRestart(tired, crash(100_000, null), () => 0).action, "park");
  },
);

test("SUP-06: a permanent error parks at once, whatever the budget", () => {
  const d = decideRestart(
    { attempts: 0 },
    { now: 0, readySince: null, permanent: "re-registration required" },
    () => 0,
  );
  assert.deepEqual(d, { action: "park", reason: "re-registration required", budget: { attempts: 0 } });
});
