// Large result: sequential calls of the `blob` tool, each returning a 512 KiB text result, after a
// warm-up; reports calls per second and MiB of result text per second. Each result's length is
// checked, so a truncated or failed result fails the run instead of flattering it.
import { needs, onOwnConnection } from "../lib/support.mjs";
import { nowNs } from "../lib/stats.mjs";

export const name = "large-result";
export const title = (p) =>
  `large result (${p.calls} sequential calls returning ${p.bytes / 1024} KiB of text, after ${p.warmup} warm-up)`;
export const metrics = [
  { key: "calls_per_s", label: "calls/s", unit: "/s", better: "higher" },
  { key: "mib_per_s", label: "result rate", unit: "MiB/s", better: "higher" },
];
export const params = {
  full: { calls: 60, warmup: 10, bytes: 512 * 1024 },
  quick: { calls: 30, warmup: 5, bytes: 512 * 1024 },
};

async function once(conn, bytes) {
  const text = await conn.callTool("blob", { bytes });
  if (typeof text !== "string" || text.length !== bytes) {
    throw new Error(
      `blob returned ${typeof text === "string" ? `${text.length} characters` : typeof text}, expected ${bytes}`,
    );
  }
}

/** Runs on a connection the worker shares between the steady-state scenarios (lib/worker.mjs). */
export const steady = true;

export async function measure(conn, p) {
  needs(conn, "callTool"); // else the table shows "-" for this candidate
  for (let i = 0; i < p.warmup; i++) await once(conn, p.bytes);
  const t0 = nowNs();
  for (let i = 0; i < p.calls; i++) await once(conn, p.bytes);
  const seconds = Number(nowNs() - t0) / 1e9;
  return { calls_per_s: p.calls / seconds, mib_per_s: (p.calls * p.bytes) / 2 ** 20 / seconds };
}

export const run = (candidate, p, ctx) => onOwnConnection(candidate, ctx, (conn) => measure(conn, p));
