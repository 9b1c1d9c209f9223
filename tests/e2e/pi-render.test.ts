// pi's renderers and console through the real host and QuickJS (issue 17, items 6 and 7): a pi .ts
// extension's renderCall/renderResult built from pi-tui's Text, Box and Container answer octet's
// tool/render as text; console.log in the extension's source reaches its diagnostics while the
// runtime keeps no console global (QJS-17).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { ROOT, runCli } from "./helpers.js";

const RENDERED = `import { Type } from "@sinclair/typebox";
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Box, Container, Spacer, Text } from "@mariozechner/pi-tui";

console.log("loading %s at %d%%", "tools", 50.5, { tools: 2 });

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: "todo",
    label: "Todo",
    description: "adds a todo",
    parameters: Type.Object({ text: Type.String() }),
    async execute(_id: string, args: { text: string }) {
      console.warn("adding", args.text);
      return { content: [{ type: "text", text: "added" }], details: { count: 3, text: args.text } };
    },
    renderCall(args: { text: string }, theme: any) {
      return new Text(theme.fg("toolTitle", theme.bold("todo ")) + args.text, 0, 0);
    },
    renderResult(result: any, _options: any, theme: any) {
      const box = new Container();
      const d = result.details;
      const summary = d ? d.count + " todos, last: " + d.text : "no details";
      box.addChild(new Text(theme.fg("success", "✓ ") + summary, 0, 0));
      box.addChild(new Spacer(1));
      const inner = new Box(2, 0);
      inner.addChild(new Text("word ".repeat(30).trim(), 0, 0));
      box.addChild(inner);
      return box;
    },
  });
  pi.registerTool({
    name: "plain",
    description: "no renderer",
    parameters: Type.Object({}),
    async execute() {
      return { content: [{ type: "text", text: "p" }] };
    },
  });
  pi.registerTool({
    name: "broken",
    description: "a renderer that throws",
    parameters: Type.Object({}),
    async execute() {
      return { content: [{ type: "text", text: "b" }] };
    },
    renderResult() {
      throw new Error("renderer bug");
    },
  });
  pi.registerTool({
    name: "probe",
    description: "reads the globals",
    parameters: Type.Object({}),
    async execute() {
      const g = globalThis as any;
      const text = typeof g.console + " " + typeof g.__octet_console + " " + typeof console;
      return { content: [{ type: "text", text }] };
    },
  });
}
`;

async function withHost(fn: (host: ExtensionHost, events: HostEvent[]) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-pi-render-"));
  await writeFile(join(dir, "todos.ts"), RENDERED);
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: dir,
    octetHome: join(dir, "home"),
    enable: ["todos"],
    runtimes: [
      rpiRuntime({ piExtensions: ["todos.ts"], piCacheDir: join(dir, "cache"), timeouts: { handshakeMs: 30_000 } }),
    ],
    onEvent: (e) => events.push(e),
  });
  try {
    await fn(host, events);
  } finally {
    await host.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}

const diagnostics = (events: HostEvent[]): string[] =>
  events.flatMap((e) => (e.type === "diagnostic" ? [`${e.level}: ${e.message}`] : []));

test("pi renderCall/renderResult of pi-tui Text, Box and Container answer tool/render as text", async () => {
  await withHost(async (host) => {
    const s = host.status().find((x) => x.name === "todos");
    assert.equal(s?.state, "ready", s?.lastError ?? "");
    const r = await host.callTool("todo", { text: "milk" });
    assert.equal(r.text, "added");
    const segments = await host.renderTool({
      name: "todo",
      arguments: { text: "milk" },
      output: r.text,
      isError: false,
    });
    assert.ok(segments !== null, "the tool declared a renderer");
    const text = segments.map((x) => x.text).join("");
    const lines = text.split("\n");
    assert.equal(lines[0], "todo milk", "renderCall's line, the theme plain");
    // theme.fg(color, text) comes out as the style role "pi.<color>"; the rest of renderCall's text is "pi.call".
    assert.deepEqual(segments.slice(0, 3), [
      { text: "todo ", style_role: "pi.toolTitle" },
      { text: "milk\n", style_role: "pi.call" },
      { text: "✓ ", style_role: "pi.success" },
    ]);
    assert.equal(segments[3]?.style_role, null);
    assert.equal(lines[1], "✓ 3 todos, last: milk", "renderResult reads the details of the call's result");
    assert.equal(lines[2], "", "the Spacer");
    // The Box's Text wraps at the render width less the Box's padding of 2 on each side.
    const wrapped = lines.slice(3);
    assert.ok(wrapped.length >= 2, text);
    for (const line of wrapped) {
      assert.match(line, /^ {2}word( word)*$/);
      assert.ok(line.length <= 96 - 2, `${line.length} cells`);
    }
    assert.equal(wrapped.join(" ").replace(/\s+/g, " ").trim(), "word ".repeat(30).trim());
  });
});

test("the same renderers in the Node runtime render with pi's own pi-tui components", { timeout: 60_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), "octet-pi-render-node-"));
  const dir = join(root, "todos-node");
  await mkdir(dir);
  // A manifest entry is JavaScript; the bundler loads the TypeScript it imports.
  await writeFile(join(dir, "todos.ts"), RENDERED);
  await writeFile(join(dir, "index.mjs"), 'export { default } from "./todos.ts";\n');
  const manifest = {
    schemaVersion: 1,
    id: "todos-node",
    runtime: "node",
    entry: "./index.mjs",
    capabilities: ["tools"],
  };
  await writeFile(join(dir, "pi-extension.json"), JSON.stringify(manifest));
  const host = await ExtensionHost.start({
    workspace: root,
    octetHome: join(root, "home"),
    extensionDirs: [root],
    enable: ["todos-node"],
    runtimes: [rpiRuntime({ piCacheDir: join(root, "cache"), timeouts: { handshakeMs: 30_000 } })],
    onEvent: () => {},
  });
  try {
    const s = host.status().find((x) => x.name === "todos-node");
    assert.equal(s?.state, "ready", s?.lastError ?? "");
    const r = await host.callTool("todo", { text: "tea" });
    const segments = await host.renderTool({
      name: "todo",
      arguments: { text: "tea" },
      output: r.text,
      isError: false,
    });
    const lines = (segments ?? [])
      .map((x) => x.text)
      .join("")
      .split("\n");
    assert.deepEqual(lines.slice(0, 3), ["todo tea", "✓ 3 todos, last: tea", ""]);
    for (const line of lines.slice(3)) assert.match(line, /^ {2}word( word)*$/);
  } finally {
    await host.shutdown();
    await rm(root, { recursive: true, force: true });
  }
});

test("tool/render: a tool without a renderer is not asked; a renderer that throws falls back (REND-03)", async () => {
  await withHost(async (host, events) => {
    assert.equal(await host.renderTool({ name: "plain", arguments: {}, output: "p", isError: false }), null);
    assert.equal(await host.renderTool({ name: "broken", arguments: {}, output: "b", isError: false }), null);
    assert.ok(
      diagnostics(events).some((d) => /tool\/render/.test(d) && /renderer bug/.test(d)),
      diagnostics(events).join("\n"),
    );
    const s = host.status().find((x) => x.name === "todos");
    assert.equal(s?.state, "ready", "a failed render leaves the extension serving");
  });
});

test("QJS-17: console in a pi extension's source logs to its diagnostics; no console global", async () => {
  await withHost(async (host, events) => {
    const probe = await host.callTool("probe", {});
    assert.equal(probe.text, "undefined undefined object");
    await host.callTool("todo", { text: "eggs" });
    const said = diagnostics(events);
    assert.ok(
      said.some((d) => /^info: .*loading tools at 50% \{"tools":2\}$/.test(d)),
      said.join("\n"),
    );
    assert.ok(
      said.some((d) => /^warning: .*adding eggs/.test(d)),
      said.join("\n"),
    );
  });
});

test("octet run draws a pi tool's renderCall and renderResult lines when the model calls it", {
  timeout: 90_000,
}, async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({
    script: [{ tool_calls: [{ name: "todo", arguments: { text: "milk" } }] }, { text: "all done" }],
  })) as { url: string; close(): Promise<void> };
  const dir = await mkdtemp(join(tmpdir(), "octet-pi-render-cli-"));
  try {
    await writeFile(join(dir, "todos.ts"), RENDERED);
    await writeFile(join(dir, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
    const r = await runCli(
      [
        ...["--model", "scripted/scripted-model", "--workspace", dir, "--yes"],
        ...["--pi-extension", join(dir, "todos.ts"), "run", "add milk"],
      ],
      { env: { OCTET_HOME: dir }, timeoutMs: 80_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /all done/);
    // The result body: renderCall's line, then renderResult's, under the CLI's 4-cell indent.
    assert.match(r.stderr, /✓ todo milk\n {4}✓ 3 todos, last: milk\n/, r.stderr);
    assert.doesNotMatch(r.stderr, /✓ added/, "the plain output is replaced by the renderer's");
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("the shell's /call over a pipe prints a pi tool's rendered lines", { timeout: 60_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "octet-pi-render-shell-"));
  try {
    await writeFile(join(dir, "todos.ts"), RENDERED);
    const r = await runCli(["--workspace", dir, "--pi-extension", join(dir, "todos.ts")], {
      input: '/call todo {"text":"bread"}\n/call plain {}\n/quit\n',
      env: { OCTET_HOME: dir },
      timeoutMs: 50_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /todo bread\n✓ 3 todos, last: bread\n\n {2}word word/);
    assert.match(r.stdout, /> p\n/, "a tool without a renderer prints its text");
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
