// The QuickJS candidate: the octet host with rpiRuntime() running bench-echo-qjs (the same echo and
// blob tools, written against the pi API) in the embedded QuickJS sandbox: one worker thread of the
// host process per extension, no child process. It cannot be pinned apart from the host (it is a
// thread of the host process), so its placement is always "shared" in effect.
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "@octet/host";
import { hostConnection } from "../lib/host-connection.mjs";
import { rpiRuntime } from "@octet/rpi";

const EXT_DIR = fileURLToPath(new URL("../extensions/bench-echo-qjs/", import.meta.url));

export const name = "quickjs";
export const description = "octet host + rpi QuickJS extension (in-process worker thread)";
/** peak-rss reads an extension process's VmHWM: a QuickJS extension has no process of its own (scale reports its memory
 * per instance). */
export const unsupported = ["peak-rss", "cancel-storm"];
export const importModules = [import.meta.resolve("@octet/rpi")];

/** A copy of bench-echo-qjs named `id` whose tools carry `suffix` (a host lets one extension own a tool name). */
function writeCopy(extRoot, id, suffix) {
  const dir = join(extRoot, id);
  mkdirSync(dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(EXT_DIR, "pi-extension.json"), "utf8"));
  writeFileSync(join(dir, "pi-extension.json"), JSON.stringify({ ...manifest, id }));
  const source = readFileSync(join(EXT_DIR, "ext.mjs"), "utf8").replace(
    /name: "(echo|blob)"/g,
    (_, t) => `name: "${t}${suffix}"`,
  );
  writeFileSync(join(dir, "ext.mjs"), source);
}

async function startHost(root, ids) {
  return ExtensionHost.start({
    workspace: root,
    extensionDirs: [join(root, "extensions")],
    enable: ids,
    octetHome: join(root, "home"),
    runtimes: [rpiRuntime()],
  });
}

export async function connect() {
  const root = mkdtempSync(join(tmpdir(), "octet-bench-qjs-"));
  writeCopy(join(root, "extensions"), "bench-echo-qjs", "");
  const host = await startHost(root, ["bench-echo-qjs"]);
  if (!host.tools().some((t) => t.name === "echo"))
    throw new Error(`bench-echo-qjs did not become ready: ${JSON.stringify(host.status()[0]).slice(0, 400)}`);
  return hostConnection(host, async () => {
    await host.shutdown();
    rmSync(root, { recursive: true, force: true });
  });
}

/** The scale scenario: `count` copies in one host; each is a worker thread with its own runtime. */
export async function startMany(_ctx, count) {
  const root = mkdtempSync(join(tmpdir(), "octet-bench-qjs-"));
  const ids = [];
  for (let i = 1; i <= count; i++) {
    ids.push(`bench-echo-qjs_${i}`);
    writeCopy(join(root, "extensions"), `bench-echo-qjs_${i}`, `_${i}`);
  }
  const host = await startHost(root, ids);
  const ready = host.status().filter((s) => ids.includes(s.name) && s.state === "ready").length;
  return {
    ready,
    /** No child processes: every instance lives in the host process. */
    pids: () => [],
    async close() {
      await host.shutdown();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
