// Candidate (b): the octet host library embedding the bench-echo extension (TS SDK, API 0.4).
// The committed manifest runs `node ./ext.mjs`; to pin the child, the runner writes a copy of it
// into a temporary extension folder whose entrypoint is `taskset -c <cpu> node <abs>/ext.mjs`.
import { mkdtempSync, mkdirSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ExtensionHost } from "@octet/host";
import { hostConnection } from "../lib/host-connection.mjs";

const EXT_DIR = fileURLToPath(new URL("../extensions/bench-echo/", import.meta.url));

export const name = "octet";
export const description = "octet host + TS SDK extension (API 0.4)";
/** What the import-time scenario imports in a fresh process: the host library's entry point. */
export const importModules = [import.meta.resolve("@octet/host")];

/** The committed manifest, pinned; with `suffix`, a copy named bench-echo<suffix> whose tools are too. */
function pinnedManifest(childCpu, suffix = "") {
  const toml = readFileSync(join(EXT_DIR, "extension.toml"), "utf8");
  const args = JSON.stringify([
    "-c",
    String(childCpu),
    process.execPath,
    join(EXT_DIR, "ext.mjs"),
    ...(suffix ? ["--suffix", suffix] : []),
  ]);
  let out = toml.replace(/^command = .*$/m, 'command = "taskset"').replace(/^args = .*$/m, `args = ${args}`);
  if (suffix) {
    out = out.replace(/^name = "bench-echo"$/m, `name = "bench-echo${suffix}"`).replace(
      /^tools = \[(.*)\]$/m,
      (_, list) =>
        `tools = [${list
          .split(",")
          .map((t) => `"${JSON.parse(t.trim())}${suffix}"`)
          .join(", ")}]`,
    );
  }
  return out;
}

export async function connect({ childCpu }) {
  const root = mkdtempSync(join(tmpdir(), "octet-bench-"));
  const extRoot = join(root, "extensions");
  mkdirSync(join(extRoot, "bench-echo"), { recursive: true });
  writeFileSync(join(extRoot, "bench-echo", "extension.toml"), pinnedManifest(childCpu));
  const host = await ExtensionHost.start({
    workspace: root,
    extensionDirs: [extRoot],
    enable: ["bench-echo"],
    octetHome: join(root, "home"),
  });
  const status = host.status().find((s) => s.name === "bench-echo");
  if (!host.tools().some((t) => t.name === "echo")) {
    throw new Error(`bench-echo did not become ready: ${JSON.stringify(status)}`);
  }
  return hostConnection(
    host,
    async () => {
      await host.shutdown();
      rmSync(root, { recursive: true, force: true });
    },
    {
      /** The extension's pid from host.status() (taskset execs node, so it is node's own). */
      pids() {
        const pid = host.status().find((s) => s.name === "bench-echo")?.pid ?? null;
        return { host: process.pid, extension: pid };
      },
    },
  );
}

/**
 * The scale scenario: `count` copies of bench-echo (bench-echo_1..N, tools echo_1..N, ...) in one
 * temporary extensions folder, all enabled in one ExtensionHost.start(); ready when each copy is.
 */
export async function startMany({ childCpu }, count) {
  const root = mkdtempSync(join(tmpdir(), "octet-bench-"));
  const extRoot = join(root, "extensions");
  const names = [];
  for (let i = 1; i <= count; i++) {
    const name = `bench-echo_${i}`;
    names.push(name);
    mkdirSync(join(extRoot, name), { recursive: true });
    writeFileSync(join(extRoot, name, "extension.toml"), pinnedManifest(childCpu, `_${i}`));
  }
  const host = await ExtensionHost.start({
    workspace: root,
    extensionDirs: [extRoot],
    enable: names,
    octetHome: join(root, "home"),
  });
  const ready = host.status().filter((s) => names.includes(s.name) && s.state === "ready").length;
  if (ready !== count) {
    const bad = host.status().find((s) => names.includes(s.name) && s.state !== "ready");
    await host.shutdown();
    rmSync(root, { recursive: true, force: true });
    throw new Error(`${ready} of ${count} copies ready; e.g. ${JSON.stringify(bad).slice(0, 300)}`);
  }
  return {
    ready,
    /** Each copy's process (taskset execs node, so the status pid is node's own). */
    pids: () =>
      host
        .status()
        .filter((s) => names.includes(s.name) && s.pid !== null)
        .map((s) => s.pid),
    async close() {
      await host.shutdown();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
