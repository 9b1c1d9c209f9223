import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { discoverEntries, reloadRefusal } from "../../src/host/gate.js";
import { isStartable } from "../../src/host/tool-ledger.js";

// From packages/host/dist/test/host/ to the repository's examples/.
const examples = fileURLToPath(new URL("../../../../../examples", import.meta.url));

async function gated(policy: "full-access" | "controlled"): Promise<Awaited<ReturnType<typeof discoverEntries>>> {
  const scratch = mkdtempSync(join(tmpdir(), "octet-gate-"));
  try {
    return await discoverEntries({
      workspace: scratch,
      octetHome: scratch,
      env: {},
      extensionDirs: [examples],
      enable: ["hello-world", "typed-echo", "no-such-extension"],
      trust: ["hello-world", "typed-echo"],
      policy,
    });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

test("issue 14.3: discovery gates each extension and names an enabled one that was never discovered", async () => {
  const { entries, undiscovered } = await gated("full-access");
  assert.deepEqual(undiscovered, ["no-such-extension"]);
  const byName = new Map(entries.map((e) => [e.discovered.name, e]));
  assert.equal(isStartable(byName.get("hello-world")!), true);
  const longTask = byName.get("long-task")!;
  assert.equal(longTask.enabled, false, "enablement is explicit (MAN-18)");
  assert.equal(isStartable(longTask), false);
  assert.deepEqual(reloadRefusal(longTask, "long-task")?.code, "not_enabled");
  assert.equal(reloadRefusal(undefined, "ghost")?.message, 'no extension named "ghost" was discovered');
  assert.equal(reloadRefusal(byName.get("hello-world"), "hello-world"), null);
});

test("MAN-21: under the controlled policy an API 0.1 extension stays discovered, not enabled, saying why", async () => {
  const { entries } = await gated("controlled");
  const hello = entries.find((e) => e.discovered.name === "hello-world")!;
  assert.equal(hello.discovered.manifest?.api_version, "0.1");
  assert.equal(hello.enabled, false);
  assert.match(hello.reason, /speaks API 0\.1, which starts only under the full-access policy/);
  assert.equal(reloadRefusal(hello, "hello-world")?.code, "not_enabled");
  const typed = entries.find((e) => e.discovered.name === "typed-echo")!;
  assert.notEqual(typed.discovered.manifest?.api_version, "0.1");
  assert.equal(isStartable(typed), true, "a trusted API 0.2+ extension may start under controlled");
});
