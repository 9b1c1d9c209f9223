import { test } from "node:test";
import assert from "node:assert/strict";
import { FrameQueue, type FrameSink } from "../../src/rpc/frame-queue.js";

/** A sink that accepts `room` frames before asking to wait, and lets the test drain it. */
function sink(room: number): FrameSink & { written: string[]; drain(): void } {
  let resume: (() => void) | null = null;
  let left = room;
  const s = {
    written: [] as string[],
    write(frame: string): boolean {
      s.written.push(frame);
      left--;
      return left > 0;
    },
    onceDrain(r: () => void): void {
      resume = r;
    },
    drain(): void {
      left = room;
      const r = resume;
      resume = null;
      r?.();
    },
  };
  return s;
}

test("FRAME-06: frames reach the sink whole and in order; backpressure holds the rest until drain", () => {
  const s = sink(2);
  const q = new FrameQueue(s);
  for (const f of ["a\n", "b\n", "c\n", "d\n"]) q.send(f);
  assert.deepEqual(s.written, ["a\n", "b\n"]);
  assert.equal(q.queuedSize, 4);
  s.drain();
  assert.deepEqual(s.written, ["a\n", "b\n", "c\n", "d\n"]);
  assert.equal(q.queuedSize, 0);
});

test("CANCEL-02, FRAME-08: a queued frame can be withdrawn; a started one cannot", () => {
  const s = sink(1);
  const q = new FrameQueue(s);
  const first = q.send("first\n");
  const second = q.send("second\n");
  assert.equal(first.withdraw(), false, "already handed to the sink");
  assert.equal(second.withdraw(), true);
  assert.equal(second.withdraw(), false, "only once");
  s.drain();
  assert.deepEqual(s.written, ["first\n"]);
});

test("drained() waits for every queued frame; close() drops the unstarted ones and settles it", async () => {
  const s = sink(1);
  const q = new FrameQueue(s, { measure: (f) => f.length * 10 });
  q.send("x\n");
  q.send("y\n");
  assert.equal(q.queuedSize, 20);
  let settled = false;
  const done = q.drained().then(() => (settled = true));
  await Promise.resolve();
  assert.equal(settled, false);
  q.close();
  await done;
  assert.equal(q.queuedSize, 0);
  q.send("z\n");
  s.drain();
  assert.deepEqual(s.written, ["x\n"], "nothing is written after close");
});
