/**
 * The API 0.4 advisory hooks through the real host and the TS SDK (tests/fixtures/advisory-ext.mjs):
 * offered only to declaring 0.4 manifests, cache-warming advice in order with the last valid
 * action winning, failures keeping the previous action, and compaction frames checked whole.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type HostEvent } from "@octet/host";
import type { CacheWarmingPayload } from "@octet/protocol";
import { ROOT } from "./helpers.js";

const FIXTURE = join(ROOT, "tests", "fixtures", "advisory-ext.mjs");

interface Spec {
  name: string;
  mode: string;
  api?: "0.2" | "0.4";
  hooks?: string[];
}

async function withAdvisors(
  specs: Spec[],
  body: (host: ExtensionHost, events: HostEvent[]) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-advice-"));
  for (const s of specs) {
    await mkdir(join(dir, s.name));
    await writeFile(
      join(dir, s.name, "extension.toml"),
      `name = "${s.name}"
version = "0.1.0"
api_version = "${s.api ?? "0.4"}"

[entrypoint]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(FIXTURE)}, "${s.mode}"]

[capabilities]
filesystem = "none"
process = false
network = false

[contributes]
hooks = ${JSON.stringify(s.hooks ?? ["cache_warming_decision", "compaction_strategy"])}
`,
    );
  }
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: specs.map((s) => s.name),
    onEvent: (e) => events.push(e),
  });
  try {
    await body(host, events);
  } finally {
    await host.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}

const payload = (host_action: "warm" | "stop", warm = 1_000): CacheWarmingPayload => ({
  model: "local-model",
  decision: {
    phase: "idle",
    warm_cost_microdollars: warm,
    miss_cost_microdollars: 9_000,
    continuation_probability: 0.6,
    expected_savings_microdollars: -250,
    economics_available: true,
    host_action,
  },
});

test("INIT-43: the advisory hooks are offered only on API 0.4 and only to manifests that declare them", async () => {
  await withAdvisors(
    [
      { name: "a_declares", mode: "warm" },
      { name: "b_silent", mode: "warm", hooks: [] },
    ],
    async (host) => {
      const features = (n: string) => host.status().find((s) => s.name === n)!.features;
      assert.ok(
        features("a_declares").includes("cache_warming_decision") &&
          features("a_declares").includes("compaction_strategy"),
      );
      assert.ok(
        !features("b_silent").includes("cache_warming_decision"),
        "registered in code but not declared: not offered",
      );
      const advice = await host.adviseCacheWarming(payload("stop"));
      assert.deepEqual(advice, { action: "warm", decidedBy: "a_declares" }, "only the declaring extension was asked");
    },
  );
});

test(
  "PY-46, PY-47, PY-49: advice goes to every extension in order and the last valid action wins; no opinion keeps " +
    "the one before",
  async () => {
    await withAdvisors(
      [
        { name: "a_warm", mode: "warm" },
        { name: "b_none", mode: "none" },
      ],
      async (host) => {
        assert.deepEqual(await host.adviseCacheWarming(payload("stop")), { action: "warm", decidedBy: "a_warm" });
      },
    );
    await withAdvisors(
      [
        { name: "a_warm", mode: "warm" },
        { name: "b_stop", mode: "stop" },
      ],
      async (host) => {
        assert.deepEqual(await host.adviseCacheWarming(payload("warm")), { action: "stop", decidedBy: "b_stop" });
      },
    );
    // The spec's example handler: "stop" when warming costs more than 5,000 microdollars.
    await withAdvisors([{ name: "costly", mode: "costly" }], async (host) => {
      assert.deepEqual(await host.adviseCacheWarming(payload("warm", 6_000)), { action: "stop", decidedBy: "costly" });
      assert.deepEqual(await host.adviseCacheWarming(payload("warm", 4_000)), { action: "warm", decidedBy: null });
    });
  },
);

test(
  "PY-49, PY-51: an invalid action fails closed and a handler slower than 200 ms is not waited for; the previous " +
    "action stands",
  async () => {
    await withAdvisors(
      [
        { name: "a_stop", mode: "stop" },
        { name: "b_invalid", mode: "invalid" },
        { name: "c_slow", mode: "slow" },
      ],
      async (host, events) => {
        const started = Date.now();
        const advice = await host.adviseCacheWarming(payload("warm"));
        const took = Date.now() - started;
        assert.deepEqual(advice, { action: "stop", decidedBy: "a_stop" });
        assert.ok(took < 900, `the slow advisor was cut at 200 ms (took ${took} ms)`);
        assert.ok(
          events.some((e) => e.type === "diagnostic" && e.extension === "b_invalid"),
          "the invalid answer is diagnosed",
        );
        assert.ok(
          events.some(
            (e) => e.type === "diagnostic" && e.extension === "c_slow" && /cache_warming_decision/.test(e.message),
          ),
        );
      },
    );
  },
);

test(
  "PY-43, PY-45: compaction frames come back as complete PNGs; one " + "bad frame fails the hook and no frame is used",
  async () => {
    await withAdvisors([{ name: "renderer", mode: "frames" }], async (host) => {
      const out = await host.compactionFrames({ model_id: "vision-model", text: "a long conversation" });
      assert.equal(out?.extension, "renderer");
      assert.equal(out?.frames.length, 2);
      for (const f of out!.frames)
        assert.deepEqual([...f.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    });
    await withAdvisors([{ name: "broken", mode: "bad-frames" }], async (host, events) => {
      assert.equal(await host.compactionFrames({ model_id: "vision-model", text: "x" }), null);
      assert.ok(
        events.some(
          (e) => e.type === "diagnostic" && /invalid compaction_strategy result, no frames used/.test(e.message),
        ),
      );
    });
  },
);

test("PY-52: an API 0.2 extension cannot declare or register the advisory hooks", async () => {
  const { parseManifest } = await import("@octet/host");
  const toml =
    `name = "old"\nversion = "0.1.0"\napi_version = "0.2"\n[entrypoint]\ncommand = ` +
    `"node"\n[capabilities]\nfilesystem = "none"\nprocess = false\nnetwork = false\n[contributes]\nhooks = ` +
    `["cache_warming_decision"]\n`;
  const parsed = parseManifest(toml, "extension.toml");
  assert.equal(parsed.ok, false, "the manifest is refused");
  assert.match(JSON.stringify(parsed), /cache_warming_decision/);
  // In a child process: an Extension takes over stdout, which here is the test runner's.
  const script = `import { Extension } from "@octet/extension";
const ext = new Extension({ apiVersion: "0.2" });
for (const f of [() => ext.hook("cache_warming_decision", () => ({})), () => ext.cacheWarmingDecision(() => "warm")]) {
  try { f(); console.error("registered"); } catch (e) { console.error("refused: " + e.message); }
}`;
  const { spawnSync } = await import("node:child_process");
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
  const err = run.stderr;
  assert.equal(err.match(/refused: hook "cache_warming_decision" needs API 0\.4/g)?.length, 2, err);
});
