// The Python SDK candidate: the octet host with the bench-echo-py extension (Python SDK, API 0.4),
// paired against the raw Python floor (raw-py). The manifest is copied and pinned with taskset,
// as octet.mjs does for the TS extension.
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "@octet/host";
import { hostConnection } from "../lib/host-connection.mjs";

const EXT_DIR = fileURLToPath(new URL("../extensions/bench-echo-py/", import.meta.url));

export const name = "py-sdk";
export const description = "octet host + Python SDK extension (API 0.4)";
export const baseline = "raw-py";
export const unsupported = ["cancel-storm", "scale", "import-time", "peak-rss"];

export async function connect({ childCpu }) {
  const root = mkdtempSync(join(tmpdir(), "octet-bench-py-"));
  const dir = join(root, "extensions", "bench-echo-py");
  mkdirSync(dir, { recursive: true });
  const toml = readFileSync(join(EXT_DIR, "extension.toml"), "utf8")
    .replace(/^command = .*$/m, 'command = "taskset"')
    .replace(/^args = .*$/m, `args = ${JSON.stringify(["-c", String(childCpu), "python3", join(EXT_DIR, "ext.py")])}`);
  writeFileSync(join(dir, "extension.toml"), toml);
  const host = await ExtensionHost.start({
    workspace: root,
    extensionDirs: [join(root, "extensions")],
    enable: ["bench-echo-py"],
    octetHome: join(root, "home"),
  });
  if (!host.tools().some((t) => t.name === "echo"))
    throw new Error(`bench-echo-py did not become ready: ${JSON.stringify(host.status()[0]).slice(0, 400)}`);
  return hostConnection(host, async () => {
    await host.shutdown();
    rmSync(root, { recursive: true, force: true });
  });
}
