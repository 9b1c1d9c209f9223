// The MCP candidate's server: the MCP TypeScript SDK's McpServer over stdio with one echo tool.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "bench-echo", version: "0.1.0" });
server.registerTool(
  "echo",
  { description: "Return the text argument unchanged", inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: "text", text }] }),
);
const blobs = new Map();
server.registerTool(
  "blob",
  { description: "Return a text of the requested number of bytes", inputSchema: { bytes: z.number().int().min(0) } },
  async ({ bytes }) => {
    let text = blobs.get(bytes);
    if (text === undefined) blobs.set(bytes, (text = "x".repeat(bytes)));
    return { content: [{ type: "text", text }] };
  },
);
// wait: polls its request's abort signal every 1 ms until cancelled (the cancellation storm);
// live: the number of wait handlers still running.
let live = 0;
server.registerTool(
  "wait",
  { description: "Wait until cancelled", inputSchema: { max_ms: z.number().int().min(0).optional() } },
  async ({ max_ms }, extra) => {
    live++;
    try {
      const until = Date.now() + (max_ms ?? 30_000);
      while (Date.now() < until) {
        if (extra.signal.aborted) throw new Error("cancelled");
        await new Promise((r) => setTimeout(r, 1));
      }
      return { content: [{ type: "text", text: "not cancelled" }] };
    } finally {
      live--;
    }
  },
);
server.registerTool("live", { description: "The number of wait handlers still running" }, async () => ({
  content: [{ type: "text", text: String(live) }],
}));
await server.connect(new StdioServerTransport());
