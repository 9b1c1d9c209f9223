// Import time: how long a fresh Node process takes to import the candidate's host-side library
// (the candidate's `importModules`: octet's @octet/host (its bundle), the MCP SDK's Client
// and StdioClientTransport modules, node:child_process for the raw floor). Each run starts
// `samples` fresh processes one after another (pinned like the worker, whose CPU affinity they
// inherit); each times its own dynamic imports with performance.now(); the run reports the median.
import { execFileSync } from "node:child_process";
import { median } from "../lib/stats.mjs";

export const name = "import-time";
export const title = (p) => `host library import time (fresh process, median of ${p.samples} per run)`;
export const metrics = [{ key: "import_ms", label: "import", unit: "ms", better: "lower" }];
export const params = {
  full: { samples: 5 },
  quick: { samples: 3 },
};
/** No extension process, so the runner measures it in the first placement only. */
export const placementIndependent = true;
/** Needs the candidate module to say what its host side imports. */
export const requires = ["importModules"];

const SCRIPT = `
const mods = JSON.parse(process.argv[1]);
const t0 = performance.now();
for (const m of mods) await import(m);
process.stdout.write(String(performance.now() - t0));
`;

export async function run(candidate, p) {
  const samples = [];
  for (let i = 0; i < p.samples; i++) {
    const out = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", SCRIPT, JSON.stringify(candidate.importModules)],
      { encoding: "utf8" },
    );
    const ms = Number(out.trim());
    if (!Number.isFinite(ms)) throw new Error(`import child printed ${JSON.stringify(out.slice(0, 200))}`);
    samples.push(ms);
  }
  return { import_ms: median(samples) };
}
