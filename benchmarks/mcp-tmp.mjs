// scratch: MCP server through the octet host, 64 in flight, host process CPU per call
import { ExtensionHost } from "@octet/host";
import { mcpRuntime } from "../packages/cli/dist/src/mcp/mcp-runtime.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const root = mkdtempSync(join(tmpdir(), "mcpb-"));
const host = await ExtensionHost.start({
  workspace: root,
  extensionDirs: ["/work/main/examples"],
  enable: ["mcp-demo"],
  octetHome: join(root, "h"),
  runtimes: [mcpRuntime()],
});
const tool = host.tools().find((t) => t.name.includes("echo"))?.name;
if (!tool)
  throw new Error(
    "no echo: " +
      host
        .tools()
        .map((t) => t.name)
        .join(","),
  );
const N = Number(process.env.N || 6000);
async function run(n) {
  let started = 0,
    done = 0;
  await new Promise((resolve) => {
    const next = () => {
      if (started >= n) return;
      started++;
      host.callTool(tool, { text: "hello world" }).then(() => {
        done++;
        if (done === n) resolve();
        else next();
      });
    };
    for (let i = 0; i < 64; i++) next();
  });
}
await run(2000);
const c0 = process.cpuUsage();
const t0 = performance.now();
await run(N);
const ms = performance.now() - t0;
const c = process.cpuUsage(c0);
console.log(`calls/s ${((N / ms) * 1000).toFixed(0)} host CPU/call ${((c.user + c.system) / N).toFixed(1)} us`);
await host.shutdown();
