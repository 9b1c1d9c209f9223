/**
 * How an MCP stdio server is described to octet, in the format MCP users already have: Claude
 * Code's and Claude Desktop's `{"mcpServers": {NAME: {command, args, env}}}` (a `.mcp.json`), and
 * `mcp-server.json` in an extension folder, one server: `{name, command, args?, env?, version?}`.
 * Parsing only: problems come back as messages naming the file and the key, never thrown.
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";

/** An extension's name (octet's manifest rule): what a server's name must be to become one. */
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** A config file larger than this is not a server list (the host's manifest bound). */
const MAX_CONFIG_BYTES = 256 * 1024;

export interface McpServerConfig {
  /** The extension's name: the key in mcpServers, or mcp-server.json's name. */
  name: string;
  version: string;
  command: string;
  args: string[];
  /** Added to the safe inherited variables (HOME, PATH, ...), as Claude's clients do. */
  env: Record<string, string>;
  /** The server's working directory; default the workspace. */
  cwd: string | null;
}

export type ConfigResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

/** The name of the manifest file of an MCP server in an extension folder. */
export const MCP_MANIFEST_FILE = "mcp-server.json";

function readJson(file: string): ConfigResult<unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return { ok: false, errors: [`${file}: cannot read it (${code})`] };
  }
  if (Buffer.byteLength(text) > MAX_CONFIG_BYTES)
    return { ok: false, errors: [`${file}: ${Buffer.byteLength(text)} bytes; at most ${MAX_CONFIG_BYTES}`] };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, errors: [`${file}: not JSON (${err instanceof Error ? err.message : String(err)})`] };
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** One server entry; `where` names it in messages ("FILE: mcpServers.NAME"). */
export function parseServerEntry(
  name: string,
  raw: unknown,
  where: string,
  baseDir: string,
): ConfigResult<McpServerConfig> {
  const errors: string[] = [];
  if (!NAME.test(name))
    errors.push(`${where}: the name ${JSON.stringify(name)} must be 1-64 of a-z, 0-9, "-", "_" (an extension name)`);
  if (!isObject(raw)) return { ok: false, errors: [...errors, `${where}: must be an object with "command"`] };
  if (raw["type"] !== undefined && raw["type"] !== "stdio")
    errors.push(`${where}.type: ${JSON.stringify(raw["type"])} is not supported; only stdio servers (a command)`);
  const command = raw["command"];
  if (typeof command !== "string" || command.trim() === "") errors.push(`${where}.command: must be a non-empty string`);
  const args = raw["args"] ?? [];
  if (!Array.isArray(args) || !args.every((a) => typeof a === "string"))
    errors.push(`${where}.args: must be an array of strings`);
  const env = raw["env"] ?? {};
  if (!isObject(env) || !Object.values(env).every((v) => typeof v === "string"))
    errors.push(`${where}.env: must be an object of string values`);
  const cwd = raw["cwd"];
  if (cwd !== undefined && typeof cwd !== "string") errors.push(`${where}.cwd: must be a string`);
  const version = raw["version"] ?? "0.0.0";
  if (typeof version !== "string") errors.push(`${where}.version: must be a string`);
  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      name,
      version: version as string,
      command: command as string,
      args: args as string[],
      env: env as Record<string, string>,
      cwd: typeof cwd === "string" ? (isAbsolute(cwd) ? cwd : resolve(baseDir, cwd)) : null,
    },
  };
}

/** An extension folder's mcp-server.json: one server, relative paths against the folder. */
export function loadServerManifest(file: string): ConfigResult<McpServerConfig> {
  const json = readJson(file);
  if (!json.ok) return json;
  if (!isObject(json.value)) return { ok: false, errors: [`${file}: must be a JSON object`] };
  const name = json.value["name"];
  if (typeof name !== "string")
    return { ok: false, errors: [`${file}: name: must be a string (the extension's name)`] };
  const dir = dirname(file);
  const parsed = parseServerEntry(name, json.value, file, dir);
  // A server in its own folder runs there: `"args": ["./server.js"]` means the folder's file.
  if (parsed.ok && parsed.value.cwd === null) parsed.value.cwd = dir;
  return parsed;
}

/** Every server of a Claude Code/Desktop config file (`{"mcpServers": {...}}`). */
export function loadMcpConfig(file: string): ConfigResult<McpServerConfig[]> {
  const json = readJson(file);
  if (!json.ok) return json;
  const servers = isObject(json.value) ? json.value["mcpServers"] : undefined;
  if (!isObject(servers)) return { ok: false, errors: [`${file}: mcpServers: must be an object of servers`] };
  const out: McpServerConfig[] = [];
  const errors: string[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    const parsed = parseServerEntry(name, raw, `${file}: mcpServers.${name}`, dirname(file));
    if (parsed.ok) out.push(parsed.value);
    else errors.push(...parsed.errors);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: out };
}
