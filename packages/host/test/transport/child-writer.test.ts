/**
 * ChildWriter against a real stream.Writable whose _write we control (complete soon, hold until
 * released, or fail like EPIPE): whole frames in order from concurrent producers (FRAME-06), a
 * started frame is finished (FRAME-08), withdraw of queued frames, 'drain' backpressure, the 8 MiB
 * writer bound (at the limit and one past it), and stream errors reported, never thrown.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { OctetError, bounds } from "@octet/protocol";
import { ChildWriter, MAX_CORKED_FRAMES } from "../../src/transport/child-writer.js";
import { waitUntil, withDeadline } from "../helpers/wait.js";

type Mode = "async" | "hold" | "fail";

class Sink extends Writable {
  readonly chunks: string[] = [];
  readonly #held: (() => void)[] = [];
  mode: Mode;
  writeCalls = 0;

  constructor(mode: Mode, highWaterMark = 16_384) {
    super({ highWaterMark });
    this.mode = mode;
    const write = this.write.bind(this) as (chunk: unknown) => boolean;
    this.write = ((chunk: unknown) => {
      this.writeCalls++;
      return write(chunk);
    }) as Writable["write"];
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.chunks.push(chunk.toString("utf8"));
    if (this.mode === "async") setImmediate(callback);
    else if (this.mode === "hold") this.#held.push(() => callback());
    else callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
  }

  /** Completes the held writes (the child read them). */
  release(): void {
    for (const done of this.#held.splice(0)) done();
  }

  get text(): string {
    return this.chunks.join("");
  }
}

function setup(mode: Mode, highWaterMark?: number) {
  const sink = new Sink(mode, highWaterMark);
  const failures: OctetError[] = [];
  const writer = new ChildWriter(sink, (e) => failures.push(e));
  return { sink, writer, failures };
}

const frame = (v: unknown): string => JSON.stringify(v) + "\n";

test("FRAME-06: frames from 50 concurrent producers never interleave and keep their order", async () => {
  const { sink, writer, failures } = setup("async", 1_024);
  const sent: string[] = [];
  let total = 0;
  const producer = async (p: number): Promise<void> => {
    for (let k = 0; k < 20; k++) {
      // Yield a varying number of turns so producers interleave; sizes straddle the high-water mark.
      for (let y = (p * 7 + k * 3) % 4; y > 0; y--) await new Promise((r) => setImmediate(r));
      const f = frame({ p, k, pad: "é".repeat((p * 131 + k * 17) % 1_500) });
      sent.push(f);
      total += Buffer.byteLength(f);
      writer.send(f);
    }
  };
  await Promise.all(Array.from({ length: 50 }, (_, p) => producer(p)));
  await waitUntil(
    () => Buffer.byteLength(sink.text) === total && sink.writableLength === 0,
    10_000,
    "all frames to be written",
  );
  assert.deepEqual(failures, []);
  assert.deepEqual(sink.chunks, sent, "each write is one whole frame, in send order");
  const lines = sink.text
    .split("\n")
    .slice(0, -1)
    .map((l) => JSON.parse(l) as { p: number; k: number });
  for (let p = 0; p < 50; p++) {
    assert.deepEqual(
      lines.filter((l) => l.p === p).map((l) => l.k),
      Array.from({ length: 20 }, (_, k) => k),
      `producer ${p} in order`,
    );
  }
});

test("FRAME-08: a frame once started is written whole even if withdraw() is called after", async () => {
  const { sink, writer } = setup("hold", 1);
  const a = frame({ id: 1, method: "tool/call", params: { s: "x".repeat(5_000) } });
  const ticketA = writer.send(a);
  assert.equal(sink.chunks.length, 1, "A was handed to the stream");
  assert.equal(ticketA.withdraw(), false, "too late to withdraw A");
  const c = frame({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id: 1 } });
  writer.send(c);
  sink.release();
  await waitUntil(() => sink.chunks.length === 2, 5_000, "the frame after A");
  sink.release();
  assert.equal(sink.text, a + c, "A whole, then the cancel");
});

test("withdraw() of a queued frame removes it and nothing of it is written", async () => {
  const { sink, writer } = setup("hold", 1);
  const [a, b, c] = [frame({ n: "a" }), frame({ n: "b" }), frame({ n: "c" })];
  writer.send(a);
  const tb = writer.send(b);
  writer.send(c);
  assert.equal(writer.queuedBytes, Buffer.byteLength(a + b + c));
  assert.equal(tb.withdraw(), true);
  assert.equal(tb.withdraw(), false, "a second withdraw finds nothing");
  assert.equal(writer.queuedBytes, Buffer.byteLength(a + c));
  sink.release();
  await waitUntil(() => sink.chunks.length === 2, 5_000, "c to be written");
  sink.release();
  assert.equal(sink.text, a + c);
});

test("backpressure: after write() returns false the writer waits for 'drain'", async () => {
  const { sink, writer } = setup("hold", 1);
  for (const n of [1, 2, 3]) writer.send(frame({ n }));
  assert.equal(sink.writeCalls, 1, "one write, which returned false");
  assert.equal(sink.writableLength, Buffer.byteLength(frame({ n: 1 })), "the stream holds only the first frame");
  let drains = 0;
  sink.on("drain", () => drains++);
  for (const expected of [2, 3]) {
    sink.release();
    await waitUntil(() => sink.writeCalls === expected, 5_000, `write ${expected} after drain ${expected - 1}`);
    assert.equal(drains, expected - 1);
  }
  sink.release();
  await waitUntil(() => sink.writableLength === 0, 5_000, "the last write to finish");
  assert.equal(sink.text, [1, 2, 3].map((n) => frame({ n })).join(""));
});

test("the writer bound: a child that never reads is accepted up to exactly 8 MiB waiting", () => {
  const { writer, failures } = setup("hold");
  const mib = "x".repeat(1_048_575) + "\n";
  for (let i = 0; i < 8; i++) writer.send(mib);
  assert.equal(writer.queuedBytes, bounds.MAX_WRITER_QUEUE_BYTES);
  assert.deepEqual(failures, [], "at the limit");
});

test("the writer bound: one byte past 8 MiB fails with writer_stalled naming the bytes and the bound", () => {
  const { sink, writer, failures } = setup("hold");
  const mib = "x".repeat(1_048_575) + "\n";
  for (let i = 0; i < 8; i++) writer.send(mib);
  const ticket = writer.send("\n");
  assert.equal(failures.length, 1);
  const e = failures[0]!;
  assert.ok(e instanceof OctetError && e.code === "writer_stalled");
  assert.match(
    e.message,
    new RegExp(
      `${bounds.MAX_WRITER_QUEUE_BYTES} bytes are waiting, over the ${bounds.MAX_WRITER_QUEUE_BYTES}-byte writer bound`,
    ),
  );
  assert.equal(ticket.withdraw(), false);
  writer.send("{}\n");
  assert.equal(failures.length, 1, "reported once");
  assert.equal(sink.chunks.length, 1, "nothing more reached the stream");
});

test("a stream error (EPIPE) fails the writer with transport_closed and never throws", async () => {
  const { sink, writer, failures } = setup("fail");
  let uncaught: unknown = null;
  const onUncaught = (e: unknown): void => {
    uncaught = e;
  };
  process.on("uncaughtException", onUncaught);
  try {
    writer.send(frame({ n: 1 }));
    writer.send(frame({ n: 2 }));
    await waitUntil(() => failures.length > 0 && sink.destroyed, 5_000, "the write error");
    assert.equal(failures.length, 1);
    assert.equal(failures[0]!.code, "transport_closed");
    assert.match(failures[0]!.message, /EPIPE/);
    assert.doesNotThrow(() => writer.send(frame({ n: 3 })));
    assert.equal(writer.send(frame({ n: 4 })).withdraw(), false);
    assert.equal(failures.length, 1);
    assert.equal(uncaught, null);
  } finally {
    process.off("uncaughtException", onUncaught);
  }
});

test("an error while waiting for 'drain' fails the writer and drops the queue", async () => {
  const { sink, writer, failures } = setup("hold", 1);
  writer.send(frame({ n: 1 }));
  writer.send(frame({ n: 2 }));
  sink.destroy(Object.assign(new Error("read end closed"), { code: "EPIPE" }));
  await withDeadline(new Promise((r) => sink.once("close", r)), 5_000, "the stream to close");
  assert.deepEqual(
    failures.map((f) => f.code),
    ["transport_closed"],
  );
  assert.equal(sink.chunks.length, 1);
});

test("sending to a destroyed stream fails with transport_closed", () => {
  const { sink, writer, failures } = setup("async");
  sink.destroy();
  writer.send(frame({ n: 1 }));
  assert.deepEqual(
    failures.map((f) => [f.code, f.message]),
    [["transport_closed", "the extension's stdin is closed"]],
  );
});

test("end() closes stdin only after the queued frames are written", async () => {
  const { sink, writer, failures } = setup("hold", 1);
  const frames = [1, 2, 3].map((n) => frame({ n }));
  for (const f of frames) writer.send(f);
  writer.end();
  const finished = new Promise((r) => sink.once("finish", r));
  for (let i = 1; i <= 3; i++) {
    await waitUntil(() => sink.chunks.length === i, 5_000, `frame ${i}`);
    sink.release();
  }
  await withDeadline(finished, 5_000, "the stream to finish");
  assert.deepEqual(failures, []);
  assert.equal(sink.text, frames.join(""));
});

test("FRAME-06: a tick's frames leave in writevs of at most MAX_CORKED_FRAMES, whole and in order", async () => {
  // A burst is not held for the whole tick (the extension on another CPU can start on the first
  // frames), nor written a syscall per frame: 70 frames in one tick are 32 + 32 + 6.
  const batches: string[][] = [];
  const sink = new Writable({
    writev(chunks, callback) {
      batches.push(chunks.map((c) => String(c.chunk)));
      callback();
    },
    write(chunk, _encoding, callback) {
      batches.push([String(chunk)]);
      callback();
    },
  });
  const writer = new ChildWriter(sink, () => assert.fail("no failure expected"));
  const frames = Array.from({ length: 70 }, (_, i) => `{"jsonrpc":"2.0","method":"n","params":{"i":${i}}}\n`);
  for (const f of frames) writer.send(f);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    batches.map((b) => b.length),
    [MAX_CORKED_FRAMES, MAX_CORKED_FRAMES, 70 - 2 * MAX_CORKED_FRAMES],
  );
  assert.deepEqual(batches.flat(), frames);
  // One frame in a tick is one write, after the tick (corked until then).
  batches.length = 0;
  writer.send(frames[0]!);
  assert.equal(batches.length, 0);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(batches, [[frames[0]]]);
});
