/**
 * The one top-level member scan (issue 14.4), behind the envelope checks and the rpi manifest
 * and frame checks: every duplicated name is found however it is spelled, nested members and
 * string contents never count, and the value text is the literal's own spelling.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { duplicateTopLevelKeys, forEachTopLevelMember } from "../../src/text/json-members.js";

/** A name spelled literally, or with every character as a \u escape. */
const spelled = (name: string, escaped: boolean): string =>
  escaped
    ? `"${name
        .split("")
        .map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
        .join("")}"`
    : JSON.stringify(name);

test("issue 14.4: duplicateTopLevelKeys finds exactly the top-level names given twice or more, in any spelling", () => {
  const name = fc.oneof(fc.constantFrom("id", "a", '"q"', "x:y", "{", "\\"), fc.string({ maxLength: 6 }));
  fc.assert(
    fc.property(fc.array(fc.tuple(name, fc.boolean(), fc.jsonValue({ maxDepth: 2 })), { maxLength: 10 }), (members) => {
      const text = `{${members.map(([k, esc, v]) => `${spelled(k, esc)} : ${JSON.stringify(v)}`).join(",")}}`;
      JSON.parse(text);
      const names = members.map(([k]) => k);
      const expected = [...new Set(names.filter((n, i) => names.indexOf(n) !== i))];
      assert.deepEqual(duplicateTopLevelKeys(text).sort(), expected.sort());
    }),
    { numRuns: 500 },
  );
});

test("issue 14.4: nested members and strings that look like members are not top-level duplicates", () => {
  assert.deepEqual(duplicateTopLevelKeys('{"a":{"b":1,"b":2},"c":[{"a":1}],"d":"\\"a\\":1,\\"a\\":2"}'), []);
  assert.deepEqual(duplicateTopLevelKeys('{"a":1,"b":{"a":2},"a":3,"a":4}'), ["a"]);
  assert.deepEqual(duplicateTopLevelKeys("[1,2]"), []);
});

test("issue 14.4: forEachTopLevelMember passes each name and value text in order and stops on false", () => {
  const seen: [string, string][] = [];
  forEachTopLevelMember('{ "id" : 2e0, "s":"x", "o":{"id":1}, "t":true }', (name, value) => {
    seen.push([name, value]);
    return true;
  });
  assert.deepEqual(seen, [
    ["id", "2e0"],
    ["s", ""],
    ["o", ""],
    ["t", "true"],
  ]);
  const first: string[] = [];
  forEachTopLevelMember('{"a":1,"b":2,"c":3}', (name) => {
    first.push(name);
    return name !== "b";
  });
  assert.deepEqual(first, ["a", "b"]);
});
