/**
 * `octet mcp serve` against the official MCP SDK's Client over a real stdio child: the examples'
 * extensions listed and called as MCP tools, progress as MCP progress, confirmations and inputs
 * as elicitation (and refused without it), artifacts as image content, dynamic tools as
 * tools/list_changed, commands as prompts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type ElicitRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { EXAMPLES } from "./helpers.js";
import { serve } from "./mcp-helpers.js";

const flags = (...names: string[]) => ["--extension-dir", EXAMPLES, ...names.flatMap((n) => ["--enable-extension", n])];

test("mcp serve: an MCP client lists hello-world's tool and prompt and calls them", async () => {
  const s = await serve(flags("hello-world"));
  try {
    const { tools } = await s.client.listTools();
    const hello = tools.find((t) => t.name === "hello_world");
    assert.ok(hello, JSON.stringify(tools));
    assert.equal(hello.inputSchema.type, "object");
    assert.ok(hello.description);
    const r = await s.client.callTool({ name: "hello_world", arguments: { name: "mcp" } });
    assert.equal(r.isError, false);
    assert.match((r.content as { text: string }[])[0]!.text, /Hello, mcp!/);
    const bad = await s.client.callTool({ name: "no_such_tool", arguments: {} });
    assert.equal(bad.isError, true);
    assert.match((bad.content as { text: string }[])[0]!.text, /no_such_tool/);
    const { prompts } = await s.client.listPrompts();
    assert.ok(
      prompts.some((p) => p.name === "hello"),
      JSON.stringify(prompts),
    );
    const prompt = await s.client.getPrompt({ name: "hello", arguments: { args: "there" } });
    assert.equal(prompt.messages[0]?.role, "user");
  } finally {
    await s.close();
  }
});

test("mcp serve: progress becomes MCP progress and the confirmation and input are elicited", async () => {
  const s = await serve(flags("long-task"), { capabilities: { elicitation: {} } });
  const asked: ElicitRequest["params"][] = [];
  s.client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params);
    const props = (request.params as { requestedSchema: { properties: Record<string, unknown> } }).requestedSchema
      .properties;
    return { action: "accept", content: "confirm" in props ? { confirm: true } : { value: "nightly" } };
  });
  try {
    const progress: { progress: number; total?: number | undefined; message?: string | undefined }[] = [];
    const r = await s.client.callTool({ name: "long_task", arguments: { steps: 3, step_ms: 150 } }, undefined, {
      onprogress: (p) => progress.push(p),
    });
    assert.equal(r.isError, false, JSON.stringify(r));
    assert.deepEqual(r.structuredContent, { completed: 3, steps: 3, label: "nightly" });
    assert.equal(asked.length, 2, JSON.stringify(asked));
    assert.match(asked[0]!.message, /Run a long task of 3 steps\?/);
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.ok(
      progress.some((p) => p.message?.includes("(nightly)")),
      JSON.stringify(progress),
    );
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.progress > progress[i - 1]!.progress);
  } finally {
    await s.close();
  }
});

test("mcp serve: without the elicitation capability the confirmation is denied", async () => {
  const s = await serve(flags("long-task"));
  try {
    const r = await s.client.callTool({ name: "long_task", arguments: { steps: 2, step_ms: 10 } });
    assert.match((r.content as { text: string }[])[0]!.text, /not confirmed/);
    assert.deepEqual(r.structuredContent, { completed: 0, steps: 2, label: null });
    assert.match(s.stderr(), /denied \(the MCP client cannot be asked\)/);
  } finally {
    await s.close();
  }
});

test("mcp serve: an artifact becomes image content, a new dynamic tool tools/list_changed", async () => {
  const s = await serve(flags("media", "dynamic-tools"));
  try {
    const img = await s.client.callTool({ name: "gradient_png", arguments: { width: 8, height: 4 } });
    const part = (img.content as { type: string; data?: string; mimeType?: string }[]).find((c) => c.type === "image");
    assert.ok(part, JSON.stringify(img.content));
    assert.equal(part.mimeType, "image/png");
    assert.deepEqual([...Buffer.from(part.data!, "base64").subarray(1, 4)], [...Buffer.from("PNG")]);

    await s.client.listTools();
    const changed = new Promise<void>((resolve) =>
      s.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve()),
    );
    const reg = await s.client.callTool({ name: "register", arguments: { tools: [{ name: "greet", reply: "hi" }] } });
    assert.equal(reg.isError, false, JSON.stringify(reg));
    await changed;
    const { tools } = await s.client.listTools();
    assert.ok(tools.some((t) => t.name === "greet"));
    const hi = await s.client.callTool({ name: "greet", arguments: {} });
    assert.equal((hi.content as { text: string }[])[0]!.text, "hi");
  } finally {
    await s.close();
  }
});
