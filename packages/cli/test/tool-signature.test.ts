import { test } from "node:test";
import assert from "node:assert/strict";
import { typeText } from "../src/tool-signature.js";

test(
  "issue 13.6 (review): a type list with repeats, nested deep, renders each type once and stays small (it " +
    "once doubled per level)",
  () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 40; i++) schema = { type: ["array", "array"], items: schema };
    const text = typeText(schema);
    assert.ok(text.length < 200, `rendered ${text.length} characters`);
    assert.match(text, /^\S+\[\]/);
    let unions: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 40; i++)
      unions = {
        anyOf: [
          { type: "array", items: unions },
          { type: "array", items: unions },
        ],
      };
    assert.ok(typeText(unions).length < 200);
    assert.equal(typeText({ type: ["string", "null"] }), "string | null");
  },
);
