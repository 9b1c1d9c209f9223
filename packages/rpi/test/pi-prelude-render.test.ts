// pi's renderers as text inside QuickJS (prelude/render.ts), on real bundles with the pi-tui shim:
// the render invocation for messages and tools, pi's shipped message-renderer example, the
// refusals; and console in a bundle (QJS-17 keeps the global away).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundlePiExtension, parseExtensionFrame } from "../src/index.js";
import { PreludeHarness, err, invoke, loaded, ok } from "./helpers/quickjs-harness.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..");
const EXAMPLES = join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions");
const cacheDir = mkdtempSync(join(tmpdir(), "octet-pi-render-cache-"));

async function bundled(packageDir: string, entry: string): Promise<string> {
  return (await bundlePiExtension({ packageDir, entry, target: "quickjs", cacheDir })).code;
}
async function bundledText(source: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "octet-pi-render-"));
  writeFileSync(join(dir, "index.ts"), source);
  return bundled(dir, "index.ts");
}
const message = (id: string, customType: string, extra: object = {}): object =>
  invoke(id, { kind: "render", target: "message", message: { customType, content: "hello", ...extra } });

test("pi's shipped message-renderer example: its Box and Text render the custom message as lines", async () => {
  const { h, load } = await loaded(await bundled(EXAMPLES, "message-renderer.ts"), {
    capabilities: ["commands", "ui"],
  });
  try {
    assert.deepEqual(
      load.map((f) => f.type),
      ["hello", "register", "response"],
    );
    h.send(message("req-2", "status-update", { details: { level: "warn", timestamp: 0 } }));
    h.send(message("req-3", "status-update"));
    h.send(message("req-4", "other-type"));
    assert.deepEqual(h.take(), [
      ok("req-2", { lines: ["", " [WARN] hello", ""] }),
      ok("req-3", { lines: ["", " [INFO] hello", ""] }),
      ok("req-4", { lines: null }),
    ]);
  } finally {
    h.dispose();
  }
});

test("registerMessageRenderer needs the ui (or message_renderers) capability and a function", async () => {
  const source = await bundledText(`
    export default function (pi: any) {
      const said: string[] = [];
      const attempts = [() => pi.registerMessageRenderer("t", () => null), () => pi.registerMessageRenderer("", 1)];
      for (const f of attempts)
        try { f(); said.push("ok"); } catch (e) { said.push((e as Error).message); }
      (globalThis as any).said = said;
    }`);
  const bare = await PreludeHarness.start(source, {});
  try {
    bare.handshake();
    assert.deepEqual(bare.evaluate("globalThis.said"), [
      'pi.registerMessageRenderer needs the "ui" capability; add it to "capabilities" in pi-extension.json',
      'pi.registerMessageRenderer needs the "ui" capability; add it to "capabilities" in pi-extension.json',
    ]);
  } finally {
    bare.dispose();
  }
  const granted = await PreludeHarness.start(source, { capabilities: ["ui"] });
  try {
    granted.handshake();
    assert.deepEqual(granted.evaluate("globalThis.said"), [
      "ok",
      "pi.registerMessageRenderer: the customType must be a non-empty string",
    ]);
  } finally {
    granted.dispose();
  }
});

test("tool renders: renderCall alone answers {call, result: null}; a non-component, a throw are errors", async () => {
  const source = await bundledText(`
    import { Text, TruncatedText, Markdown } from "@mariozechner/pi-tui";
    export default function (pi: any) {
      pi.registerTool({ name: "a", description: "a", execute: async () => "a",
        renderCall: (args: any, theme: any) =>
          new TruncatedText(theme.bold("call ") + args.x + " " + "y".repeat(200), 1, 0) });
      pi.registerTool({ name: "b", description: "b", execute: async () => "b",
        renderResult: (result: any, o: any) =>
          new Markdown("# " + result.content[0].text + (o.expanded ? "!" : ""), 0, 0) });
      pi.registerTool({ name: "c", description: "c", execute: async () => "c", renderResult: () => 42 });
      pi.registerTool({ name: "d", description: "d", execute: async () => "d", renderCall: () => undefined,
        renderResult: () => { throw new TypeError("bad state"); } });
    }`);
  const { h, load } = await loaded(source, { capabilities: ["tools"] });
  try {
    const tools = load.filter((f) => f.type === "register").map((f) => f["registration"]) as { tool: object }[];
    assert.ok(tools.every((t) => (t.tool as { renderer?: boolean }).renderer === true));
    const tool = (id: string, name: string, extra: object = {}): object =>
      invoke(id, {
        kind: "render",
        target: "tool",
        name,
        arguments: { x: 1 },
        result: { content: [{ type: "text", text: "out" }], isError: false },
        width: 40,
        ...extra,
      });
    h.send(tool("req-2", "a"));
    h.send(tool("req-3", "b", { expanded: true }));
    h.send(tool("req-4", "c"));
    h.send(tool("req-5", "d"));
    h.send(tool("req-6", "zzz"));
    assert.deepEqual(h.take(), [
      ok("req-2", { call: [` call 1 ${"y".repeat(28)}...`], result: null }),
      ok("req-3", { call: null, result: ["# out!"] }),
      err(
        "req-4",
        'TypeError: the renderResult of tool "c" returned a number that is not a component (render(width) must ' +
          "return an array of strings)",
      ),
      err("req-5", "TypeError: bad state"),
      err("req-6", 'unknown tool "zzz"'),
    ]);
  } finally {
    h.dispose();
  }
});

test("QJS-17: a bundle's console logs as log frames; no console global before or after the entry ran", async () => {
  const source = await bundledText(`
    const before = typeof (globalThis as any).console;
    console.log("top", 1, [2]);
    export default function (pi: any) {
      console.error(new TypeError("boom"));
      console.assert(1 + 1 === 3, "math");
      console.group("ignored");
      (globalThis as any).seen = [before, typeof console];
    }`);
  const { h, load } = await loaded(source);
  try {
    const logs = load.filter((f) => f.type === "log") as unknown as { level: string; message: string }[];
    assert.deepEqual(logs[0], { type: "log", level: "info", message: "top 1 [2]" });
    assert.equal(logs[1]?.level, "error");
    assert.match(logs[1]?.message ?? "", /^TypeError: boom\n/);
    assert.deepEqual(logs[2], { type: "log", level: "error", message: "Assertion failed: math" });
    assert.equal(logs.length, 3);
    assert.deepEqual(h.evaluate("globalThis.seen"), ["undefined", "object"]);
    assert.equal(
      h.evaluate("typeof globalThis.console + ' ' + typeof globalThis.__octet_console"),
      "undefined undefined",
    );
  } finally {
    h.dispose();
  }
});

test("a tool registration's renderer flag is read as a boolean; anything else is a protocol violation", () => {
  const tool = (renderer: unknown): unknown => ({
    type: "register",
    registration: { kind: "tool", tool: { name: "t", description: "", parameters: {}, renderer } },
  });
  const parsed = parseExtensionFrame(tool(true));
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.frame, {
    type: "register",
    registration: { kind: "tool", tool: { name: "t", description: "", parameters: {}, renderer: true } },
  });
  const plain = parseExtensionFrame(tool(false));
  assert.ok(plain.ok && plain.frame.type === "register" && plain.frame.registration.kind === "tool");
  assert.equal(plain.frame.registration.tool.renderer, undefined);
  assert.deepEqual(parseExtensionFrame(tool("yes")), {
    ok: false,
    problem: 'registration.tool.renderer must be a boolean (got "yes")',
  });
});
