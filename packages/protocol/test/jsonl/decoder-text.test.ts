/**
 * Frames as text (JsonlDecoder.pushText, EnvelopeReader.pushText: an in-process channel with no
 * bytes between its ends) are judged exactly as the same frames' UTF-8 bytes through push():
 * the same values and texts, the same refusals with the same messages, the same fatal bound.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { JsonlDecoder } from "../../src/jsonl/decoder.js";
import { EnvelopeReader } from "../../src/rpc/envelope-reader.js";

const te = new TextEncoder();

/** What each decoder says for the same sequence of texts, one through pushText, one through push. */
function both(texts: string[], maxFrameBytes?: number): { text: unknown[]; bytes: unknown[] } {
  const viaText = new JsonlDecoder(maxFrameBytes === undefined ? {} : { maxFrameBytes });
  const viaBytes = new JsonlDecoder(maxFrameBytes === undefined ? {} : { maxFrameBytes });
  const text: unknown[] = [];
  const bytes: unknown[] = [];
  for (const t of texts) {
    text.push(viaText.pushText(t), viaText.failed, viaText.buffered);
    bytes.push(viaBytes.push(te.encode(t)), viaBytes.failed, viaBytes.buffered);
  }
  text.push(viaText.end());
  bytes.push(viaBytes.end());
  return { text, bytes };
}

test("pushText judges ASCII frames, refused lines and the bound as push judges their bytes", () => {
  const cases: [string[], number?][] = [
    [['{"jsonrpc":"2.0","id":1,"result":{}}\n']],
    [['{"a":1}\n{"b":[1,2]}\n']],
    [["\n"]],
    [['{"a":1}\r\n']],
    [["{not json}\n", '{"ok":true}\n']],
    [['{"a":"xxxxxxxxxxxxxxxxxxxxxxxx"}\n', '{"b":1}\n'], 16],
    [['{"a":1}', "}\n"]],
    [['{"a":1}\n{"b"', ":2}\n"]],
    [['{"a":"é"}\n']],
    [['{"a":"\ud800"}\n']],
    [['{"a":1,"a":2}\n']],
  ];
  for (const [texts, max] of cases) {
    const { text, bytes } = both(texts, max);
    assert.deepEqual(text, bytes, JSON.stringify(texts));
  }
});

test("pushText agrees with push on arbitrary lines", () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.json(), fc.string()), { minLength: 1, maxLength: 5 }), (lines) => {
      const { text, bytes } = both([`${lines.join("\n")}\n`], 64);
      assert.deepEqual(text, bytes);
    }),
    { numRuns: 300 },
  );
});

test("EnvelopeReader.pushText refuses what push refuses: duplicate members, a bad envelope", () => {
  for (const frame of [
    '{"jsonrpc":"2.0","id":1,"id":2,"result":{}}\n',
    '{"jsonrpc":"1.0","id":1,"result":{}}\n',
    '{"jsonrpc":"2.0","id":3,"method":"x","params":{}}\n',
  ]) {
    assert.deepEqual(new EnvelopeReader().pushText(frame), new EnvelopeReader().push(te.encode(frame)), frame);
  }
});
