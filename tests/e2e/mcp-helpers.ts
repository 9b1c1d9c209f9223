/**
 * The MCP SDK's own Client against `octet mcp serve` run as a real stdio child (the built CLI),
 * as Claude Code or the MCP Inspector would start it. stderr is kept for the assertions.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type ClientOptions } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CLI, ROOT } from "./helpers.js";

export interface Served {
  client: Client;
  stderr(): string;
  /** Resolves once stderr holds `needle` (rejects after `ms`, showing what it holds). */
  waitForStderr(needle: string, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function serve(flags: string[], options: ClientOptions = {}): Promise<Served> {
  const home = await mkdtemp(join(tmpdir(), "octet-mcp-home-"));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "serve", ...flags],
    cwd: ROOT,
    env: { ...getDefaultEnvironment(), NO_COLOR: "1", OCTET_HOME: home },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString("utf8")));
  const client = new Client({ name: "octet-test", version: "1.0.0" }, options);
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    waitForStderr: (needle, ms = 10_000) =>
      new Promise((resolve, reject) => {
        const started = Date.now();
        const poll = (): void => {
          if (stderr.includes(needle)) return resolve();
          if (Date.now() - started > ms)
            return reject(new Error(`no "${needle}" on stderr within ${ms} ms:\n${stderr}`));
          setTimeout(poll, 25);
        };
        poll();
      }),
    close: () => client.close(),
  };
}
