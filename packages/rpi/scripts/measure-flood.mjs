#!/usr/bin/env node
// Issue 13a: what a QuickJS flood costs the host. Starts a host with one QuickJS extension whose
// tools flood it in one synchronous run (1,000,000 onUpdate; 100,000 ctx.ui.notify of 3 KB), and
// reports the host's longest event-loop stall (perf_hooks.monitorEventLoopDelay), its peak RSS
// growth, the wall time and how much of the flood reached the caller.
//   npm run build && node packages/rpi/scripts/measure-flood.mjs [updates|notify]...
import { monitorEventLoopDelay } from "node:perf_hooks";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";

const FLOOD = (updates, notifies) =>
  `
const UPDATES = ${updates}, NOTIFIES = ${notifies};
export default function (pi) {
  const tool = (name, execute) => pi.registerTool({ name, label: name, description: name, parameters: { type: ` +
  `"object", properties: {} }, execute });
  tool("warm", async (_id, _p, _s, onUpdate, ctx) => { for (let i = 0; i < 10; i++) { onUpdate({ content: [{ type: ` +
  `"text", text: "w" + i }] }); ctx.ui.notify("w" + i, "info"); } return "warm"; });
  tool("updates", async (_id, _p, _s, onUpdate) => {
    let refused = 0, message = "";
    for (let i = 0; i < UPDATES; i++) {
      try { onUpdate({ content: [{ type: "text", text: "u" + i }] }); } catch (e) { refused++; message = e.message; ` +
  `break; }
    }
    return "sent; refused " + refused + (message ? ": " + message : "");
  });
  tool("notify", async (_id, _p, _s, _u, ctx) => {
    const big = "n".repeat(3000);
    let refused = 0, message = "";
    for (let i = 0; i < NOTIFIES; i++) {
      try { ctx.ui.notify(big + i, "info"); } catch (e) { refused++; message = e.message; }
    }
    return "sent; refused " + refused + (message ? ": " + message : "");
  });
}
`;

const which = process.argv.slice(2);
const runs = which.length > 0 ? which : ["updates", "notify"];
const dir = await mkdtemp(join(tmpdir(), "octet-flood-"));
await mkdir(join(dir, "flood"));
await writeFile(
  join(dir, "flood", "index.mjs"),
  FLOOD(Number(process.env.UPDATES ?? 1_000_000), Number(process.env.NOTIFIES ?? 100_000)),
);
await writeFile(
  join(dir, "flood", "pi-extension.json"),
  JSON.stringify({
    schemaVersion: 1,
    id: "flood",
    runtime: "quickjs",
    entry: "./index.mjs",
    capabilities: ["tools", "ui"],
    uiCapabilities: ["notify"],
  }),
);
let notifications = 0;
let diagnostics = [];
const host = await ExtensionHost.start({
  extensionDirs: [dir],
  workspace: dir,
  enable: ["flood"],
  octetHome: join(dir, "home"),
  runtimes: [rpiRuntime()],
  onEvent: (e) => {
    if (e.type === "notification") notifications++;
    if (e.type === "diagnostic") diagnostics.push(e.message);
  },
});
try {
  // One small call first: the host's one-off costs of a first call (lazy code, schema compiles)
  // are not the flood's.
  await host.callTool("warm", {}, { onProgress: () => undefined });
  for (const tool of runs) {
    notifications = 0;
    diagnostics = [];
    let progress = 0;
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    const t0 = performance.now();
    // Where the longest stall happened (ms after the call began), to tell a flood from start-up.
    let last = t0,
      worst = { ms: 0, at: 0 };
    const ticker = setInterval(() => {
      const now = performance.now();
      if (now - last > worst.ms) worst = { ms: Math.round(now - last), at: Math.round(last - t0) };
      last = now;
    }, 5);
    const r = await host.callTool(tool, {}, { onProgress: () => progress++, timeoutMs: 120_000 });
    const ms = performance.now() - t0;
    await new Promise((resolve) => setTimeout(resolve, 200));
    h.disable();
    clearInterval(sampler);
    clearInterval(ticker);
    peak = Math.max(peak, process.memoryUsage().rss);
    console.log(
      JSON.stringify({
        tool,
        wallMs: Math.round(ms),
        maxLoopDelayMs: Math.round(h.max / 1e6),
        worstGap: worst,
        p99LoopDelayMs: Math.round(h.percentile(99) / 1e6),
        rssGrowthMb: Math.round((peak - rss0) / 2 ** 20),
        progressEvents: progress,
        notifications,
        result: r.text.slice(0, 300),
        diagnostics: diagnostics.slice(0, 3).map((d) => d.slice(0, 200)),
        diagnosticCount: diagnostics.length,
      }),
    );
  }
} finally {
  await host.shutdown();
  await rm(dir, { recursive: true, force: true });
}
