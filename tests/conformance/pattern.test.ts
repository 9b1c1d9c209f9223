/**
 * The pattern language (README.md, "Patterns"): each placeholder and operator on a value it
 * matches and one it does not, the mismatch path, captures, and template expansion.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkPattern, expand, match, type Scope } from "./pattern.js";

const scope: Scope = {
  api: "0.2",
  ids: new Map([
    ["", 7],
    ["call", 3],
  ]),
  vars: new Map<string, unknown>([["seq", 4]]),
  values: new Map([["context", { workspace: "/w" }]]),
};

const ok = (pattern: unknown, actual: unknown): void => {
  const r = match(pattern, actual, scope);
  assert.ok(
    r.ok,
    `${JSON.stringify(pattern)} should ` +
      `match ${JSON.stringify(actual)}: ${r.ok ? "" : `${r.mismatch.path}: ${r.mismatch.reason}`}`,
  );
};
const no = (pattern: unknown, actual: unknown): void => {
  assert.equal(
    match(pattern, actual, scope).ok,
    false,
    `${JSON.stringify(pattern)} should not match ${JSON.stringify(actual)}`,
  );
};

test("objects match partially, arrays element by element, literals by equality", () => {
  ok({ a: 1 }, { a: 1, b: 2 });
  no({ a: 1 }, { a: 2 });
  no({ a: 1 }, { b: 1 });
  ok([1, { x: "y" }], [1, { x: "y", z: 0 }]);
  no([1], [1, 2]);
  ok(null, null);
  no("0.2", 0.2);
});

test("placeholders: types, presence, absence, $api, $id, $var, and $$ for a literal $", () => {
  for (const [p, yes, nope] of [
    ["$string", "s", 1],
    ["$number", 1.5, "1"],
    ["$integer", 2, 2.5],
    ["$boolean", false, 0],
    ["$null", null, 0],
    ["$object", {}, []],
    ["$array", [], {}],
  ] as const) {
    ok(p, yes);
    no(p, nope);
  }
  ok({ a: "$any" }, { a: null });
  no({ a: "$any" }, {});
  ok({ a: "$absent" }, { b: 1 });
  no({ a: "$absent" }, { a: null });
  ok("$api", "0.2");
  ok({ id: "$id" }, { id: 7 });
  ok({ id: "$id:call" }, { id: 3 });
  no({ id: "$id:call" }, { id: "3" });
  ok("$var:seq", 4);
  ok("$$any", "$any");
  ok("$/progress", "$/progress");
  assert.throws(() => match("$id:nothing", 1, scope), /no request labelled "nothing" was sent/);
});

test("operators on objects and arrays: $closed, $optional, $unordered, $includes, $excludes, $each, $unique", () => {
  ok({ $closed: { a: 1, b: { $optional: "$string" } } }, { a: 1 });
  ok({ $closed: { a: 1, b: { $optional: "$string" } } }, { a: 1, b: "x" });
  no({ $closed: { a: 1, b: { $optional: "$string" } } }, { a: 1, b: 2 });
  no({ $closed: { a: 1 } }, { a: 1, c: 0 });
  ok({ $unordered: ["b", "a"] }, ["a", "b"]);
  no({ $unordered: ["a", "a"] }, ["a", "b"]);
  ok({ $includes: [{ n: 2 }, { n: 1 }] }, [{ n: 1 }, { n: 3 }, { n: 2 }]);
  no({ $includes: ["a", "a"] }, ["a"]);
  ok({ $excludes: ["x"] }, ["a", "b"]);
  no({ $excludes: ["x"] }, ["a", "x"]);
  ok({ $each: "$integer" }, []);
  no({ $each: "$integer" }, [1, "2"]);
  ok({ $unique: true }, [
    { a: 1, b: 2 },
    { b: 2, a: 2 },
  ]);
  no({ $unique: true }, [
    { a: 1, b: 2 },
    { b: 2, a: 1 },
  ]);
});

test("operators on strings and numbers: $length, $bytes, $json, $regex, $range, $gt", () => {
  ok({ $length: 2 }, "😀é");
  ok({ $length: 3 }, [0, 0, 0]);
  ok({ $bytes: 6 }, "😀é");
  ok({ $json: { a: [1] } }, '{ "a" : [1] }');
  no({ $json: { a: [1] } }, "{oops");
  ok({ $regex: "^boom" }, "boom!");
  no({ $regex: "^boom" }, "a boom");
  ok({ $range: [1, null] }, 1e9);
  no({ $range: [1, 2] }, 3);
  ok({ $gt: "$var:seq" }, 5);
  no({ $gt: "$var:seq" }, 4);
});

test("combinators and captures: $not, $all, $anyOf, $capture binds only on a whole match", () => {
  ok({ $not: -32601 }, -32603);
  no({ $not: -32601 }, -32601);
  ok({ $all: ["$integer", { $range: [0, 9] }] }, 3);
  ok({ a: { $anyOf: ["$absent", []] } }, {});
  ok({ a: { $anyOf: ["$absent", []] } }, { a: [] });
  no({ a: { $anyOf: ["$absent", []] } }, { a: [1] });
  const r = match({ s: { $capture: ["first", "$integer"] }, t: { $gt: "$var:first" } }, { s: 1, t: 2 }, scope);
  assert.ok(r.ok && r.captures.get("first") === 1);
  assert.equal(
    match({ s: { $capture: ["first", "$integer"] }, t: { $gt: "$var:first" } }, { s: 1, t: 1 }, scope).ok,
    false,
  );
});

test("a mismatch names its path and what came instead", () => {
  const r = match(
    { result: { content: [{ text: { $regex: "boom" } }] } },
    { result: { content: [{ text: "fine" }] } },
    scope,
  );
  assert.ok(!r.ok);
  assert.equal(r.mismatch.path, "$.result.content[0].text");
  assert.equal(r.mismatch.reason, 'expected a string matching /boom/, got "fine"');
});

test("templates: references, named values, $repeat, and $absent leaves a member out", () => {
  assert.deepEqual(
    expand(
      {
        id: "$id:call",
        api: "$api",
        ctx: "$context",
        gone: "$absent",
        s: { $repeat: ["ab", 3] },
        lit: "$$x",
        m: "$/cancelRequest",
      },
      scope,
    ),
    {
      id: 3,
      api: "0.2",
      ctx: { workspace: "/w" },
      s: "ababab",
      lit: "$x",
      m: "$/cancelRequest",
    },
  );
});

test("checkPattern reports unknown placeholders and malformed operators", () => {
  const problems: string[] = [];
  checkPattern(
    { a: "$strng", b: { $range: [1] }, c: { $capture: "x" }, d: { $each: { $oops: 1 } }, e: "$/progress" },
    "p",
    problems,
  );
  assert.deepEqual(problems, [
    "p.a: unknown placeholder $strng",
    "p.b: $range takes [min, max] (numbers or null)",
    "p.c: $capture takes [name, pattern]",
    "p.d.$each: $oops is not an operator (operators are single-key objects: $closed $optional $unordered $includes " +
      "$excludes $each $length $bytes $unique $json $regex $range $gt $capture $not $all $anyOf)",
  ]);
});
