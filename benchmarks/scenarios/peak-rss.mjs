// Peak RSS: runs the throughput workload (small calls, 64 in flight, after a warm-up), then reads
// the high-water mark of resident memory (VmHWM in /proc/<pid>/status) of the host process (the
// worker: library, connection and workload) and of the extension process, before closing.
import { needs } from "../lib/support.mjs";
import { readFileSync } from "node:fs";
import { pump } from "./throughput.mjs";

export const name = "peak-rss";
export const title = (p) =>
  `peak RSS (VmHWM) during the throughput workload (${p.calls} calls of ~100 B, ${p.inFlight} in flight)`;
export const metrics = [
  { key: "host_mib", label: "host peak RSS", unit: "MiB", better: "lower" },
  { key: "extension_mib", label: "extension peak RSS", unit: "MiB", better: "lower" },
];
export const params = {
  full: { calls: 30_000, warmup: 5_000, inFlight: 64 },
  quick: { calls: 5_000, warmup: 2_000, inFlight: 64 },
};

function vmHwmMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const m = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  if (!m) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

export async function run(candidate, p, ctx) {
  const conn = await candidate.connect(ctx);
  await needs(conn, "pids"); // else the table shows "-" for this candidate
  try {
    await pump(conn, p.warmup, p.inFlight);
    await pump(conn, p.calls, p.inFlight);
    const { host, extension } = conn.pids();
    if (!Number.isInteger(extension)) throw new Error(`extension pid unknown (${extension})`);
    return { host_mib: vmHwmMiB(host), extension_mib: vmHwmMiB(extension) };
  } finally {
    await conn.close();
  }
}
