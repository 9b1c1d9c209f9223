/**
 * mcpRuntime(): MCP stdio servers as octet extensions, through the host's foreign-runtime
 * contract (@octet/protocol's ForeignRuntime, as rpi plugs in). Two ways to name a server:
 * `mcp-server.json` in an extension folder (discovered where extension.toml is, with the same
 * sources, trust and enablement), and the servers of a Claude Code/Desktop config file given with
 * `--mcp-config FILE` (each an explicit extension, enabled and trusted by naming the file).
 *
 * Launch: the host spawns the server (its own process group, contained, registered for the exit
 * hook), the MCP SDK's Client runs the MCP handshake and tools/list over its stdio, and the
 * instance is handed to the host behind the bridge (mcp-bridge.ts). The MCP SDK is loaded at the
 * first launch only: commands with no MCP server never pay for it.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { basename } from "node:path";
import type { ForeignExtension, ForeignRuntime, ForeignStopSignal } from "@octet/protocol";
import { OCTET_VERSION } from "@octet/protocol";
import { loadServerManifest, MCP_MANIFEST_FILE, type McpServerConfig } from "./server-config.js";
import type { McpBridge } from "./mcp-bridge.js";

/** The MCP handshake and first tools/list must answer within this (a server that hangs is a failed start). */
const CONNECT_TIMEOUT_MS = 30_000;
/** Separates a config file from a server's name in an explicit path: FILE#NAME. */
const SERVER_SEP = "#";

type McpChild = McpBridge["child"];
export type McpForeignRuntime = ForeignRuntime<McpChild, ChildProcessWithoutNullStreams> & {
  /** The extension names of the --mcp-config servers: the CLI enables them. */
  readonly names: readonly string[];
};

export interface McpRuntimeOptions {
  /** The servers of the --mcp-config files, already parsed (args.ts), with the file each came from. */
  servers?: readonly { file: string; server: McpServerConfig }[];
}

export function mcpRuntime(options: McpRuntimeOptions = {}): McpForeignRuntime {
  const servers = options.servers ?? [];
  const byPath = new Map(servers.map((s) => [`${s.file}${SERVER_SEP}${s.server.name}`, s.server]));
  return {
    manifestFile: MCP_MANIFEST_FILE,
    names: servers.map((s) => s.server.name),
    ...(servers.length > 0 ? { explicitPaths: [...byPath.keys()] } : {}),
    async load(manifestPath) {
      const named = byPath.get(manifestPath);
      if (named !== undefined) return { ok: true, extension: mcpExtension(() => ({ ok: true, value: named })) };
      if (basename(manifestPath) !== MCP_MANIFEST_FILE)
        return { ok: false, errors: [`${manifestPath}: not an ${MCP_MANIFEST_FILE} nor a --mcp-config server`] };
      const parsed = loadServerManifest(manifestPath);
      if (!parsed.ok) return parsed;
      // Validated again at launch: the file may have changed since discovery (a reload takes the new one).
      return { ok: true, extension: mcpExtension(() => loadServerManifest(manifestPath), parsed.value) };
    },
  };
}

type Reload = () => ReturnType<typeof loadServerManifest>;

function mcpExtension(
  reload: Reload,
  first?: McpServerConfig,
): ForeignExtension<McpChild, ChildProcessWithoutNullStreams> {
  const initial = first ?? (reload() as { ok: true; value: McpServerConfig }).value;
  return {
    name: initial.name,
    version: initial.version,
    runtime: "mcp",
    grants: { notifications: false, confirmations: false },
    async launch(context) {
      const config = reload();
      if (!config.ok) throw new Error(config.errors.join("; "));
      const server = config.value;
      const [{ Client }, { ChildTransport }, { createMcpBridge, listAllTools }, { getDefaultEnvironment }] =
        await Promise.all([
          import("@modelcontextprotocol/sdk/client/index.js"),
          import("./child-transport.js"),
          import("./mcp-bridge.js"),
          import("@modelcontextprotocol/sdk/client/stdio.js"),
        ]);
      const proc = await context.spawn({
        command: server.command,
        args: server.args,
        cwd: server.cwd ?? context.workspace,
        // What Claude's clients give a server: the safe variables (HOME, PATH, USER, ...) and its env.
        env: { ...getDefaultEnvironment(), ...server.env },
      });
      const spawnError = new Promise<never>((_, reject) =>
        proc.once("error", (err) => reject(new Error(`cannot start ${server.command}: ${err.message}`))),
      );
      const early = new Promise<never>((_, reject) =>
        proc.once("exit", (code, signal) =>
          reject(new Error(`the MCP server exited during its start (${signal ?? `code ${String(code)}`})`)),
        ),
      );
      const client = new Client({ name: "octet", version: OCTET_VERSION });
      const start = async () => {
        await client.connect(new ChildTransport(proc), { timeout: CONNECT_TIMEOUT_MS });
        return listAllTools(client);
      };
      // The losers reject later (the server exits at shutdown): that must not be an unhandled rejection.
      for (const p of [spawnError, early]) p.catch(() => {});
      const tools = await Promise.race([start(), spawnError, early, stopped(context.signal)]);
      const bridge = createMcpBridge({ client, process: proc, tools, diagnose: context.diagnose });
      return { child: bridge.child, contributes: { tools: bridge.toolNames, commands: [] } };
    },
  };
}

function stopped(signal: ForeignStopSignal): Promise<never> {
  const p = new Promise<never>((_, reject) => {
    const fail = (): void => reject(new Error("stopped while the MCP server was starting"));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
  p.catch(() => {});
  return p;
}
