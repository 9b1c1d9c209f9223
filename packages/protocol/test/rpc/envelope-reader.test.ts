/**
 * EnvelopeReader: bytes in, three kinds of event out, in input order. Framing problems are
 * frame_error (fatal only for an over-limit line or input ending inside a frame), well-framed JSON
 * that is not a JSON-RPC envelope is invalid_envelope (with the id salvaged when usable for a
 * reply), and everything else is an envelope. The decoder and validator have their own suites;
 * this one checks the composition.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { EnvelopeReader, type ReadEvent } from "../../src/rpc/envelope-reader.js";
import { MAX_FRAME_BYTES } from "../../src/bounds.js";
import fc from "fast-check";
import { duplicateTopLevelMember, envelopeTextProblem } from "../../src/rpc/envelope-text.js";
import { forEachTopLevelMember } from "../../src/text/json-members.js";

const te = new TextEncoder();
const line = (v: unknown): string => JSON.stringify(v) + "\n";

function read(...chunks: (string | Uint8Array)[]): { events: ReadEvent[]; reader: EnvelopeReader } {
  const reader = new EnvelopeReader();
  const events = chunks.flatMap((c) => reader.push(typeof c === "string" ? te.encode(c) : c));
  return { events, reader };
}

function kinds(events: ReadEvent[]): string[] {
  return events.map((e) =>
    e.kind === "envelope"
      ? `envelope:${e.envelope.kind}`
      : e.kind === "frame_error"
        ? `frame_error:${e.error.code}`
        : "invalid_envelope",
  );
}

test("requests, notifications and responses come out as envelopes, in order", () => {
  const msgs = [
    { jsonrpc: "2.0", id: 1, method: "tool/call", params: { name: "x" } },
    { jsonrpc: "2.0", method: "$/progress", params: { request_id: 1 } },
    { jsonrpc: "2.0", id: 1, result: { ok: true } },
    { jsonrpc: "2.0", id: "c-1", error: { code: -32601, message: "nope" } },
    { jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } },
  ];
  const { events } = read(msgs.map(line).join(""));
  assert.deepEqual(kinds(events), [
    "envelope:request",
    "envelope:notification",
    "envelope:response",
    "envelope:response",
    "envelope:response",
  ]);
  assert.deepEqual(
    events.map((e) => (e.kind === "envelope" ? e.envelope.message : null)),
    msgs,
  );
});

test("a frame split at every byte, including inside a multibyte character, is reassembled", () => {
  const text = line({ jsonrpc: "2.0", method: "note", params: { s: "héllo 😀 wörld" } });
  const bytes = te.encode(text);
  const { events } = read(...Array.from(bytes, (b) => Uint8Array.of(b)));
  assert.equal(events.length, 1);
  const e = events[0]!;
  assert.ok(e.kind === "envelope" && e.envelope.kind === "notification");
  assert.deepEqual(e.envelope.message.params, { s: "héllo 😀 wörld" });
});

test("framing problems are frame errors and the stream goes on (non-fatal)", () => {
  const good = line({ jsonrpc: "2.0", method: "n" });
  const { events, reader } = read(
    "\n",
    `{"jsonrpc":"2.0","method":"n"}\r\n`,
    Uint8Array.of(0x22, 0xff, 0x22, 0x0a),
    "{not json}\n",
    good,
  );
  assert.deepEqual(kinds(events), [
    "frame_error:blank_line",
    "frame_error:carriage_return",
    "frame_error:invalid_utf8",
    "frame_error:invalid_json",
    "envelope:notification",
  ]);
  for (const e of events.slice(0, 4)) assert.ok(e.kind === "frame_error" && !e.error.fatal);
  assert.equal(reader.failed, false);
  const quoted = events[3]!;
  assert.ok(quoted.kind === "frame_error" && quoted.error.quoted === "{not json}");
});

test("FRAME-01: well-framed JSON that is not a JSON-RPC 2.0 envelope is an invalid envelope", () => {
  const cases: [unknown, RegExp, string | number | null][] = [
    [[{ jsonrpc: "2.0", method: "n" }], /batch/, null],
    [42, /must be a JSON object, got number/, null],
    [null, /got null/, null],
    [{ jsonrpc: "1.0", id: 3, method: "m" }, /"jsonrpc" must be "2.0"/, 3],
    [{ id: 4, method: "m" }, /"jsonrpc" must be "2.0"/, 4],
    [{ jsonrpc: "2.0", id: 5, method: "m", extra: 1 }, /unknown envelope member "extra"/, 5],
    [{ jsonrpc: "2.0", id: 6, result: 1, error: { code: 1, message: "x" } }, /exactly one of result or error/, 6],
    [{ jsonrpc: "2.0", id: 7 }, /exactly one of result or error/, 7],
    [{ jsonrpc: "2.0", result: 1 }, /must carry an id/, null],
    [{ jsonrpc: "2.0", id: -1, method: "m" }, /not an unsigned integer/, null],
    [{ jsonrpc: "2.0", id: "s", method: "m", params: 3 }, /"params" must be an object or an array/, "s"],
    [{ jsonrpc: "2.0", id: 8, error: { code: "x", message: "m" } }, /"error.code" must be an integer/, 8],
  ];
  const { events, reader } = read(cases.map(([v]) => line(v)).join(""));
  assert.equal(events.length, cases.length);
  for (const [i, [value, reason, id]] of cases.entries()) {
    const e = events[i]!;
    assert.ok(e.kind === "invalid_envelope", `${JSON.stringify(value)} should be an invalid envelope, got ${e.kind}`);
    assert.match(e.reason, reason);
    assert.equal(e.id, id, `salvaged id of ${JSON.stringify(value)}`);
  }
  assert.equal(reader.failed, false, "an invalid envelope does not stop the stream");
});

test("FRAME-09: a frame of exactly the bound is read; one byte more is a fatal frame_too_large", () => {
  const max = 64;
  const exact = `{"jsonrpc":"2.0","method":"${"m".repeat(max - 29)}"}`;
  assert.equal(exact.length, max);
  const atLimit = new EnvelopeReader({ maxFrameBytes: max });
  assert.deepEqual(kinds(atLimit.push(te.encode(exact + "\n"))), ["envelope:notification"]);

  const past = new EnvelopeReader({ maxFrameBytes: max });
  const over = `{"jsonrpc":"2.0","method":"${"m".repeat(max - 28)}"}`;
  // The refusal comes at the byte past the bound, before any LF.
  const events = past.push(te.encode(over.slice(0, max + 1)));
  assert.deepEqual(kinds(events), ["frame_error:frame_too_large"]);
  const e = events[0]!;
  assert.ok(e.kind === "frame_error" && e.error.fatal);
  assert.match(e.error.message, /64-byte limit/);
  assert.equal(past.failed, true);
  assert.deepEqual(past.push(te.encode("\n" + line({ jsonrpc: "2.0", method: "n" }))), [], "later input is ignored");
  assert.deepEqual(past.end(), []);
});

test("FRAME-09: the default bound is MAX_FRAME_BYTES (1 MiB)", () => {
  const head = `{"jsonrpc":"2.0","method":"n","params":{"s":"`;
  const tail = `"}}`;
  const exact = head + "x".repeat(MAX_FRAME_BYTES - head.length - tail.length) + tail;
  assert.deepEqual(kinds(read(exact + "\n").events), ["envelope:notification"]);
  const over = head + "x".repeat(MAX_FRAME_BYTES - head.length - tail.length + 1) + tail;
  const { events, reader } = read(over + "\n");
  assert.deepEqual(kinds(events), ["frame_error:frame_too_large"]);
  assert.ok(reader.failed);
});

test("input that ends inside a frame is a fatal truncated_frame at end()", () => {
  const { events, reader } = read(line({ jsonrpc: "2.0", method: "a" }), `{"jsonrpc":"2.0","met`);
  assert.deepEqual(kinds(events), ["envelope:notification"]);
  const end = reader.end();
  assert.deepEqual(kinds(end), ["frame_error:truncated_frame"]);
  assert.ok(end[0]!.kind === "frame_error" && end[0]!.error.fatal && end[0]!.error.quoted === `{"jsonrpc":"2.0","met`);
  assert.ok(reader.failed);
  assert.deepEqual(new EnvelopeReader().end(), [], "a clean end reports nothing");
});

test("a __proto__ member is refused as an unknown member, never merged into a prototype", () => {
  const { events } = read(`{"jsonrpc":"2.0","id":1,"method":"m","__proto__":{"polluted":true}}\n`);
  const e = events[0]!;
  assert.ok(e.kind === "invalid_envelope");
  assert.match(e.reason, /unknown envelope member "__proto__"/);
  assert.equal(({} as Record<string, unknown>)["polluted"], undefined);
});

test("FRAME-01: an envelope member that appears twice is refused without trusting either id (reliability F12)", () => {
  const reader = new EnvelopeReader();
  const enc = new TextEncoder();
  const [dup] = reader.push(enc.encode('{"jsonrpc":"2.0","id":1,"result":{"a":1},"id":2}\n'));
  assert.deepEqual(dup, { kind: "invalid_envelope", reason: 'member "id" appears more than once', id: null });
  // Nested and escaped occurrences of a member name are not duplicates.
  const legal = [
    '{"jsonrpc":"2.0","id":3,"result":{"id":4,"items":[{"id":5}],"text":"\\"id\\": 6"}}',
    '{"jsonrpc":"2.0","method":"m","params":{"method":"x","params":{"id":1}}}',
    '{ "jsonrpc" : "2.0" , "id" : 7 , "result" : { "result" : "\\"result\\"" } }',
  ];
  for (const line of legal) {
    const [event] = reader.push(enc.encode(line + "\n"));
    assert.equal(event?.kind, "envelope", line);
  }
  // Whitespace before the colon and unusual spacing do not hide a duplicate.
  const [spaced] = reader.push(enc.encode('{"jsonrpc":"2.0", "method" :"a", "method"\t: "b"}\n'));
  assert.equal(spaced?.kind === "invalid_envelope" && spaced.reason, 'member "method" appears more than once');
});

test(
  "FRAME-01: duplicateTopLevelMember finds every duplicated envelope member in generated objects, and " +
    "never invents one",
  () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.constantFrom("jsonrpc", "id", "method", "params", "result", "error", "x"), fc.jsonValue()),
          {
            maxLength: 8,
          },
        ),
        (members) => {
          const text = `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
          const names = members.map(([k]) => k);
          const duplicated = new Set<string>(names.filter((n, i) => names.indexOf(n) !== i));
          const found = duplicateTopLevelMember(text);
          // Duplicates of envelope members are always found; "x" (refused as unknown anyway) may be.
          const memberDuplicated = [...duplicated].some((n) => n !== "x");
          if (memberDuplicated) return found !== null && duplicated.has(found);
          return found === null || duplicated.has(found);
        },
      ),
    );
  },
);

test("issue 13.13: a member name spelled with \\u escapes is the same member, so a second one is a duplicate", () => {
  const reader = new EnvelopeReader();
  const enc = new TextEncoder();
  const frames = [
    ['{"jsonrpc":"2.0","id":999999,"result":{"a":1},"\\u0069d":2}', "id"],
    ['{"jsonrpc":"2.0","id":2,"result":"first","\\u0072esult":"second"}', "result"],
    ['{"jsonrpc":"2.0","\\u006d\\u0065thod":"a","method":"b"}', "method"],
    ['{"\\u006asonrpc":"2.0","jsonrpc":"2.0","method":"m"}', "jsonrpc"],
  ] as const;
  for (const [text, name] of frames) {
    const [event] = reader.push(enc.encode(text + "\n"));
    assert.deepEqual(
      event,
      { kind: "invalid_envelope", reason: `member "${name}" appears more than once`, id: null },
      text,
    );
  }
  // One escaped spelling alone is that member, and \u escapes elsewhere change nothing.
  const [alone] = reader.push(enc.encode('{"jsonrpc":"2.0","\\u0069d":2,"result":"\\u0069d"}\n'));
  assert.ok(alone?.kind === "envelope" && alone.envelope.kind === "response" && alone.envelope.message.id === 2);
});

test("issue 13.13: an id number whose text is not an integer literal is refused, never aliased to the integer", () => {
  const reader = new EnvelopeReader();
  const enc = new TextEncoder();
  const refused = ["2.00000000000000001", "2.0", "2e0", "0.2e1", "-0", "20E-1"];
  for (const id of refused) {
    for (const text of [
      `{"jsonrpc":"2.0","id":${id},"result":{}}`,
      `{"jsonrpc":"2.0","method":"m","id" : ${id}}`,
      `{"jsonrpc":"2.0","\\u0069d":${id},"error":{"code":1,"message":"x"}}`,
    ]) {
      const [event] = reader.push(enc.encode(text + "\n"));
      assert.ok(event?.kind === "invalid_envelope", text);
      assert.equal(event.id, null);
      assert.equal(
        event.reason,
        `id ${id} is not written as an integer (an id number is digits only: no sign, fraction or exponent)`,
      );
    }
  }
  // Integers as written, nested look-alikes, string ids and the null id of an error stay accepted.
  const accepted = [
    '{"jsonrpc":"2.0","id":0,"result":{"id":2.5}}',
    '{"jsonrpc":"2.0","result":{"x":"\\"id\\":1.5"},"id":9007199254740991}',
    '{"jsonrpc":"2.0","id":"2.0","result":1}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}',
    '{"jsonrpc":"2.0","method":"m","params":{"id":1e3},"id":\t12}',
  ];
  for (const text of accepted) {
    const [event] = reader.push(enc.encode(text + "\n"));
    assert.equal(event?.kind, "envelope", text);
  }
});

test("FRAME-01: the one-pass search for quoted member names judges every frame as the member scan does", () => {
  // envelopeTextProblem's fast path finds quoted envelope names anywhere in the text; whenever it
  // answers, the answer must be the full top-level scan's. Names recur nested, in strings, escaped.
  const name = fc.constantFrom("jsonrpc", "id", "method", "params", "result", "error", "x");
  const nested = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.dictionary(name, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    name,
    name.map((n) => `"${n}"`),
  );
  const idText = fc.constantFrom("7", "0", "2.0", "2e0", "-1", '"s"', "null");
  // Top-level names are envelope names only: a repeated unknown member need not be found (the
  // envelope is refused for the unknown member anyway).
  const envelopeName = fc.constantFrom("jsonrpc", "id", "method", "params", "result", "error");
  const members = fc.array(
    fc.oneof(
      fc.tuple(
        envelopeName,
        nested.map((v) => JSON.stringify(v)),
      ),
      fc.tuple(fc.constant("id"), idText),
    ),
    { maxLength: 6 },
  );
  const reference = (text: string, numericId: boolean): string | null => {
    const seen = new Set<string>();
    let duplicate: string | null = null;
    let id: string | null = null;
    forEachTopLevelMember(text, (n, value) => {
      if (seen.has(n)) {
        duplicate = n;
        return false;
      }
      seen.add(n);
      if (n === "id") id = value;
      return true;
    });
    if (duplicate !== null) return `member ${JSON.stringify(duplicate)} appears more than once`;
    const idValue = id as string | null;
    if (numericId && (idValue === null || !/^(?:0|[1-9][0-9]*)$/.test(idValue))) return "id spelling";
    return null;
  };
  fc.assert(
    fc.property(members, (list) => {
      const text = `{${list.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(",")}}`;
      const parsed = JSON.parse(text) as Record<string, unknown>;
      const numericId = typeof parsed["id"] === "number";
      const got = envelopeTextProblem(text, numericId, parsed);
      const want = reference(text, numericId);
      assert.equal(got === null ? null : got.startsWith("id ") ? "id spelling" : got, want, text);
    }),
    { numRuns: 2000 },
  );
});
