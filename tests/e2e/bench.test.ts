// The benchmark harness: never a timing assertion (figures depend on the machine and its load),
// only that a short run completes, prints well-formed figures and writes a results file whose
// target verdicts are consistent with its own numbers; and the target check as a pure function.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./helpers.js";

interface Target {
  scenario: string;
  metric: string;
  placement: string;
  kind: string;
  target: string;
  value: number;
  met: boolean;
  off_by: number;
  why?: string;
}
type CheckTargets = (blocks: unknown[], candidate?: string) => Target[];

const targetsModule = (): Promise<{ checkTargets: CheckTargets }> =>
  import(pathToFileURL(join(ROOT, "benchmarks", "targets.mjs")).href) as Promise<{ checkTargets: CheckTargets }>;

function block(scenario: string, placement: string, metric: string, median: number, ratio: number) {
  return { scenario, placement, summary: [{ candidate: "octet", metric, median, ratio_median: ratio }] };
}

test("checkTargets: a ratio at a maximum is met, past it is missed by the right fraction with a reason", async () => {
  const { checkTargets } = await targetsModule();
  const [atLimit] = checkTargets([block("latency", "split", "p50_us", 100, 1.3)]);
  assert.equal(atLimit!.met, true);
  assert.equal(atLimit!.off_by, 0);
  assert.equal(atLimit!.why, undefined);
  const [past] = checkTargets([block("latency", "shared", "p50_us", 100, 1.95)]);
  assert.equal(past!.met, false);
  assert.ok(Math.abs(past!.off_by - 0.5) < 1e-9, `off_by ${past!.off_by}`);
  assert.match(past!.why ?? "", /CPU/);
  assert.equal(past!.placement, "shared");
});

test("checkTargets: a minimum ratio and the absolute import-time target", async () => {
  const { checkTargets } = await targetsModule();
  const [thr] = checkTargets([block("throughput", "split", "calls_per_s", 50_000, 0.3)]);
  assert.equal(thr!.met, false);
  assert.ok(Math.abs(thr!.off_by - 0.5) < 1e-9);
  assert.equal(thr!.target, ">= 0.6x raw");
  // import time is judged on the median in ms, not on the ratio.
  const [imp] = checkTargets([block("import-time", "split", "import_ms", 29, 99)]);
  assert.equal(imp!.met, true);
  assert.equal(imp!.target, "<= 30 ms");
  const [slow] = checkTargets([block("import-time", "split", "import_ms", 31, 0.5)]);
  assert.equal(slow!.met, false);
  // Figures that are missing (a failed or unsupported run) give no verdict at all.
  assert.deepEqual(checkTargets([block("throughput", "split", "calls_per_s", NaN, NaN)]), []);
});

test(
  "npm run bench -- --quick (one round, two scenarios) completes, " + "prints figures and writes consistent verdicts",
  async () => {
    const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          join(ROOT, "benchmarks", "run.mjs"),
          "--quick",
          "--rounds",
          "1",
          "--scenario",
          "latency,import-time",
          "--placement",
          "split",
          "--candidate",
          "raw,octet",
        ],
        { cwd: ROOT, timeout: 110_000 },
        (err, out, errOut) => (err ? reject(new Error(`${err.message}\n${errOut}`)) : resolve({ stdout: out })),
      );
    });
    // Every candidate row carries a number for its median (not "-").
    const rows = stdout.split("\n").filter((l) => /^(raw|octet)\s+(p(50|99)|import) \(/.test(l));
    assert.equal(rows.length, 6, stdout);
    for (const row of rows) assert.match(row, /\s\d[\d,.]*\s/, row);
    assert.match(stdout, /Targets \(issues 4 and 7\): \d+ of 3 met/);
    const file = /results in (\S+\.json)/.exec(stdout)?.[1];
    assert.ok(file, stdout);
    const path = join(ROOT, file);
    try {
      const results = JSON.parse(readFileSync(path, "utf8")) as {
        mode: string;
        targets: Target[];
        blocks: {
          scenario: string;
          summary: { candidate: string; metric: string; median: number; ratio_median: number }[];
        }[];
      };
      assert.equal(results.mode, "quick");
      assert.deepEqual(results.targets.map((t) => `${t.scenario}.${t.metric}`).sort(), [
        "import-time.import_ms",
        "latency.p50_us",
        "latency.p99_us",
      ]);
      for (const t of results.targets) {
        const s = results.blocks
          .find((b) => b.scenario === t.scenario)!
          .summary.find((x) => x.candidate === "octet" && x.metric === t.metric)!;
        assert.equal(t.value, t.kind === "ratio" ? s.ratio_median : s.median);
        const limit = Number(/[\d.]+/.exec(t.target)![0]);
        assert.equal(t.met, t.value <= limit, `${t.scenario}.${t.metric}: ${t.value} vs ${t.target}`);
        assert.equal(t.why === undefined, t.met);
      }
    } finally {
      rmSync(path, { force: true });
    }
  },
);
