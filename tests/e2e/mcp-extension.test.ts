/**
 * MCP servers as octet extensions: examples/mcp-server (written with the MCP SDK's McpServer)
 * through its mcp-server.json and through a Claude-format --mcp-config file, seen by `octet
 * tools`, called by `octet call`, and, behind `octet mcp serve` (a long-running host), with
 * progress and cancellation forwarded both ways, tools/list_changed mapped onto the dynamic
 * catalog, and a server killed mid-call restarted by the supervisor.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { EXAMPLES, processesMentioning, runCli } from "./helpers.js";
import { serve } from "./mcp-helpers.js";

const SERVER = join(EXAMPLES, "mcp-server", "server.mjs");
const text = (r: Record<string, unknown>): string => (r["content"] as { text: string }[]).map((c) => c.text).join("\n");

/** A Claude Code/Desktop config naming the example server as "demo", by its absolute path. */
async function mcpConfig(): Promise<{ file: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "octet-mcp-config-"));
  const file = join(dir, ".mcp.json");
  await writeFile(
    file,
    JSON.stringify({ mcpServers: { demo: { command: process.execPath, args: [SERVER], env: { DEMO: "1" } } } }),
  );
  return { file, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

test("an MCP server's tools are in octet tools and called by octet call (mcp-server.json, --mcp-config)", async () => {
  const flags = ["--extension-dir", EXAMPLES, "--enable-extension", "mcp-demo"];
  const config = await mcpConfig();
  try {
    // Independent runs of the CLI, side by side: each starts and stops its own server.
    const [tools, call, bad, viaConfig, status, broken] = await Promise.all([
      runCli([...flags, "--json", "tools"]),
      runCli([...flags, "call", "echo", '{"text":"from octet"}']),
      runCli([...flags, "call", "echo", '{"text":5}']),
      runCli(["--mcp-config", config.file, "call", "echo", '{"text":"cfg"}']),
      runCli(["--mcp-config", config.file, "--json", "extensions", "status"]),
      runCli(["--mcp-config", join(EXAMPLES, "mcp-server", "mcp-server.json"), "tools"]),
    ]);
    assert.equal(tools.code, 0, tools.stderr);
    const defs = JSON.parse(tools.stdout) as { name: string; extension: string; parameters: Record<string, unknown> }[];
    const echo = defs.find((t) => t.name === "echo");
    assert.equal(echo?.extension, "mcp-demo");
    assert.deepEqual(Object.keys(echo.parameters["properties"] as object), ["text"]);
    assert.ok(defs.some((t) => t.name === "count") && defs.some((t) => t.name === "add_tool"));

    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout, "echo: from octet\n");
    // The host checks arguments against the server's inputSchema before anything is sent.
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /text: must be string/);

    assert.equal(viaConfig.code, 0, viaConfig.stderr);
    assert.equal(viaConfig.stdout, "echo: cfg\n");
    const demo = (JSON.parse(status.stdout) as { name: string; runtime: string; state: string }[]).find(
      (e) => e.name === "demo",
    );
    assert.equal(demo?.state, "ready", status.stdout);
    assert.equal(demo?.runtime, "mcp");
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /mcpServers: must be an object/);
  } finally {
    await config.cleanup();
  }
  assert.deepEqual(processesMentioning(SERVER), []);
});

test("behind mcp serve: progress and cancellation reach the server, list changes and kills are handled", async () => {
  const config = await mcpConfig();
  const s = await serve(["--mcp-config", config.file, "-v"]);
  try {
    // Progress: the server's notifications/progress -> octet $/progress -> the client's.
    const seen: number[] = [];
    const counted = await s.client.callTool({ name: "count", arguments: { steps: 3, delay_ms: 100 } }, undefined, {
      onprogress: (p) => seen.push(p.progress),
    });
    assert.equal(text(counted), "counted to 3");
    // The MCP SDK's Client runs notification handlers a microtask late but settles a response at
    // once: a progress that shares a read with the result is dropped (both hops here). Not all 3, then.
    assert.ok(seen.length >= 1, JSON.stringify(seen));
    assert.deepEqual(seen, [1, 2, 3].slice(0, seen.length));

    // Cancellation: the client's notifications/cancelled -> octet $/cancelRequest -> the server's.
    const controller = new AbortController();
    const long = s.client.callTool({ name: "count", arguments: { steps: 500, delay_ms: 20 } }, undefined, {
      signal: controller.signal,
      onprogress: (p) => p.progress === 2 && controller.abort(),
    });
    await assert.rejects(long, /abort/i);
    await s.waitForStderr("mcp-demo: count cancelled at step");

    // tools/list_changed from the server -> the dynamic catalog -> tools/list_changed to the client.
    await s.client.listTools();
    const changed = new Promise<void>((resolve) =>
      s.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
    );
    assert.equal(
      text(await s.client.callTool({ name: "add_tool", arguments: { name: "ping", reply: "pong" } })),
      "added ping",
    );
    await changed;
    assert.ok((await s.client.listTools()).tools.some((t) => t.name === "ping"));
    assert.equal(text(await s.client.callTool({ name: "ping", arguments: {} })), "pong");

    // An MCP image -> an octet artifact (verified by the host) -> MCP image content again.
    const pixel = await s.client.callTool({ name: "pixel", arguments: {} });
    const image = (pixel["content"] as { type: string; data?: string; mimeType?: string }[])[0];
    assert.equal(image?.type, "image", JSON.stringify(pixel));
    assert.equal(image.mimeType, "image/png");
    assert.equal(Buffer.from(image.data!, "base64").subarray(1, 4).toString(), "PNG");

    // Killed mid-call: the call fails, the supervisor restarts the server, calls work again.
    const running = s.client.callTool({ name: "count", arguments: { steps: 500, delay_ms: 20 } });
    await new Promise((r) => setTimeout(r, 200));
    const pids = processesMentioning(SERVER);
    assert.ok(pids.length > 0);
    for (const pid of pids) process.kill(pid, "SIGKILL");
    const failed = await running;
    assert.equal(failed.isError, true);
    await s.waitForStderr("[demo] restarted", 20_000);
    assert.equal(text(await s.client.callTool({ name: "echo", arguments: { text: "again" } })), "echo: again");
  } finally {
    await s.close();
    await config.cleanup();
  }
});
