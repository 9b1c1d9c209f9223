/**
 * The pure halves of the MCP bridge: server configs (Claude's .mcp.json and mcp-server.json,
 * read from real files), MCP tools and results as octet's, octet progress as MCP's.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadMcpConfig, loadServerManifest } from "../src/mcp/server-config.js";
import { octetResult, octetToolName, octetTools } from "../src/mcp/mcp-results.js";
import { ProgressMapper } from "../src/mcp/serve-mapping.js";

async function withFile(name: string, content: string, body: (file: string) => void): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-mcp-unit-"));
  try {
    const file = join(dir, name);
    await writeFile(file, content);
    body(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test("a Claude-format .mcp.json gives one server per entry; a bad entry is named with its key", async () => {
  const good = { mcpServers: { fs: { command: "npx", args: ["-y", "server"], env: { A: "1" } }, b: { command: "b" } } };
  await withFile(".mcp.json", JSON.stringify(good), (file) => {
    const r = loadMcpConfig(file);
    assert.ok(r.ok);
    assert.deepEqual(
      r.value.map((s) => [s.name, s.command, s.args, s.env, s.cwd]),
      [
        ["fs", "npx", ["-y", "server"], { A: "1" }, null],
        ["b", "b", [], {}, null],
      ],
    );
  });
  const bad = { mcpServers: { Bad_Name: { command: "x" }, web: { type: "http", url: "http://x" }, n: { command: 3 } } };
  await withFile(".mcp.json", JSON.stringify(bad), (file) => {
    const r = loadMcpConfig(file);
    assert.ok(!r.ok);
    const text = r.errors.join("\n");
    assert.match(text, /mcpServers\.Bad_Name: the name "Bad_Name" must be/);
    assert.match(text, /mcpServers\.web\.type: "http" is not supported/);
    assert.match(text, /mcpServers\.n\.command: must be a non-empty string/);
  });
  await withFile(".mcp.json", "{oops", (file) => {
    const r = loadMcpConfig(file);
    assert.ok(!r.ok);
    assert.match(r.errors[0] ?? "", /\.mcp\.json: not JSON/);
  });
});

test("mcp-server.json runs its server in its own folder", async () => {
  await withFile("mcp-server.json", JSON.stringify({ name: "demo", command: "node", args: ["./s.mjs"] }), (file) => {
    const r = loadServerManifest(file);
    assert.ok(r.ok);
    assert.equal(r.value.cwd, join(file, ".."));
    assert.equal(r.value.version, "0.0.0");
  });
});

test("MCP tool names fit octet's rule; a clash keeps the first and says so", () => {
  assert.equal(octetToolName("files.read/all"), "files_read_all");
  const warnings: string[] = [];
  const tools = octetTools(
    [
      { name: "a.b", inputSchema: { type: "object" } },
      { name: "a_b", description: "second", inputSchema: { type: "object" } },
      { name: "c", title: "C tool", inputSchema: {}, outputSchema: { type: "object" } },
    ],
    (m) => warnings.push(m),
  );
  assert.deepEqual([...tools.keys()], ["a_b", "c"]);
  assert.equal(tools.get("a_b")?.mcp, "a.b");
  assert.equal(tools.get("c")?.def.description, "C tool");
  assert.deepEqual(tools.get("c")?.def.parameters, { type: "object" });
  assert.match(warnings[0] ?? "", /"a\.b" and "a_b" are both "a_b"/);
});

test("MCP results become octet results: media named, structured content kept unless an error", async () => {
  const r = await octetResult({
    content: [
      { type: "text", text: "hi" },
      { type: "image", mimeType: "image/png", data: "AAAA" },
      { type: "resource_link", name: "doc", uri: "file:///d" },
    ],
    structuredContent: { n: 1 },
  });
  assert.deepEqual(r, {
    content: [
      { type: "text", text: "hi" },
      { type: "text", text: "[image image/png, 3 bytes: not shown]" },
      { type: "text", text: "[resource doc: file:///d]" },
    ],
    is_error: false,
    structured_content: { n: 1 },
  });
  assert.deepEqual(await octetResult({ content: [], structuredContent: { n: 2 }, isError: true }), {
    content: [{ type: "text", text: '{"n":2}' }],
    is_error: true,
  });
});

test("MCP media the host took as an artifact becomes an image part, with a text part beside it", async () => {
  const published: string[] = [];
  const r = await octetResult({ content: [{ type: "image", mimeType: "image/png", data: "AAAA" }] }, async (m, d) => {
    published.push(`${m} ${d}`);
    return "art-1";
  });
  assert.deepEqual(published, ["image/png AAAA"]);
  assert.deepEqual(r.content, [
    { type: "image", artifact_id: "art-1", mime_type: "image/png" },
    { type: "text", text: "" },
  ]);
});

test("octet progress becomes increasing MCP progress; decoration is not progress", () => {
  const m = new ProgressMapper();
  assert.deepEqual(m.map({ type: "status", message: "a", current: 0, total: 3 }), {
    progress: 1,
    total: 3,
    message: "a",
  });
  assert.deepEqual(m.map({ type: "status", message: "b", current: 2, total: 3 }), {
    progress: 2,
    total: 3,
    message: "b",
  });
  assert.deepEqual(m.map({ type: "output", stream: "stdout", encoding: "utf8", data: "line\n" }), {
    progress: 3,
    message: "[stdout] line",
  });
  assert.equal(m.map({ type: "decoration", text: "x" } as never), null);
});
