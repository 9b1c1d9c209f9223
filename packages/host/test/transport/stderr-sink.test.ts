/**
 * StderrSink: any chunking of stderr yields the same line diagnostics (FRAME-04), each at most
 * 4 KiB, with a 64 KiB tail and a per-second rate limit summarised once (FRAME-05); truncateBytes
 * cuts on character boundaries.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { bounds } from "@octet/protocol";
import { STDERR_LINES_PER_SECOND, StderrSink, truncateBytes } from "../../src/transport/stderr-sink.js";

const MAX = bounds.MAX_DIAGNOSTIC_BYTES;
const TAIL = bounds.MAX_STDERR_TAIL_BYTES;

/** A sink whose clock moves a full second per line, so the rate limit never applies. */
function unlimited(): { sink: StderrSink; out: string[] } {
  const out: string[] = [];
  let t = 0;
  return {
    sink: new StderrSink(
      (l) => out.push(l),
      () => (t += 1_000),
    ),
    out,
  };
}

/** Cuts `bytes` at the given points (any byte offset, including inside a UTF-8 sequence). */
function cut(bytes: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let prev = 0;
  for (const p of [...at, bytes.length]) {
    chunks.push(bytes.subarray(prev, p));
    prev = p;
  }
  return chunks;
}

const wellFormed = (s: string): boolean => Buffer.from(s).toString("utf8") === s;

test("FRAME-04: any chunking of stderr, including inside UTF-8 sequences, yields the same lines", () => {
  const line = fc
    .oneof(
      fc.string({ unit: "binary", maxLength: 80 }),
      fc.string({ unit: "binary", minLength: 4_000, maxLength: 6_000 }),
    )
    .map((s) => s.replaceAll("\n", " "))
    .filter(wellFormed);
  fc.assert(
    fc.property(
      fc.array(line, { minLength: 1, maxLength: 12 }),
      fc.array(fc.nat(), { maxLength: 20 }),
      fc.boolean(),
      (lines, points, finalLf) => {
        const { sink, out } = unlimited();
        const bytes = Buffer.from(lines.join("\n") + (finalLf ? "\n" : ""));
        for (const chunk of cut(bytes, points)) sink.write(chunk);
        sink.end();
        const expected = lines.map((l) => truncateBytes(l, MAX));
        if (!finalLf && lines[lines.length - 1] === "") expected.pop();
        assert.deepEqual(out, expected);
      },
    ),
    { numRuns: 300 },
  );
});

test("FRAME-04: a line split across chunks is joined; a character split across chunks is decoded", () => {
  const { sink, out } = unlimited();
  const smile = Buffer.from("😀");
  sink.write(Buffer.from("first par"));
  sink.write(Buffer.from("t\nh"));
  sink.write(Buffer.from([0xc3]));
  sink.write(Buffer.from([0xa9, 0x20, smile[0]!]));
  sink.write(smile.subarray(1, 3));
  sink.write(Buffer.concat([smile.subarray(3), Buffer.from("\n")]));
  assert.deepEqual(out, ["first part", "hé 😀"]);
});

test("FRAME-04: a large chunk is consumed at once and an over-long line is one truncated diagnostic", () => {
  const { sink, out } = unlimited();
  const big = Buffer.concat([Buffer.from("a\nb\n"), Buffer.alloc(1_048_576, 0x78), Buffer.from("\nc\n")]);
  sink.write(big);
  assert.deepEqual(
    out.map((l) => l.slice(0, 3)),
    ["a", "b", "xxx", "c"],
  );
  assert.equal(Buffer.byteLength(out[2]!), MAX);
});

test("FRAME-04: a 1 MiB line without LF dripped in 64 KiB chunks yields one diagnostic, in order", () => {
  const { sink, out } = unlimited();
  sink.write(Buffer.from("before\n"));
  for (let i = 0; i < 16; i++) sink.write(Buffer.alloc(65_536, 0x79));
  sink.write(Buffer.from("\nafter\n"));
  assert.deepEqual(
    out.map((l) => l.slice(0, 5)),
    ["befor", "yyyyy", "after"],
  );
  assert.ok(out.every((l) => Buffer.byteLength(l) <= MAX));
});

test("FRAME-05: a 4096-byte line is emitted whole; a 4097-byte line is cut to at most 4096 bytes", () => {
  const { sink, out } = unlimited();
  const exact = "x".repeat(MAX);
  const over = "é".repeat((MAX + 1 - 1) / 2) + "z"; // 4097 bytes, two-byte characters
  assert.equal(Buffer.byteLength(over), MAX + 1);
  sink.write(Buffer.from(`${exact}\n${exact}y\n${over}\n`));
  assert.equal(out[0], exact);
  for (const l of out.slice(1)) {
    assert.ok(Buffer.byteLength(l) <= MAX, `${Buffer.byteLength(l)} bytes`);
    assert.ok(l.endsWith("…") && !l.includes("\uFFFD"));
  }
  assert.ok(exact.startsWith(out[1]!.slice(0, -1)) && over.startsWith(out[2]!.slice(0, -1)));
});

test("FRAME-05: the tail keeps 65,536 bytes whole and drops the first byte of 65,537", () => {
  for (const chunkSize of [TAIL + 1, 1]) {
    const at = new StderrSink(
      () => {},
      () => 0,
    );
    const atLimit = Buffer.alloc(TAIL, 0x61);
    atLimit[0] = 0x62;
    for (let i = 0; i < TAIL; i += chunkSize) at.write(atLimit.subarray(i, i + chunkSize));
    assert.equal(at.tail(), atLimit.toString(), `at the limit, chunks of ${chunkSize}`);

    const past = new StderrSink(
      () => {},
      () => 0,
    );
    const pastLimit = Buffer.concat([Buffer.from("!"), atLimit]);
    for (let i = 0; i < pastLimit.length; i += chunkSize) past.write(pastLimit.subarray(i, i + chunkSize));
    assert.equal(past.tail(), atLimit.toString(), `one past, chunks of ${chunkSize}`);
  }
});

test("FRAME-05: the tail stays within 64 KiB under any chunking", () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 40 }), (sizes) => {
      const sink = new StderrSink(
        () => {},
        () => 0,
      );
      let all = Buffer.alloc(0);
      for (const [i, n] of sizes.entries()) {
        const chunk = Buffer.alloc(n, 0x61 + (i % 26));
        all = Buffer.concat([all, chunk]);
        sink.write(chunk);
      }
      const tail = Buffer.from(sink.tail());
      assert.ok(tail.length <= TAIL);
      assert.ok(all.subarray(all.length - tail.length).equals(tail), "the tail is the last bytes written");
      if (all.length <= TAIL) assert.equal(tail.length, all.length);
    }),
    { numRuns: 100 },
  );
});

function flood(lines: number, clock: { t: number }): string[] {
  const out: string[] = [];
  const sink = new StderrSink(
    (l) => out.push(l),
    () => clock.t,
  );
  for (let i = 0; i < lines; i++) {
    sink.write(Buffer.from(`line ${i}\n`));
    clock.t += Math.floor(999 / lines); // all within one second
  }
  clock.t = 100_000;
  sink.write(Buffer.from("next second\n"));
  sink.end();
  return out;
}

test("FRAME-05: STDERR_LINES_PER_SECOND lines in one second all pass, with no summary", () => {
  const out = flood(STDERR_LINES_PER_SECOND, { t: 10_000 });
  assert.equal(out.length, STDERR_LINES_PER_SECOND + 1);
  assert.ok(!out.some((l) => l.includes("suppressed")));
});

test("FRAME-05: lines past the per-second limit produce exactly one summary counting them", () => {
  for (const extra of [1, 950]) {
    const out = flood(STDERR_LINES_PER_SECOND + extra, { t: 10_000 });
    const summaries = out.filter((l) => l.includes("suppressed"));
    assert.deepEqual(summaries, [
      `(${extra} more stderr lines suppressed; over ${STDERR_LINES_PER_SECOND} lines per second)`,
    ]);
    assert.deepEqual(
      out.slice(0, STDERR_LINES_PER_SECOND),
      Array.from({ length: STDERR_LINES_PER_SECOND }, (_, i) => `line ${i}`),
    );
    assert.deepEqual(
      out.slice(STDERR_LINES_PER_SECOND),
      [summaries[0], "next second"],
      "the summary comes before the next window's lines",
    );
  }
});

test("FRAME-05: end() reports lines still suppressed", () => {
  const out: string[] = [];
  const sink = new StderrSink(
    (l) => out.push(l),
    () => 5_000,
  );
  for (let i = 0; i < STDERR_LINES_PER_SECOND + 3; i++) sink.write(Buffer.from(`l${i}\n`));
  sink.end();
  assert.equal(out.length, STDERR_LINES_PER_SECOND + 1);
  assert.match(out[out.length - 1]!, /^\(3 more stderr lines suppressed/);
});

test("truncateBytes never splits a multibyte character and keeps a prefix", () => {
  fc.assert(
    fc.property(
      fc.string({ unit: "binary", maxLength: 200 }).filter(wellFormed),
      fc.integer({ min: 4, max: 300 }),
      (s, max) => {
        const r = truncateBytes(s, max);
        assert.ok(Buffer.byteLength(r) <= max, `${Buffer.byteLength(r)} > ${max}`);
        if (Buffer.byteLength(s) <= max) return assert.equal(r, s);
        assert.ok(r.endsWith("…"));
        const head = r.slice(0, -1);
        assert.ok(s.startsWith(head), "a prefix of the input");
        assert.ok(wellFormed(head), "no broken surrogate pair");
        // A U+FFFD at the cut is dropped with the partial character's replacement; only a cosmetic loss.
        const next = s.codePointAt(head.length);
        if (!s.includes("\uFFFD"))
          assert.ok(
            next !== undefined && Buffer.byteLength(head) + Buffer.byteLength(String.fromCodePoint(next)) > max - 3,
            "cut as late as possible",
          );
      },
    ),
    { numRuns: 1_000 },
  );
  assert.equal(truncateBytes("ab😀", 8), "ab😀");
  assert.equal(truncateBytes("abc😀d", 8), "abc😀d");
  assert.deepEqual(
    [4, 5, 6, 7].map((max) => truncateBytes("abc😀d", max)),
    ["a…", "ab…", "abc…", "abc…"],
  );
});

test("issue 13.13: past the quota, any chunking yields the same emitted lines and one exact count of the rest", () => {
  const line = fc
    .oneof(
      fc.constant(""),
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.string({ unit: "binary", minLength: 4_000, maxLength: 5_000 }),
    )
    .map((s) => s.replaceAll("\n", " "))
    .filter(wellFormed);
  fc.assert(
    fc.property(
      fc.array(line, { minLength: STDERR_LINES_PER_SECOND - 5, maxLength: STDERR_LINES_PER_SECOND + 40 }),
      fc.array(fc.nat(), { maxLength: 30 }),
      (lines, points) => {
        const out: string[] = [];
        const sink = new StderrSink(
          (l) => out.push(l),
          () => 7_000,
        ); // one second throughout
        for (const chunk of cut(Buffer.from(lines.map((l) => `${l}\n`).join("")), points)) sink.write(chunk);
        sink.end();
        const shown = lines.slice(0, STDERR_LINES_PER_SECOND).map((l) => truncateBytes(l, MAX));
        const rest = lines.length - shown.length;
        assert.deepEqual(
          out,
          rest > 0
            ? [...shown, `(${rest} more stderr lines suppressed; over ${STDERR_LINES_PER_SECOND} lines per second)`]
            : shown,
        );
      },
    ),
    { numRuns: 100 },
  );
});

test(
  "issue 13.13: 16 MiB of blank lines cost one clock reading per chunk, not one per line, and are " + "counted exactly",
  () => {
    const out: string[] = [];
    let readings = 0;
    const sink = new StderrSink(
      (l) => out.push(l),
      () => (readings++, 9_000),
    );
    const chunk = Buffer.alloc(65_536, 0x0a);
    for (let i = 0; i < 256; i++) sink.write(chunk);
    sink.end();
    assert.equal(readings, 257, "once per write, once at the end");
    assert.deepEqual(out, [
      ...Array.from({ length: STDERR_LINES_PER_SECOND }, () => ""),
      `(${256 * 65_536 - STDERR_LINES_PER_SECOND} more stderr lines suppressed; over ${STDERR_LINES_PER_SECOND} ` +
        `lines per second)`,
    ]);
    assert.equal(sink.tail().length, TAIL);
  },
);
