// Peak RSS: runs the throughput workload (small calls, 64 in flight, after a warm-up), then reads
// the high-water mark of resident memory (VmHWM in /proc/<pid>/status) of the host process (the
// worker: library, connection and workload) and of the extension process, before closing.
import { needs, onOwnConnection } from "../lib/support.mjs";
import { readFileSync } from "node:fs";
import { pump, params as throughputParams } from "./throughput.mjs";

export const name = "peak-rss";
export const title = (p) =>
  `peak RSS (VmHWM) during the throughput workload (${p.calls} calls of ~100 B, ${p.inFlight} in flight)`;
export const metrics = [
  { key: "host_mib", label: "host peak RSS", unit: "MiB", better: "lower" },
  { key: "extension_mib", label: "extension peak RSS", unit: "MiB", better: "lower" },
];
/** The throughput scenario's, so that on a shared connection its workload is the one measured. */
export const params = throughputParams;

function vmHwmMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  if (!m) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

/** Runs on a connection the worker shares between the steady-state scenarios (lib/worker.mjs). */
export const steady = true;

/**
 * `ran`: the scenarios this connection already measured. After the throughput scenario (the same
 * workload, with the same parameters) the peak is read at once instead of running it again.
 */
export async function measure(conn, p, { ran = new Set() } = {}) {
  needs(conn, "pids"); // else the table shows "-" for this candidate
  if (!ran.has("throughput")) {
    await pump(conn, p.warmup, p.inFlight);
    await pump(conn, p.calls, p.inFlight);
  }
  const { host, extension } = conn.pids();
  if (!Number.isInteger(extension)) throw new Error(`extension pid unknown (${extension})`);
  return { host_mib: vmHwmMiB(host), extension_mib: vmHwmMiB(extension) };
}

export const run = (candidate, p, ctx) => onOwnConnection(candidate, ctx, (conn) => measure(conn, p));
