// Scale: `extensions` extensions started at once (octet: that many copies of the bench-echo
// manifest in one temporary extensions folder, one ExtensionHost.start enabling all; raw and MCP:
// that many children spawned and handshaken concurrently, raw's handshake being a first echo
// reply). Reports the time until all are ready and the host's resident memory per extension:
// VmRSS of the host (worker) process after the start minus its VmRSS just before, over the count.
import { readFileSync } from "node:fs";
import { nowNs } from "../lib/stats.mjs";

export const name = "scale";
export const title = (p) => `scale (${p.extensions} extensions started at once)`;
export const metrics = [
  { key: "ready_ms", label: "all ready", unit: "ms", better: "lower" },
  { key: "host_rss_per_ext_mib", label: "host RSS per extension", unit: "MiB", better: "lower" },
  { key: "rss_per_ext_mib", label: "memory per extension (host + its processes)", unit: "MiB", better: "lower" },
];
export const params = {
  full: { extensions: 50 },
  quick: { extensions: 10 },
};
/**
 * Starting 50 Node processes is seconds of CPU per run (the MCP candidate about 12 s), so this
 * scenario runs in the first placement only and at most 2 rounds: it keeps the full run within
 * its 5-minute budget. Start-up cost per extension barely depends on the host's placement.
 */
export const firstPlacementOnly = true;
export const maxRounds = 2;
/** The candidate module must export startMany(ctx, count) -> { ready, close() }. */
export const requires = ["startMany"];

function vmRssMiB(pid = "self") {
  const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

export async function run(candidate, p, ctx) {
  const before = vmRssMiB();
  const t0 = nowNs();
  const group = await candidate.startMany(ctx, p.extensions);
  const ready_ms = Number(nowNs() - t0) / 1e6;
  const after = vmRssMiB();
  try {
    if (group.ready !== p.extensions) throw new Error(`${group.ready} of ${p.extensions} ready`);
    const out = { ready_ms, host_rss_per_ext_mib: (after - before) / p.extensions };
    // What one extension costs the machine: the host's growth plus its own processes' resident
    // memory (none for an in-process QuickJS instance). Only for candidates that list their pids.
    if (typeof group.pids === "function") {
      const children = group.pids().reduce((sum, pid) => sum + vmRssMiB(pid), 0);
      out.rss_per_ext_mib = (after - before + children) / p.extensions;
    }
    return out;
  } finally {
    await group.close();
  }
}
