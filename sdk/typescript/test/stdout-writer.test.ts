/**
 * The StdoutWriter against a fake stdout whose writes complete only when the test says so, so
 * backpressure, ordering and withdraw() are driven step by step (FRAME-07, FRAME-08). The fake is
 * a real node Writable: write() returns false past its 8-byte highWaterMark and emits "drain".
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { StdoutWriter } from "../src/stdout-writer.js";

class FakeStdout extends Writable {
  /** Each chunk _write received: the writer must hand over one whole frame per write. */
  readonly chunks: string[] = [];
  #held: ((err?: Error | null) => void)[] = [];
  #auto = false;

  constructor() {
    super({ highWaterMark: 8, decodeStrings: false });
  }

  override _write(chunk: unknown, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    this.chunks.push(String(chunk));
    if (this.#auto) process.nextTick(callback);
    else this.#held.push(callback);
  }

  /** Completes the writes held so far and every later one (the reader caught up). */
  releaseAll(): void {
    this.#auto = true;
    for (const cb of this.#held.splice(0)) cb();
  }
}

function owned(): { fake: FakeStdout; writer: StdoutWriter } {
  const fake = new FakeStdout();
  return { fake, writer: new StdoutWriter(fake as unknown as NodeJS.WriteStream) };
}

const frame = (n: number): string =>
  JSON.stringify({ jsonrpc: "2.0", method: "notification", params: { n, pad: "x".repeat(n * 7) } }) + "\n";

/** Resolves with the promise's value, or fails the test at the deadline instead of hanging it. */
async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

test("FRAME-08: under backpressure one frame is in flight, the rest wait whole and go out in order", async () => {
  const { fake, writer } = owned();
  const frames = [1, 2, 3, 4, 5].map(frame);
  for (const f of frames) writer.send(f);
  // The first write returned false (backpressure): nothing more is handed over until "drain".
  assert.deepEqual(fake.chunks, [frames[0]]);
  fake.releaseAll();
  await within(writer.flushed(), 2000, "flushed()");
  assert.deepEqual(fake.chunks, frames, "every frame whole, one per write, in send order");
});

test(
  "FRAME-08: withdraw() removes a queued frame but returns false for a frame already started, which is " +
    "still written whole",
  async () => {
    const { fake, writer } = owned();
    const [a, b, c, d] = [10, 11, 12, 13].map(frame);
    const started = writer.send(a!);
    const queuedB = writer.send(b!);
    writer.send(c!);
    const queuedD = writer.send(d!);
    assert.equal(started.withdraw(), false, "a started frame cannot be withdrawn");
    assert.equal(queuedB.withdraw(), true);
    assert.equal(queuedB.withdraw(), false, "a frame is withdrawn once");
    assert.equal(queuedD.withdraw(), true);
    fake.releaseAll();
    await within(writer.flushed(), 2000, "flushed()");
    assert.deepEqual(fake.chunks, [a, c]);
    assert.equal(started.withdraw(), false, "a written frame cannot be withdrawn");
  },
);

test("FRAME-07: frames from many concurrent producers are written one whole frame per write", async () => {
  const { fake, writer } = owned();
  fake.releaseAll();
  const sent: string[] = [];
  await Promise.all(
    Array.from({ length: 50 }, async (_, n) => {
      await new Promise((resolve) => setImmediate(resolve));
      const f = frame(n);
      sent.push(f);
      writer.send(f);
    }),
  );
  await within(writer.flushed(), 2000, "flushed()");
  assert.deepEqual(fake.chunks, sent);
});

test(
  "FRAME-12: flushed() settles when the stream breaks while waiting for drain, so the " + "process can exit",
  async () => {
    const { fake, writer } = owned();
    writer.send(frame(1));
    const queued = writer.send(frame(2));
    const flushed = writer.flushed();
    // The host closed its end of the pipe: EPIPE, and "drain" will never come.
    fake.destroy(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    await within(flushed, 2000, "flushed() after the stream broke");
    assert.equal(queued.withdraw(), false, "the frame not started was dropped with the broken stream");
    // Later frames are refused, not queued forever.
    assert.equal(writer.send(frame(3)).withdraw(), false);
    await within(writer.flushed(), 2000, "flushed() on a broken stream");
    assert.deepEqual(fake.chunks, [frame(1)]);
  },
);

test("flushed() resolves at once when nothing is queued", async () => {
  const { writer } = owned();
  await within(writer.flushed(), 2000, "flushed() of an idle writer");
});

test(
  "FRAME-03: writes to the owned stream by anyone else go to stderr, with their callback, never " + "between frames",
  async () => {
    const { fake, writer } = owned();
    const captured: string[] = [];
    const realStderrWrite = process.stderr.write;
    process.stderr.write = ((chunk: unknown, encoding?: unknown, cb?: unknown) => {
      captured.push(String(chunk));
      const callback = typeof encoding === "function" ? encoding : cb;
      if (typeof callback === "function") process.nextTick(callback as () => void);
      return true;
    }) as typeof process.stderr.write;
    try {
      writer.send(frame(1));
      fake.write("stray text");
      await within(
        new Promise<void>((resolve) => fake.write("stray with callback\n", () => resolve())),
        2000,
        "the stray write's callback",
      );
      writer.send(frame(2));
    } finally {
      process.stderr.write = realStderrWrite;
    }
    fake.releaseAll();
    await within(writer.flushed(), 2000, "flushed()");
    assert.deepEqual(captured, ["stray text", "stray with callback\n"]);
    assert.deepEqual(fake.chunks, [frame(1), frame(2)]);
  },
);

test("FRAME-07: a tick's frames leave stdout in writevs of at most 32, whole and in order", async () => {
  const batches: string[][] = [];
  const sink = new Writable({
    decodeStrings: false,
    writev(chunks, callback) {
      batches.push(chunks.map((c) => String(c.chunk)));
      callback();
    },
    write(chunk, _encoding, callback) {
      batches.push([String(chunk)]);
      callback();
    },
  });
  const writer = new StdoutWriter(sink as unknown as NodeJS.WriteStream);
  const frames = Array.from({ length: 70 }, (_, i) => frame(i));
  for (const f of frames) writer.send(f);
  await writer.flushed();
  assert.deepEqual(
    batches.map((b) => b.length),
    [32, 32, 6],
  );
  assert.deepEqual(batches.flat(), frames);
});
