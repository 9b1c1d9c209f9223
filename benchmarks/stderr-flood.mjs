#!/usr/bin/env node
// Issue 13 (stderr floods): what a flood of blank stderr lines from one extension costs the host.
//   node benchmarks/stderr-flood.mjs [--mib 200] [--drain-mib 1024]
// 1. While extension "flooder" writes --mib MiB of blank lines to stderr (with backpressure), the
//    neighbour "good" is called in a loop: its call latency (p50, p95, max) during the flood, and
//    how long the flood took to drain through the host.
// 2. How long --drain-mib MiB of blank lines take to drain (capped at 120 s).
// Needs a build (npm run build). Figures are printed, never asserted.
import { mkdtemp, rm, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "../packages/host/dist/src/index.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const FAKE_EXT = join(ROOT, "tests", "fixtures", "fake-ext.mjs");
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? dflt : Number(process.argv[i + 1]);
};
const floodMib = arg("mib", 200);
const drainMib = arg("drain-mib", 1024);

async function extension(dir, name, tools) {
  await mkdir(join(dir, name));
  await writeFile(
    join(dir, name, "extension.toml"),
    `name = "${name}"
version = "0.0.1"
api_version = "0.1"

[entrypoint]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(FAKE_EXT)}, "good", "0.1", "${tools.join(",")}"]

[capabilities]
filesystem = "none"
process = false
network = false

[contributes]
tools = [${tools.map((t) => JSON.stringify(t)).join(", ")}]
`,
  );
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

const dir = await mkdtemp(join(tmpdir(), "octet-stderr-flood-"));
await extension(dir, "good", ["echo", "slow"]);
await extension(dir, "flooder", ["flood", "f_slow"]);
let stderrEvents = 0;
const host = await ExtensionHost.start({
  workspace: dir,
  extensionDirs: [dir],
  enable: ["good", "flooder"],
  onEvent: (e) => e.type === "stderr" && stderrEvents++,
  timeouts: { callMs: 180_000 },
});
try {
  const idle = [];
  for (let i = 0; i < 50; i++) {
    const t = performance.now();
    await host.callTool("echo", { i });
    idle.push(performance.now() - t);
  }
  console.log(`neighbour call, idle: p50 ${pct(idle, 50).toFixed(2)} ms, p95 ${pct(idle, 95).toFixed(2)} ms`);

  const started = performance.now();
  let done = false;
  const flood = host.callTool("flood", { __stderr_blank_mib: floodMib }).then((r) => {
    done = true;
    return r;
  });
  const during = [];
  while (!done) {
    const t = performance.now();
    await host.callTool("echo", { during: true });
    during.push(performance.now() - t);
  }
  await flood;
  const floodMs = performance.now() - started;
  console.log(
    `${floodMib} MiB of blank stderr lines drained in ${(floodMs / 1000).toFixed(2)} s ` +
      `(${(floodMib / (floodMs / 1000)).toFixed(0)} MiB/s)`,
  );
  console.log(
    `neighbour call during the flood: ${during.length} calls, p50 ${pct(during, 50).toFixed(2)} ms, ` +
      `p95 ${pct(during, 95).toFixed(2)} ms, max ${Math.max(...during).toFixed(2)} ms`,
  );

  if (drainMib > 0) {
    const t = performance.now();
    const outcome = await Promise.race([
      host.callTool("flood", { __stderr_blank_mib: drainMib }, { timeoutMs: 120_000 }).then(
        () => "drained",
        (e) => `failed: ${e.message}`,
      ),
      new Promise((r) => setTimeout(() => r("not drained within 120 s"), 120_000)),
    ]);
    console.log(
      `${drainMib} MiB of blank stderr lines: ${outcome} after ${((performance.now() - t) / 1000).toFixed(2)} s`,
    );
  }
  console.log(
    `stderr events emitted: ${stderrEvents}; host peak RSS ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
  );
} finally {
  await host.shutdown();
  await rm(dir, { recursive: true, force: true });
}
process.exit(0);
