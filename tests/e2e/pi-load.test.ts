// pi extensions loaded by path, as pi loads them, through the real host and QuickJS: TypeScript
// with typebox and pi's packages, the pi-tui refusal naming the component, and failures that name
// the source file and line (the bundle's source map).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { ROOT, runCli } from "./helpers.js";

const TOOLS = `import { Type } from "@sinclair/typebox";
import { StringEnum } from "@mariozechner/pi-ai";
import { defineTool, VERSION, type ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { SelectList, truncateToWidth, visibleWidth } from "@mariozechner/pi-tui";

interface Args { mood: "calm" | "loud"; name: string }

export default function (pi: ExtensionAPI) {
  pi.registerTool(defineTool({
    name: "greet",
    label: "Greet",
    description: "greets",
    parameters: Type.Object({ mood: StringEnum(["calm", "loud"] as const), name: Type.String() }),
    async execute(_id: string, args: Args) {
      const text = args.mood === "loud" ? args.name.toUpperCase() : args.name;
      const shown = truncateToWidth(text + " " + VERSION, 12) + "|" + visibleWidth("ab");
      return { content: [{ type: "text", text: shown }] };
    },
  }));
  pi.registerTool({
    name: "render",
    label: "Render",
    description: "uses a pi-tui component",
    parameters: Type.Object({}),
    async execute() {
      return { content: [{ type: "text", text: String(new SelectList([], 5)) }] };
    },
  });
}
`;

async function withHost(
  files: Record<string, string>,
  paths: string[],
  fn: (host: ExtensionHost) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-pi-load-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  const host = await ExtensionHost.start({
    workspace: dir,
    octetHome: join(dir, "home"),
    enable: paths.map((p) => p.replace(/\.ts$/, "").replace(/.*\//, "")),
    runtimes: [rpiRuntime({ piExtensions: paths, piCacheDir: join(dir, "cache"), timeouts: { handshakeMs: 30_000 } })],
    onEvent: () => {},
  });
  try {
    await fn(host);
  } finally {
    await host.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}

test("a pi .ts extension named by path runs in QuickJS with typebox, StringEnum and pi's helpers", async () => {
  await withHost({ "greeter.ts": TOOLS }, ["greeter.ts"], async (host) => {
    const s = host.status().find((x) => x.name === "greeter");
    assert.equal(s?.state, "ready", s?.lastError ?? "");
    assert.equal(s?.runtime, "quickjs");
    assert.deepEqual(s?.tools.sort(), ["greet", "render"]);
    const r = await host.callTool("greet", { mood: "loud", name: "ada" });
    assert.equal(r.text, "ADA 0.73.1|2");
    const long = await host.callTool("greet", { mood: "calm", name: "a very long name" });
    assert.equal(long.text, "a very lo...|2");
  });
});

test("a pi-tui component used by a QuickJS extension is a clean refusal naming it", async () => {
  await withHost({ "greeter.ts": TOOLS }, ["greeter.ts"], async (host) => {
    const r = await host.callTool("render", {}).then(
      (ok) => JSON.stringify(ok),
      (e: Error) => e.message,
    );
    assert.match(r, /octet cannot render the pi-tui component \\?"SelectList\\?" \(no terminal UI component API\)/);
    const again = await host.callTool("greet", { mood: "calm", name: "ok" });
    assert.match(again.text, /^ok /, "the extension keeps serving after the refusal");
  });
});

test("a pi extension that fails to load names its source file and line, in the bundle and at run time", async () => {
  const files = {
    "syntax/index.ts": `export default function (pi: any) {\n  const x: number = ;\n}\n`,
    "throws/index.ts":
      `import { Type } from "typebox";\nconst schema = Type.Object({});\n\n` +
      `function boom(): never {\n  throw new Error("no " + Object.keys(schema).length);\n}\nboom();\n` +
      `export default function () {}\n`,
    "fs/index.ts": `import { readFileSync } from "node:fs";\nexport default function () { readFileSync; }\n`,
    "proc/index.ts": `export default function () { const cwd = process.cwd(); }\n`,
  };
  await withHost(files, ["syntax", "throws", "fs", "proc"], async (host) => {
    const error = (name: string): string => host.status().find((x) => x.name === name)?.lastError ?? "";
    assert.match(error("syntax"), /the pi extension \.\/index\.ts failed to load: index\.ts:2:21: Unexpected ";"/);
    assert.match(error("throws"), /the entry failed to load: Error: no \d+ \(at \.\/index\.ts:5:\d+\)/);
    assert.match(error("fs"), /import "node:fs" from \.\/index\.ts: only relative imports/);
    assert.match(error("proc"), /octet cannot provide the Node global "process" \(process\.cwd\) in QuickJS/);
  });
});

test("octet --pi-extension PATH runs pi's shipped hello.ts in one command; a missing path is a usage error", {
  timeout: 80_000,
}, async () => {
  const hello = join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions", "hello.ts");
  const home = await mkdtemp(join(tmpdir(), "octet-pi-cli-"));
  try {
    const r = await runCli(["--pi-extension", hello, "call", "hello", '{"name":"pi"}'], {
      env: { OCTET_HOME: home },
      timeoutMs: 60_000,
    });
    assert.equal(r.stdout.trim(), "Hello, pi!", r.stderr);
    assert.equal(r.code, 0);
    const missing = await runCli(["--pi-extension", join(home, "nope.ts"), "tools"], { env: { OCTET_HOME: home } });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--pi-extension .*nope\.ts: no such file or folder/);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
});
