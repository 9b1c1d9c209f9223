// Issue 13 review, item 2: how a flood of one warning is coalesced. Short windows; the tests wait
// for the lines and count them, never how long anything took.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CoalescedWarnings, MAX_WARNING_KINDS, times } from "../src/host/coalesced-warnings.js";

const summary =
  (what: string) =>
  (n: number, s: number): string =>
    `${what} ${times(n)} more in the last ${s} s`;

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(check(), "never happened");
}

test("issue 13 review: a burst is one line at once and one summary with the count; a quiet window resets", async () => {
  const said: string[] = [];
  const w = new CoalescedWarnings((m) => said.push(m), 30);
  for (let i = 0; i < 100; i++) w.warn("flood", "refused a", summary("refused a"));
  w.warn("other", "refused b", summary("refused b"));
  assert.deepEqual(said, ["refused a", "refused b"]);
  await until(() => said.length === 3);
  assert.equal(said[2], "refused a 99 times more in the last 0.03 s");
  // The kind repeated, so its next window is summed as well; after a quiet one it is said in full.
  w.warn("flood", "refused a", summary("refused a"));
  await until(() => said.length === 4);
  assert.equal(said[3], "refused a 1 time more in the last 0.03 s");
  await new Promise((r) => setTimeout(r, 100));
  w.warn("flood", "refused a", summary("refused a"));
  assert.equal(said[4], "refused a");
  w.close();
});

test("issue 13 review: kinds past MAX_WARNING_KINDS share a line; close() says what is counted, then stops", () => {
  const said: string[] = [];
  const w = new CoalescedWarnings((m) => said.push(m), 60_000);
  for (let k = 0; k < MAX_WARNING_KINDS + 5; k++) w.warn(`kind ${k}`, `first of kind ${k}`, summary(`kind ${k}`));
  assert.equal(said.length, MAX_WARNING_KINDS + 1, "the first of the other kinds is said; the rest are counted");
  w.warn("kind 0", "first of kind 0", summary("kind 0"));
  w.close();
  assert.deepEqual(said.slice(MAX_WARNING_KINDS + 1), [
    "kind 0 1 time more in the last 60 s",
    `4 more warnings of other kinds in the last 60 s (the first: first of kind ${MAX_WARNING_KINDS})`,
  ]);
  w.warn("kind 0", "after the end", summary("kind 0"));
  assert.equal(said.at(-1), "after the end");
});
