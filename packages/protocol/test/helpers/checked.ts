/**
 * Assertions over Checked<T> results: accept and return the value, or refuse and show that the
 * problems name what they must (the member path, the offending value, the limit).
 */
import assert from "node:assert/strict";
import type { Checked } from "../../src/validate/kit.js";

/** Asserts an accepted result and returns its value. */
export function accepted<T>(r: Checked<T>): T {
  if (!r.ok) assert.fail(`expected acceptance, got problems:\n  ${r.problems.join("\n  ")}`);
  return r.value;
}

/**
 * Asserts a refusal and that a single problem contains every fragment (so "names the value and
 * the limit" is checked within one message, not across several). Returns the problems.
 */
export function refused<T>(r: Checked<T>, ...fragments: string[]): string[] {
  if (r.ok) assert.fail(`expected a refusal, got ${JSON.stringify(r.value)?.slice(0, 300)}`);
  assert.ok(r.problems.length > 0, "a refusal names at least one problem");
  if (fragments.length > 0) {
    const hit = r.problems.find((p) => fragments.every((f) => p.includes(f)));
    assert.ok(
      hit !== undefined,
      `no problem contains all of ${JSON.stringify(fragments)}:\n  ${r.problems.join("\n  ")}`,
    );
  }
  return r.problems;
}

/** A string of exactly n UTF-8 bytes. */
export function bytes(n: number, ch = "x"): string {
  return ch.repeat(n);
}

/** A deep copy, so fixtures can be edited per test. */
export function clone<T>(v: T): T {
  return structuredClone(v);
}
