#!/usr/bin/env node
// npm run bench [-- --quick] [--rounds N] [--scenario a,b] [--candidate a,b] [--placement split,shared]
//
// Runs every candidate once per round, several rounds, interleaved and rotated (A B C, B C A, ...),
// each run in a fresh process pinned with taskset; prints medians with min-max and each candidate's
// ratio to the raw floor paired per round, and writes the numbers to benchmarks/results/<date>.json.
// Figures are reported, never asserted.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem, release } from "node:os";
import { fileURLToPath } from "node:url";
import { median } from "./lib/stats.mjs";
import { checkTargets } from "./targets.mjs";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const WORKER = fileURLToPath(new URL("./lib/worker.mjs", import.meta.url));
const RUN_TIMEOUT_MS = 180_000;

const CANDIDATES = ["raw", "octet", "mcp", "raw-py", "py-sdk", "quickjs"];
/** Whose figures a candidate's ratios are paired with: the Python SDK against the Python floor. */
const BASELINES = { "py-sdk": "raw-py" };
/**
 * Placements a candidate runs in (default: all). The Python pair runs in the split placement only,
 * which keeps the full run within its 5-minute budget; the shared placement's point (each stack's
 * CPU per message) is made by the Node candidates.
 */
const CANDIDATE_PLACEMENTS = { "raw-py": ["split"], "py-sdk": ["split"] };
const SCENARIOS = [
  "latency",
  "throughput",
  "cold-start",
  "large-result",
  "peak-rss",
  "import-time",
  "cancel-storm",
  "scale",
];
/** The scenarios one worker measures on one connection (lib/worker.mjs), in the order they run. */
const STEADY_ORDER = ["latency", "throughput", "peak-rss", "large-result", "cancel-storm"];
const PLACEMENTS = {
  split: { hostCpu: 0, childCpu: 1, label: "split: host on CPU 0, extension on CPU 1" },
  shared: { hostCpu: 0, childCpu: 0, label: "shared: host and extension both on CPU 0" },
};

function parseArgs(argv) {
  const opts = {
    quick: false,
    rounds: null,
    scenarios: SCENARIOS,
    candidates: CANDIDATES,
    placements: Object.keys(PLACEMENTS),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const list = () =>
      String(argv[++i] ?? "")
        .split(",")
        .filter(Boolean);
    if (a === "--quick") opts.quick = true;
    else if (a === "--rounds") opts.rounds = Number(argv[++i]);
    else if (a === "--scenario") opts.scenarios = list();
    else if (a === "--candidate") opts.candidates = list();
    else if (a === "--placement") opts.placements = list();
    else if (a === "--help" || a === "-h") {
      console.log(
        `usage: node benchmarks/run.mjs [--quick] [--rounds N] [--scenario ${SCENARIOS.join(",")}] ` +
          `[--candidate ${CANDIDATES.join(",")}] [--placement split,shared]`,
      );
      process.exit(0);
    } else throw new Error(`unknown argument ${a}`);
  }
  opts.rounds ??= opts.quick ? 3 : 4;
  if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error(`--rounds must be a positive integer`);
  for (const s of opts.scenarios)
    if (!SCENARIOS.includes(s)) throw new Error(`unknown scenario ${s}; known: ${SCENARIOS.join(", ")}`);
  for (const c of opts.candidates)
    if (!CANDIDATES.includes(c)) throw new Error(`unknown candidate ${c}; known: ${CANDIDATES.join(", ")}`);
  for (const p of opts.placements)
    if (!(p in PLACEMENTS)) throw new Error(`unknown placement ${p}; known: ${Object.keys(PLACEMENTS).join(", ")}`);
  // The floors are always measured: every ratio is paired against one.
  for (const c of [...opts.candidates]) {
    const base = BASELINES[c];
    if (base && !opts.candidates.includes(base)) opts.candidates = [base, ...opts.candidates];
  }
  if (!opts.candidates.includes("raw")) opts.candidates = ["raw", ...opts.candidates];
  return opts;
}

/** Runs one candidate x scenario in a fresh process pinned to the placement's host CPU. */
function runOnce(spec, hostCpu) {
  return new Promise((resolve) => {
    const child = spawn("taskset", ["-c", String(hostCpu), process.execPath, WORKER, JSON.stringify(spec)], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (err = (err + d).slice(-4000)));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const last = out.trim().split("\n").pop() ?? "";
      try {
        const parsed = JSON.parse(last);
        if (code === 0 && parsed.ok && parsed.unsupported)
          return resolve({ ok: true, unsupported: parsed.unsupported });
        if (code === 0 && parsed.ok && parsed.results) return resolve({ ok: true, results: parsed.results });
        if (code === 0 && parsed.ok) return resolve({ ok: true, metrics: parsed.metrics });
      } catch {}
      // The error's own line (not only the stack's tail) says why a round failed.
      const lines = err.trim().split("\n");
      const cause = lines.find((l) => /^\s*(\w*Error|OctetError)\b|^Error:/.test(l));
      const tail = lines.slice(-3).join(" | ");
      resolve({
        ok: false,
        error: `exit ${code ?? signal}: ${[cause, tail].filter(Boolean).join(" ... ") || "no output"}`,
      });
    });
  });
}

function rotate(list, k) {
  const n = k % list.length;
  return [...list.slice(n), ...list.slice(0, n)];
}

function fmt(x) {
  if (!Number.isFinite(x)) return "-";
  const a = Math.abs(x);
  if (a >= 10_000) return Math.round(x).toLocaleString("en-US");
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  return x.toFixed(2);
}

function range(values) {
  const f = values.filter(Number.isFinite);
  return f.length ? `${fmt(Math.min(...f))}-${fmt(Math.max(...f))}` : "-";
}

function table(rows) {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  const right = (c) => c >= 2;
  return rows
    .map((r, i) => {
      const line = r
        .map((cell, c) => (right(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
        .join("  ")
        .trimEnd();
      return i === 0 ? `${line}\n${"-".repeat(line.length)}` : line;
    })
    .join("\n");
}

/** Medians, min-max and ratios to raw paired per round for one scenario x placement block. */
function summarize(scenario, runs, candidates, rounds) {
  const byRound = (cand, key) =>
    Array.from({ length: rounds }, (_, r) => {
      const run = runs.find((x) => x.candidate === cand && x.round === r);
      return run?.ok && run.metrics ? run.metrics[key] : NaN;
    });
  const out = [];
  for (const cand of candidates) {
    for (const m of scenario.metrics) {
      const vals = byRound(cand, m.key);
      const base = byRound(BASELINES[cand] ?? "raw", m.key);
      const ratios = vals.map((v, r) => v / base[r]).filter(Number.isFinite);
      const ok = vals.filter(Number.isFinite);
      out.push({
        candidate: cand,
        baseline: BASELINES[cand] ?? "raw",
        metric: m.key,
        label: m.label,
        unit: m.unit,
        better: m.better,
        values: vals,
        median: median(ok),
        min: ok.length ? Math.min(...ok) : NaN,
        max: ok.length ? Math.max(...ok) : NaN,
        ratios,
        ratio_median: median(ratios),
        ratio_min: ratios.length ? Math.min(...ratios) : NaN,
        ratio_max: ratios.length ? Math.max(...ratios) : NaN,
        failures: runs.filter((x) => x.candidate === cand && !x.ok).map((x) => x.error),
        unsupported: runs.find((x) => x.candidate === cand && x.unsupported)?.unsupported ?? null,
      });
    }
  }
  return out;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const mode = opts.quick ? "quick" : "full";
  const scenarios = [];
  for (const s of opts.scenarios) scenarios.push(await import(new URL(`./scenarios/${s}.mjs`, import.meta.url).href));
  const started = new Date();
  const machine = {
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    memory_gib: +(totalmem() / 2 ** 30).toFixed(1),
    kernel: release(),
    node: process.version,
  };
  console.log(
    `octet bench (${mode}): ${opts.rounds} rounds, ` +
      `candidates ${opts.candidates.join(", ")}; ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`,
  );

  const blocks = [];
  let failed = 0;
  for (const placementName of opts.placements) {
    const placement = PLACEMENTS[placementName];
    const present = opts.candidates.filter(
      (c) => !CANDIDATE_PLACEMENTS[c] || CANDIDATE_PLACEMENTS[c].includes(placementName),
    );
    // The steady-state scenarios first: one process and connection per candidate and round.
    // In this order: the peak RSS is read right after the throughput workload it measures, before
    // the 512 KiB results raise the host's peak; the storm, which cancels, runs last.
    const steady = STEADY_ORDER.map((name) => scenarios.find((s) => s.name === name)).filter(
      (s) => s?.steady && !((s.placementIndependent || s.firstPlacementOnly) && placementName !== opts.placements[0]),
    );
    const steadyRuns = new Map(steady.map((s) => [s.name, []]));
    if (steady.length > 0) {
      console.log(`\n[${placement.label}: ${steady.map((s) => s.name).join(", ")} on one connection per run]`);
    }
    for (let round = 0; steady.length > 0 && round < opts.rounds; round++) {
      for (const candidate of rotate(present, round)) {
        const spec = {
          candidate,
          steady: steady.map((s) => ({ name: s.name, params: s.params[mode] })),
          childCpu: placement.childCpu,
        };
        const res = await runOnce(spec, placement.hostCpu);
        for (const s of steady) {
          const one = res.ok ? (res.results?.[s.name] ?? { ok: false, error: "no result" }) : res;
          if (!one.ok) {
            failed++;
            console.error(`  ${placementName} ${s.name} ${candidate} round ${round + 1} failed: ${one.error}`);
          }
          steadyRuns.get(s.name).push({ candidate, round, ...one });
        }
      }
    }
    for (const scenario of scenarios) {
      // A scenario with no extension process (import time) is the same in every placement: run once.
      if ((scenario.placementIndependent || scenario.firstPlacementOnly) && placementName !== opts.placements[0])
        continue;
      const params = scenario.params[mode];
      const rounds = Math.min(opts.rounds, scenario.maxRounds ?? Infinity);
      let runs;
      let blockSeconds;
      if (scenario.steady) {
        runs = steadyRuns.get(scenario.name);
        blockSeconds = runs.reduce((t, r) => t + (r.seconds ?? 0), 0);
      } else {
        runs = [];
        const blockStarted = Date.now();
        for (let round = 0; round < rounds; round++) {
          for (const candidate of rotate(present, round)) {
            // What a candidate does not support in one round it does not in the next: no process for it.
            const known = runs.find((r) => r.candidate === candidate && r.unsupported);
            if (known) {
              runs.push({ candidate, round, ok: true, unsupported: known.unsupported });
              continue;
            }
            const spec = { candidate, scenario: scenario.name, params, childCpu: placement.childCpu };
            const res = await runOnce(spec, placement.hostCpu);
            if (!res.ok) {
              failed++;
              console.error(`  ${placementName} ${scenario.name} ${candidate} round ${round + 1} failed: ${res.error}`);
            }
            runs.push({ candidate, round, ...res });
          }
        }
        blockSeconds = (Date.now() - blockStarted) / 1000;
      }
      const summary = summarize(scenario, runs, present, rounds);
      blocks.push({
        scenario: scenario.name,
        title: scenario.title(params),
        placement: placementName,
        params,
        rounds,
        seconds: blockSeconds,
        runs,
        summary,
      });
      const notes = [
        ...new Set(summary.filter((s) => s.unsupported).map((s) => `${s.candidate}: not supported (${s.unsupported})`)),
      ];
      const rows = [["candidate", "metric", "median", "min-max", "x base (median)", "x base min-max"]];
      for (const s of summary) {
        rows.push([
          s.candidate,
          `${s.label} (${s.unit}, ${s.better} is better)`,
          fmt(s.median),
          range(s.values),
          s.candidate === "raw" ? (Number.isFinite(s.median) ? "1.00" : "-") : fmt(s.ratio_median),
          s.candidate === "raw" ? "" : range(s.ratios),
        ]);
      }
      if (present.some((c) => BASELINES[c]))
        notes.push(
          `base: raw, except ${present
            .filter((c) => BASELINES[c])
            .map((c) => `${c} (against ${BASELINES[c]})`)
            .join(", ")}`,
        );

      const where = scenario.placementIndependent
        ? `any placement: host on CPU ${placement.hostCpu}, no extension process`
        : `${placement.label}${scenario.firstPlacementOnly ? " (this placement only)" : ""}`;
      console.log(
        `\n${scenario.title(params)}\n[${where}; ${rounds} rounds, ${blockSeconds.toFixed(0)} ` +
          `s]\n${table(rows)}${notes.map((n) => `\n${n}`).join("")}`,
      );
    }
  }

  const targets = checkTargets(blocks);
  if (targets.length > 0) {
    const rows = [["target", "placement", "goal", "median", "verdict"]];
    for (const t of targets) {
      rows.push([
        `${t.candidate} ${t.scenario} ${t.metric}`,
        t.placement,
        t.target,
        `${fmt(t.value)}${t.kind === "ratio" ? "x" : " ms"}`,
        t.met ? "met" : `missed by ${(t.off_by * 100).toFixed(0)}%`,
      ]);
    }
    const missed = targets.filter((t) => !t.met).length;
    console.log(
      `\nTargets (issues 4 and 7): ${targets.length - missed} of ${targets.length} met; why each miss happens is ` +
        `in the results file\n${table(rows)}`,
    );
  }

  const finished = new Date();
  const seconds = (finished - started) / 1000;
  const stamp = started
    .toISOString()
    .replace(/:/g, "-")
    .replace(/\.\d+Z$/, "Z");
  const file = `${HERE}results/${stamp}${opts.quick ? "-quick" : ""}.json`;
  mkdirSync(`${HERE}results`, { recursive: true });
  writeFileSync(
    file,
    JSON.stringify(
      {
        started: started.toISOString(),
        seconds,
        mode,
        rounds: opts.rounds,
        machine,
        candidates: opts.candidates,
        placements: Object.fromEntries(opts.placements.map((p) => [p, PLACEMENTS[p]])),
        targets,
        blocks,
      },
      null,
      2,
    ) + "\n",
  );
  console.log(
    `\n${failed ? `${failed} run(s) failed; ` : ""}done in ${seconds.toFixed(1)} s; results ` +
      `in ${file.replace(process.cwd() + "/", "")}`,
  );
  if (failed) process.exitCode = 1;
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(2);
});
