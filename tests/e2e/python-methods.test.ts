/**
 * issue 14.1: the Python SDK's method table (sdk/python/octet_extension/_methods.py) is generated
 * from packages/protocol/src/methods/ and has not drifted. Kept out of python-sdk.test.ts, whose
 * virtual-environment setup already uses most of a file's time budget.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ADVISORY_HOOKS, API_VERSIONS, HOOK_NAMES, METHODS } from "@octet/protocol";
import { ROOT } from "./helpers.js";

const SDK = join(ROOT, "sdk", "python");

test("issue 14.1: the Python method table is generated from packages/protocol/src/methods and has not drifted", () => {
  const generator = join(ROOT, "scripts", "gen-python-methods.mjs");
  const check = spawnSync(process.execPath, [generator, "--check"], { encoding: "utf8" });
  assert.equal(check.status, 0, check.stderr);
  const script = [
    "import json, octet_extension._methods as m",
    "print(json.dumps({'versions': m.API_VERSIONS, 'hooks': m.HOOK_NAMES, 'advisory': m.ADVISORY_HOOKS,",
    "  'methods': [[s.method, s.direction, s.kind, s.feature, s.api_versions] for s in m.METHODS.values()]}))",
  ].join("\n");
  const r = spawnSync("python3", ["-c", script], { encoding: "utf8", env: { ...process.env, PYTHONPATH: SDK } });
  assert.equal(r.status, 0, r.stderr);
  const py = JSON.parse(r.stdout) as { versions: string[]; hooks: string[]; advisory: string[]; methods: unknown[][] };
  assert.deepEqual(py.versions, [...API_VERSIONS]);
  assert.deepEqual(py.hooks, [...HOOK_NAMES]);
  assert.deepEqual(py.advisory, [...ADVISORY_HOOKS]);
  const ts = [...METHODS.values()].map((s) => [s.method, s.direction, s.kind, s.feature ?? null, [...s.apiVersions]]);
  assert.deepEqual(py.methods, ts);
});
