// checkChoice (completion-check.ts): the check the shell runs when a completion choice is shown
// and again when it is accepted (ACMP-16), with the native editor's grapheme rule (ACMP-18).
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkChoice, graphemeBoundary } from "../src/completion-check.js";

const bytes = (s: string): number => Buffer.byteLength(s);

test("ACMP-16: the range, UTF-8 and budget checks run again on the choice, before it is shown or applied", () => {
  // The reference's vector passes: start 0, end 3, the cursor after "文/" (string index 2).
  assert.deepEqual(
    checkChoice({ text: 'é"', cursor: 2 }, "é", { value: '文/"', replace_after_bytes: 1, cursor_offset_bytes: 4 }),
    { ok: true, text: '文/"', index: 2 },
  );
  const refused = (snap: { text: string; cursor: number }, prefix: string, item: Parameters<typeof checkChoice>[2]) => {
    const r = checkChoice(snap, prefix, item);
    assert.equal(r.ok, false, JSON.stringify({ snap, prefix, item }));
    return r.ok ? "" : r.problem;
  };
  // Range: past the end of the text; not a UTF-8 boundary; a cursor offset inside a character.
  assert.match(refused({ text: "ab", cursor: 2 }, "b", { value: "x", replace_after_bytes: 1 }), /past the 2-byte/);
  assert.match(
    refused({ text: "éa", cursor: 2 }, "é", { value: "é", replace_after_bytes: 0, cursor_offset_bytes: 1 }),
    /cursor_offset_bytes 1/,
  );
  assert.match(refused({ text: "aé", cursor: 2 }, "", { value: "x" }), /cursor 2 is not a UTF-8 boundary/);
  // The prefix must still be the suffix before the cursor of this very snapshot.
  assert.match(refused({ text: "abc", cursor: 3 }, "x", { value: "y" }), /exact suffix/);
  // Budget: a result past 262,144 bytes.
  const full = "a".repeat(262_144);
  assert.match(refused({ text: full, cursor: bytes(full) }, "a", { value: "aa" }), /over the 262144-byte limit/);
  assert.equal(checkChoice({ text: full, cursor: bytes(full) }, "a", { value: "b" }).ok, true);
});

test("ACMP-18: a start, end or cursor that splits a grapheme is refused, never moved to a boundary", () => {
  // "e\u0301" is one grapheme of two code points: a prefix "e" before the combining accent would
  // replace half of it, so would a range ending between them.
  const accent = "cafe\u0301";
  assert.equal(graphemeBoundary(accent, 4), false);
  const split = checkChoice({ text: accent, cursor: 4 }, "cafe", { value: "coffee" });
  assert.deepEqual(split, { ok: false, problem: "end 4 splits a grapheme cluster" });
  const after = checkChoice({ text: accent, cursor: bytes(accent) }, accent, { value: "café!" });
  assert.deepEqual(after, { ok: true, text: "café!", index: 5 });
  // The same split at the end of a long line (the grapheme check looks at the neighbourhood).
  const long = `${"a".repeat(200_000)}${accent}`;
  const longSplit = checkChoice({ text: long, cursor: bytes(long) - 2 }, "e", { value: "é" });
  assert.deepEqual(longSplit, { ok: false, problem: `end ${bytes(long) - 2} splits a grapheme cluster` });
  // A family emoji (ZWJ sequence): a range ending after its first person splits it.
  const family = "hi 👨\u200d👩\u200d👧";
  const firstPerson = bytes("hi 👨");
  const zwj = checkChoice({ text: family, cursor: bytes("hi ") }, "", { value: "x", replace_after_bytes: 4 });
  assert.equal(zwj.ok, false);
  assert.match(zwj.ok ? "" : zwj.problem, new RegExp(`^end ${firstPerson} splits a grapheme cluster`));
  const whole = bytes("👨\u200d👩\u200d👧");
  assert.deepEqual(
    checkChoice({ text: family, cursor: bytes("hi ") }, "", { value: "x", replace_after_bytes: whole }),
    {
      ok: true,
      text: "hi x",
      index: 4,
    },
  );
  // A start inside a grapheme: the prefix is the accent alone.
  const start = checkChoice({ text: accent, cursor: bytes(accent) }, "\u0301", { value: "\u0300" });
  assert.deepEqual(start, { ok: false, problem: "start 4 splits a grapheme cluster" });
  // The new cursor inside the inserted value's grapheme (between e and its accent) is refused.
  const cursor = checkChoice({ text: "x", cursor: 1 }, "x", { value: "e\u0301", cursor_offset_bytes: 1 });
  assert.deepEqual(cursor, { ok: false, problem: "the new cursor 1 splits a grapheme cluster" });
  // And a line break the one-line editor cannot hold is refused rather than dropped.
  const lf = checkChoice({ text: "a", cursor: 1 }, "a", { value: "a\nb" });
  assert.deepEqual(lf, { ok: false, problem: "the one-line editor cannot hold a line break" });
});
