// Measurements in a fresh process: `node worker.mjs '<json spec>'` imports one candidate, runs the
// spec's scenarios and prints one JSON line on stdout. The runner starts it under taskset; the
// candidate pins its own child with `taskset -c <childCpu>`.
//
// spec.scenario: one scenario on its own connection (cold start, import time, scale: each needs a
// fresh process). spec.steady: several steady-state scenarios (latency, throughput, peak RSS,
// 512 KiB results, the cancellation storm) measured one after another on ONE connection, so a
// round pays for one process start and one handshake per candidate instead of one per scenario;
// each scenario has its own warm-up. A scenario the candidate does not support (lib/support.mjs)
// reports `{"ok":true,"unsupported":"<why>"}`; one that throws reports `{"ok":false,"error"}` and
// the rest still run.
import { Unsupported, unsupportedReason } from "./support.mjs";

const spec = JSON.parse(process.argv[2] ?? "{}");
const candidate = await import(new URL(`../candidates/${spec.candidate}.mjs`, import.meta.url).href);
const load = (name) => import(new URL(`../scenarios/${name}.mjs`, import.meta.url).href);
const ctx = { childCpu: spec.childCpu };

async function outcome(measure) {
  try {
    return { ok: true, metrics: await measure() };
  } catch (e) {
    if (e instanceof Unsupported) return { ok: true, unsupported: e.message };
    return { ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
}

if (spec.steady) {
  const scenarios = await Promise.all(spec.steady.map((s) => load(s.name)));
  const results = {};
  const todo = [];
  scenarios.forEach((scenario, i) => {
    const why = unsupportedReason(candidate, scenario);
    if (why) results[scenario.name] = { ok: true, unsupported: why };
    else todo.push({ scenario, params: spec.steady[i].params });
  });
  if (todo.length > 0) {
    const conn = await candidate.connect(ctx);
    const ran = new Set();
    try {
      for (const { scenario, params } of todo) {
        const t0 = performance.now();
        results[scenario.name] = await outcome(() => scenario.measure(conn, params, { ...ctx, ran }));
        results[scenario.name].seconds = (performance.now() - t0) / 1000;
        ran.add(scenario.name);
      }
    } finally {
      await conn.close();
    }
  }
  process.stdout.write(JSON.stringify({ ok: true, results }) + "\n");
} else {
  const scenario = await load(spec.scenario);
  const why = unsupportedReason(candidate, scenario);
  if (why) {
    process.stdout.write(JSON.stringify({ ok: true, unsupported: why }) + "\n");
  } else {
    try {
      const metrics = await scenario.run(candidate, spec.params, ctx);
      process.stdout.write(JSON.stringify({ ok: true, metrics }) + "\n");
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      process.stdout.write(JSON.stringify({ ok: true, unsupported: e.message }) + "\n");
    }
  }
}
