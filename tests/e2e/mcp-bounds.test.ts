/**
 * FRAME-09 for an MCP server behind the host: nothing past the MCP bridge bounds what a server
 * returns (the MCP SDK reads any size), so the bridge holds its answers to octet's frame bound as
 * a frame would be held, even though they reach the host as objects (ForeignMessages).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_FRAME_BYTES } from "@octet/protocol";
import { ROOT, processesMentioning, runCli } from "./helpers.js";

const SDK = join(ROOT, "node_modules", "@modelcontextprotocol", "sdk", "dist", "esm");

test("FRAME-09: an MCP result past the frame bound is an error result naming the sizes; one under works", async () => {
  const dir = await mkdtemp(join(tmpdir(), "octet-mcp-bounds-"));
  // One server per size: each answers a text of that many ASCII characters. The host's tool/call
  // result around the text is about 60 bytes: 4 KiB under the bound is well under, one past is over.
  const sizes = { under: MAX_FRAME_BYTES - 4096, over: MAX_FRAME_BYTES + 1 };
  try {
    for (const [name, bytes] of Object.entries(sizes)) {
      await mkdir(join(dir, name));
      await writeFile(
        join(dir, name, "mcp-server.json"),
        JSON.stringify({ name, version: "0.1.0", command: process.execPath, args: ["./server.mjs"] }),
      );
      await writeFile(
        join(dir, name, "server.mjs"),
        `import { McpServer } from ${JSON.stringify(join(SDK, "server", "mcp.js"))};
import { StdioServerTransport } from ${JSON.stringify(join(SDK, "server", "stdio.js"))};
const server = new McpServer({ name: ${JSON.stringify(name)}, version: "0.1.0" });
server.registerTool("blob_${name}", { description: "Answers ${bytes} x's" }, async () => ({
  content: [{ type: "text", text: "x".repeat(${bytes}) }],
}));
await server.connect(new StdioServerTransport());
`,
      );
    }
    const run = (name: string) =>
      runCli(["--extension-dir", dir, "--enable-extension", name, "call", `blob_${name}`], { timeoutMs: 60_000 });
    const [under, over] = await Promise.all([run("under"), run("over")]);
    assert.equal(under.code, 0, under.stderr);
    assert.equal(under.stdout.length, sizes.under + 1);
    assert.equal(over.code, 1, over.stderr);
    assert.match(
      over.stdout + over.stderr,
      new RegExp(`could not be sent: outbound frame is \\d+ bytes, over the ${MAX_FRAME_BYTES}-byte limit`),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.deepEqual(processesMentioning(dir), []);
});
