// Candidate (c): the MCP TypeScript SDK, Client + StdioClientTransport against mcp-server.mjs.
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const SERVER = fileURLToPath(new URL("./mcp-server.mjs", import.meta.url));

export const name = "mcp";
export const description = "MCP TypeScript SDK client + server over stdio";
/** What the import-time scenario imports in a fresh process: the client and its stdio transport. */
export const importModules = [
  import.meta.resolve("@modelcontextprotocol/sdk/client/index.js"),
  import.meta.resolve("@modelcontextprotocol/sdk/client/stdio.js"),
];

export async function connect({ childCpu }) {
  const transport = new StdioClientTransport({
    command: "taskset",
    args: ["-c", String(childCpu), process.execPath, SERVER],
    stderr: "inherit",
  });
  const client = new Client({ name: "octet-bench", version: "0.1.0" });
  await client.connect(transport);
  return {
    async call(args) {
      const out = await client.callTool({ name: "echo", arguments: args });
      if (out.isError) throw new Error(`echo failed: ${JSON.stringify(out.content)}`);
      return out;
    },
    /** Calls any tool of the server; resolves with the first text part. `signal` cancels the call. */
    async callTool(name, args, { signal } = {}) {
      const out = await client.callTool({ name, arguments: args }, undefined, signal ? { signal } : undefined);
      if (out.isError) throw new Error(`${name} failed: ${JSON.stringify(out.content).slice(0, 200)}`);
      return out.content[0]?.text;
    },
    /** taskset execs node, so the transport's child pid is the server's own. */
    pids() {
      return { host: process.pid, extension: transport.pid };
    },
    async close() {
      await client.close();
    },
  };
}

/** The scale scenario: `count` servers spawned and initialized at once. */
export async function startMany({ childCpu }, count) {
  const conns = await Promise.all(Array.from({ length: count }, () => connect({ childCpu })));
  return { ready: conns.length, close: () => Promise.all(conns.map((c) => c.close())) };
}
