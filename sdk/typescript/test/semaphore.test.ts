/**
 * The SDK's concurrency bound (PY-04, mirrored by the TS SDK per PY-58): at most `permits` holders,
 * waiters admitted in arrival order, a release handing its permit straight to the next waiter.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Semaphore } from "../src/semaphore.js";

/** Lets every already-resolved promise continuation run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test("PY-04: a semaphore of 2 admits two holders and queues the rest in FIFO order", async () => {
  const sem = new Semaphore(2);
  const admitted: number[] = [];
  for (let n = 0; n < 5; n++) void sem.acquire().then(() => admitted.push(n));
  await settle();
  assert.deepEqual(admitted, [0, 1]);
  sem.release();
  await settle();
  assert.deepEqual(admitted, [0, 1, 2], "one release admits exactly one waiter, the oldest");
  sem.release();
  sem.release();
  await settle();
  assert.deepEqual(admitted, [0, 1, 2, 3, 4]);
});

test("PY-04: a release with no waiter returns the permit for the next acquire", async () => {
  const sem = new Semaphore(1);
  await sem.acquire();
  sem.release();
  let got = false;
  void sem.acquire().then(() => (got = true));
  await settle();
  assert.equal(got, true);
  let second = false;
  void sem.acquire().then(() => (second = true));
  await settle();
  assert.equal(second, false, "the single permit is held");
});

test(
  "issue 13.12: a waiter withdrawn on cancel leaves the queue with false; the permit goes to the " + "next waiter",
  async () => {
    const sem = new Semaphore(1);
    assert.equal(await sem.acquire(), true);
    const waiter = { withdrawn: false, withdraw: null as (() => void) | null };
    const order: string[] = [];
    void sem.acquire(waiter).then((ok) => order.push(`cancelled:${ok}`));
    void sem.acquire().then((ok) => order.push(`next:${ok}`));
    assert.equal(typeof waiter.withdraw, "function", "a waiting waiter can be withdrawn");
    waiter.withdraw!();
    await settle();
    assert.deepEqual(order, ["cancelled:false"]);
    sem.release();
    await settle();
    assert.deepEqual(order, ["cancelled:false", "next:true"]);
    assert.equal(waiter.withdraw, null, "a withdrawn waiter holds no hook");
    assert.equal(
      await sem.acquire({ withdrawn: true, withdraw: null }),
      false,
      "a waiter already withdrawn, with no permit free, is refused at once",
    );
  },
);
