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
await server.connect(new StdioServerTransport());
