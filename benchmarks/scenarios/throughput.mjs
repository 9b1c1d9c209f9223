// Throughput: small calls kept 64 in flight (a new call starts as each one settles) until the
// total is reached; reports completed calls per second.
import { SMALL_ARGS } from "../lib/payload.mjs";
import { nowNs } from "../lib/stats.mjs";
import { onOwnConnection } from "../lib/support.mjs";

export const name = "throughput";
export const title = (p) => `throughput (${p.calls} calls of ~100 B, ${p.inFlight} in flight)`;
export const metrics = [{ key: "calls_per_s", label: "calls/s", unit: "/s", better: "higher" }];
export const params = {
  full: { calls: 15_000, warmup: 3_000, inFlight: 64 },
  quick: { calls: 5_000, warmup: 2_000, inFlight: 64 },
};

/** Runs `total` calls with `inFlight` lanes; shared with the peak-RSS scenario. */
export async function pump(conn, total, inFlight) {
  let started = 0;
  const lane = async () => {
    while (started < total) {
      started++;
      await conn.call(SMALL_ARGS);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, total) }, lane));
}

/** Runs on a connection the worker shares between the steady-state scenarios (lib/worker.mjs). */
export const steady = true;

export async function measure(conn, p) {
  await pump(conn, p.warmup, p.inFlight);
  const t0 = nowNs();
  await pump(conn, p.calls, p.inFlight);
  const seconds = Number(nowNs() - t0) / 1e9;
  return { calls_per_s: p.calls / seconds };
}

export const run = (candidate, p, ctx) => onOwnConnection(candidate, ctx, (conn) => measure(conn, p));
