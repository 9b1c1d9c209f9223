// An MCP stdio server written with the official MCP TypeScript SDK, run by octet as an extension
// (mcp-server.json beside it). Try it:
//   octet --extension-dir examples --enable-extension mcp-demo tools
//   octet --extension-dir examples --enable-extension mcp-demo call echo '{"text":"hi"}'
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import * as z from "zod";

const server = new McpServer({ name: "mcp-demo", version: "0.1.0" });
const sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), reject(new Error("cancelled"))), { once: true });
  });

server.registerTool(
  "echo",
  { description: "Answers the text it is given", inputSchema: { text: z.string().describe("what to echo") } },
  async ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
);

server.registerTool(
  "count",
  {
    description: "Counts to `steps`, one step every `delay_ms`, reporting progress; stops when cancelled",
    inputSchema: { steps: z.number().int().min(1).max(1000), delay_ms: z.number().int().min(0).max(10000).optional() },
  },
  async ({ steps, delay_ms }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= steps; i++) {
      try {
        await sleep(delay_ms ?? 20, extra.signal);
      } catch (err) {
        console.error(`mcp-demo: count cancelled at step ${i}`);
        throw err;
      }
      if (token !== undefined)
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
        });
    }
    return { content: [{ type: "text", text: `counted to ${steps}` }] };
  },
);

server.registerTool(
  "add_tool",
  {
    description: "Adds a tool NAME that answers REPLY (the server sends tools/list_changed)",
    inputSchema: { name: z.string(), reply: z.string() },
  },
  async ({ name, reply }) => {
    server.registerTool(name, { description: `Answers ${JSON.stringify(reply)}` }, async () => ({
      content: [{ type: "text", text: reply }],
    }));
    return { content: [{ type: "text", text: `added ${name}` }] };
  },
);

// A 1x1 PNG: MCP image content becomes an octet artifact (octet call saves it, mcp serve passes it on).
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
server.registerTool("pixel", { description: "Answers a 1x1 PNG image" }, async () => ({
  content: [
    { type: "image", data: PIXEL, mimeType: "image/png" },
    { type: "text", text: "one pixel" },
  ],
}));

// exit(), not kill(pid, "SIGKILL"): in octet's PID namespace the server may be its init, which ignores that.
server.registerTool("crash", { description: "Ends this server's process at once (for supervision demos)" }, async () =>
  process.exit(70),
);

await server.connect(new StdioServerTransport());
console.error("mcp-demo: serving on stdio");
