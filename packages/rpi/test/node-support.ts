/**
 * Test support for the Node runtime: a package with a "runtime": "node" manifest, started the way
 * rpiRuntime() starts it (manifest -> launch -> environment -> process), behind a real
 * RpiConnection, with its diagnostics and stderr kept.
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { RpiConnection, type RpiConnectionOptions } from "../src/host/rpi-connection.js";
import { rpiEnvironment } from "../src/manifest/environment.js";
import { resolveRpiLaunch } from "../src/manifest/resolve-launch.js";
import { parseRpiManifest } from "../src/manifest/rpi-manifest.js";
import { nodeProcessSpec } from "../src/node/launch-node.js";
import { launchProcess } from "../src/process/process-transport.js";

export const NODE_CAPABILITIES = {
  capabilities: ["tools", "commands", "event_hooks", "ui"],
  uiCapabilities: ["notify"],
};

/** A fresh canonical directory holding `files` and a node manifest for `entry` (default ./index.mjs). */
export function nodePackage(files: Record<string, string>, manifest: Record<string, unknown> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "octet-pinode-")));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  writeFileSync(
    join(dir, "pi-extension.json"),
    JSON.stringify({
      schemaVersion: 1,
      id: "pi-node-test",
      runtime: "node",
      entry: "./index.mjs",
      ...NODE_CAPABILITIES,
      ...manifest,
    }),
  );
  return dir;
}

export interface NodeHarness {
  c: RpiConnection;
  diagnostics: string[];
  stderr: string[];
  pid: number;
}

/** Launches the package's runner behind a connection (not started); `cwd` is the session's. */
export async function connectNode(
  dir: string,
  cwd: string,
  extra: Partial<RpiConnectionOptions> = {},
): Promise<NodeHarness> {
  const manifestPath = join(dir, "pi-extension.json");
  const parsed = parseRpiManifest(readFileSync(manifestPath, "utf8"), manifestPath);
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.message).join("; "));
  const resolved = await resolveRpiLaunch(parsed.manifest, manifestPath, { source: "explicit", projectTrusted: true });
  if (!resolved.ok) throw new Error(resolved.error);
  const env = rpiEnvironment(parsed.manifest, resolved.launch);
  const transport = await launchProcess(nodeProcessSpec(resolved.launch, env));
  const diagnostics: string[] = [];
  const stderr: string[] = [];
  const c = new RpiConnection({
    transport,
    instance: { extensionId: parsed.manifest.id, generation: 1 },
    cwd,
    mode: "rpc",
    projectTrusted: true,
    grants: { capabilities: parsed.manifest.capabilities, uiCapabilities: parsed.manifest.uiCapabilities },
    diagnose: (level, message) => diagnostics.push(`${level}: ${message}`),
    onStderr: (line) => stderr.push(line),
    ...extra,
  });
  return { c, diagnostics, stderr, pid: transport.pid! };
}

/** The text of a successful tool result. */
export function textOf(r: unknown): string {
  const result = r as { status: string; value?: { content: { text: string }[] }; error?: { message: string } };
  if (result.status !== "success") throw new Error(`not a success: ${JSON.stringify(result)}`);
  return result.value!.content[0]!.text;
}

/** Live (not zombie) members of process group `pgid`. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") out.push(pid);
    } catch {
      // Ended while we looked.
    }
  }
  return out;
}

export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

export async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The number in a file once a command has written it there. */
export async function pidFrom(file: string): Promise<number> {
  let pid = NaN;
  await until(
    () => {
      try {
        pid = Number(readFileSync(file, "utf8").trim());
      } catch {
        return false;
      }
      return Number.isInteger(pid) && pid > 1;
    },
    10_000,
    `a pid in ${file}`,
  );
  return pid;
}
