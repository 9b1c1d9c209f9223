/**
 * The MCP bridge is a stand-in child that offers its messages as objects (ForeignMessages), and a
 * host that takes them writes no bytes to its stdin: a byte written there fails the stream with an
 * error that says so. Ending stdin is how the host asks the server to leave: the MCP client is
 * closed. A real MCP Client (never connected) and a real process stand behind the bridge.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createMcpBridge } from "../src/mcp/mcp-bridge.js";

function bridge(): { child: ReturnType<typeof createMcpBridge>["child"]; closed: () => number; end: () => void } {
  const server = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], { stdio: "pipe" });
  const client = new Client({ name: "octet-test", version: "0.0.0" });
  let closes = 0;
  const close = client.close.bind(client);
  client.close = async () => {
    closes++;
    await close();
  };
  const { child } = createMcpBridge({ client, process: server, tools: [], diagnose: () => {} });
  return { child, closed: () => closes, end: () => server.kill("SIGKILL") };
}

test("a byte written to the MCP stand-in's stdin fails it, naming ForeignMessages", async () => {
  const b = bridge();
  try {
    const failed = once(b.child.stdin, "error");
    b.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
    const [err] = (await failed) as [Error];
    assert.match(err.message, /takes the host's messages as objects \(ForeignMessages\), not bytes/);
  } finally {
    b.end();
  }
});

test("ending the MCP stand-in's stdin closes the MCP client (the server is asked to leave)", async () => {
  const b = bridge();
  try {
    assert.equal(b.closed(), 0);
    b.child.stdin.end();
    await once(b.child.stdin, "finish");
    assert.equal(b.closed(), 1);
  } finally {
    b.end();
  }
});
