/**
 * Every implementation in the registry has its own suite file: a new entry in implementations.ts
 * without one would never run.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { IMPLEMENTATIONS, ROOT } from "./implementations.js";

test("issue 13.12: every implementation in the registry has its conformance-<name>.test.ts", () => {
  const missing = IMPLEMENTATIONS.map((i) => `conformance-${i.name}.test.ts`).filter(
    (f) => !existsSync(join(ROOT, "tests", "conformance", f)),
  );
  assert.deepEqual(missing, []);
});
