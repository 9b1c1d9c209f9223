// Small-call latency: sequential calls with ~100-byte arguments and result, after a warm-up;
// reports the p50 and p99 of the per-call round trip.
import { SMALL_ARGS } from "../lib/payload.mjs";
import { nowNs, quantile } from "../lib/stats.mjs";
import { onOwnConnection } from "../lib/support.mjs";

export const name = "latency";
export const title = (p) => `small-call latency (${p.calls} sequential calls of ~100 B after ${p.warmup} warm-up)`;
export const metrics = [
  { key: "p50_us", label: "p50", unit: "µs", better: "lower" },
  { key: "p99_us", label: "p99", unit: "µs", better: "lower" },
];
export const params = {
  full: { calls: 10_000, warmup: 5_000 },
  quick: { calls: 1_000, warmup: 1_000 },
};

/** Runs on a connection the worker shares between the steady-state scenarios (lib/worker.mjs). */
export const steady = true;

export async function measure(conn, p) {
  for (let i = 0; i < p.warmup; i++) await conn.call(SMALL_ARGS);
  const samples = new Float64Array(p.calls);
  for (let i = 0; i < p.calls; i++) {
    const t0 = nowNs();
    await conn.call(SMALL_ARGS);
    samples[i] = Number(nowNs() - t0) / 1e3;
  }
  samples.sort();
  return { p50_us: quantile(samples, 0.5), p99_us: quantile(samples, 0.99) };
}

export const run = (candidate, p, ctx) => onOwnConnection(candidate, ctx, (conn) => measure(conn, p));
