/**
 * Issue 13 items 2, 13b, 13c through real processes: the host argument validator (every call
 * checked against the tool's declared parameters before any before_tool_call hook and before any
 * send), schema compilation bounded per publication, and tool names a parked extension declares
 * staying reserved for it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { WireError } from "@octet/protocol";
import { EXAMPLES, FAKE_EXT, ROOT, runCli } from "./helpers.js";
import { FAKE_V2, REQUIRED, withRuntime } from "./runtime-helpers.js";

const HELLO = ["--extension-dir", EXAMPLES, "--enable-extension", "hello-world"];
const GREET = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };

/** A -32602 refusal whose message names `detail`. */
function refusal(detail: string): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof WireError, `a WireError, got ${String(err)}`);
    assert.equal(err.code, -32602);
    assert.ok(err.message.includes(detail), `"${err.message}" names ${detail}`);
    return true;
  };
}

test("issue 13.2: octet call hello_world '{\"name\":5}' exits 1 with a message naming arguments.name", async () => {
  const r = await runCli([...HELLO, "call", "hello_world", '{"name":5}']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /arguments\.name: must be string/);
  // issue 13 review: what was given follows the message (from the error's data.errors[0].got);
  // --json (below) keeps {code, message}.
  const refused = 'invalid arguments for tool "hello_world": arguments.name: must be string';
  assert.equal(r.stderr, `octet: ${refused} (got number 5)\n`);
  assert.equal(r.stdout, "");
  const missing = await runCli([...HELLO, "--json", "call", "hello_world", "{}"]);
  assert.equal(missing.code, 1);
  assert.deepEqual(JSON.parse(missing.stdout), {
    error: {
      code: -32602,
      message: 'invalid arguments for tool "hello_world": arguments: must have required property "name"',
    },
  });
  // hello_world's schema says additionalProperties: false (an open schema accepts extras, see below).
  const extra = await runCli([...HELLO, "call", "hello_world", '{"name":"x","extra":1}']);
  assert.equal(extra.code, 1);
  assert.match(extra.stderr, /arguments: must not have property "extra"/);
});

test("issue 13 review: the shell prints what was given after a refused argument, and goes on", async () => {
  const input = ['/call hello_world {"name":"x","n":1}', '/call hello_world {"name":false}', "/quit", ""].join("\n");
  const r = await runCli(HELLO, { input });
  assert.equal(r.code, 0, r.stderr);
  const refused = 'error: invalid arguments for tool "hello_world": arguments';
  assert.ok(r.stdout.includes(`${refused}: must not have property "n" (got object)\n`), r.stdout);
  assert.ok(r.stdout.includes(`${refused}.name: must be string (got boolean false)\n`), r.stdout);
});

test(
  "issue 13.2: embedder API: invalid arguments are refused with -32602 before any before_tool_call hook and before " +
    "any send",
  async () => {
    await withRuntime(
      [
        {
          name: "guarded",
          tools: ["echo"],
          config: { parameters: { echo: GREET } },
          contributes: 'hooks = ["before_tool_call"]',
        },
      ],
      {},
      async ({ host, received }) => {
        await assert.rejects(
          host.runHook("before_tool_call", { name: "echo", arguments: { name: 5 } }),
          refusal("arguments.name: must be string"),
        );
        await assert.rejects(
          host.callTool("echo", { name: 5 }),
          refusal('invalid arguments for tool "echo": arguments.name: must be string'),
        );
        await assert.rejects(
          host.callTool("echo", {}, { catalog: host.catalog() }),
          refusal('arguments: must have required property "name"'),
        );
        assert.deepEqual(received("guarded", "hook/run"), [], "no hook ran for an invalid call");
        assert.deepEqual(received("guarded", "tool/call"), [], "nothing was sent");
        // A valid call goes through both; a tool the host does not know (the embedder's own) is not its to check.
        assert.equal((await host.runHook("before_tool_call", { name: "echo", arguments: { name: "x" } })).denied, null);
        assert.equal((await host.callTool("echo", { name: "x", extra: true })).is_error, false);
        assert.equal(
          (await host.runHook("before_tool_call", { name: "bash", arguments: { command: 5 } })).denied,
          null,
        );
        assert.equal(received("guarded", "hook/run").length, 2);
        assert.equal(received("guarded", "tool/call").length, 1);
      },
    );
  },
);

test(
  "issue 13.2: dynamic tools: a registered tool's parameters are enforced, from the epoch the call's catalog " +
    "snapshot saw",
  async () => {
    const ask = async (host: ExtensionHost, params: unknown) =>
      JSON.parse((await host.callTool("ask", { method: "tools/register", params })).text) as {
        error?: { code: number; message: string };
        result?: unknown;
      };
    const def = (type: string) => ({
      name: "dyn",
      description: "d",
      parameters: { type: "object", properties: { n: { type } }, required: ["n"] },
    });
    await withRuntime(
      [{ name: "dynamic", tools: ["ask"], config: { features: [...REQUIRED, "dynamic_tools"] } }],
      { services: { dynamicTools: true } },
      async ({ host, received }) => {
        assert.deepEqual((await ask(host, { tools: [def("integer")] })).result, { revision: 1, tools: ["ask", "dyn"] });
        const epoch1 = host.catalog();
        await assert.rejects(host.callTool("dyn", { n: "x" }), refusal("arguments.n: must be integer"));
        assert.deepEqual((await ask(host, { tools: [def("string")] })).result, { revision: 2, tools: ["ask", "dyn"] });
        await assert.rejects(host.callTool("dyn", { n: 1 }), refusal("arguments.n: must be string"));
        await assert.rejects(
          host.callTool("dyn", { n: "x" }, { catalog: epoch1 }),
          refusal("arguments.n: must be integer"),
        );
        assert.deepEqual(
          received("dynamic", "tool/call").filter((m) => m.params.name === "dyn"),
          [],
          "no refused call was sent",
        );
        await host.callTool("dyn", { n: 1 }, { catalog: epoch1 });
        await host.callTool("dyn", { n: "x" });
        assert.deepEqual(
          received("dynamic", "tool/call")
            .filter((m) => m.params.name === "dyn")
            .map((m) => [m.params.arguments, m.params.catalog_revision]),
          [
            [{ n: 1 }, 1],
            [{ n: "x" }, 2],
          ],
        );
      },
    );
  },
);

test(
  "issue 13.2: an rpi tool: arguments that miss the pi tool's schema are refused before its tool_call hook and " +
    "before the call",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "octet-argv-"));
    try {
      const ext = join(dir, "pi-guard");
      await mkdir(ext);
      const fake = join(ROOT, "packages", "rpi", "test", "fixtures", "rpi-fake.mjs");
      await writeFile(join(ext, "main"), `#!/bin/sh\nexec ${process.execPath} ${fake} ok pi-guard\n`);
      await chmod(join(ext, "main"), 0o755);
      await writeFile(
        join(ext, "pi-extension.json"),
        JSON.stringify({
          schemaVersion: 1,
          id: "pi-guard",
          executable: "./main",
          capabilities: ["tools", "commands", "event_hooks", "ui", "session_actions"],
          uiCapabilities: ["confirm", "notify", "status"],
        }),
      );
      const host = await ExtensionHost.start({
        extensionDirs: [dir],
        workspace: dir,
        enable: ["pi-guard"],
        runtimes: [rpiRuntime()],
      });
      try {
        // The fake's tool_call hook blocks city "Mordor": a refusal here is the host's, before it.
        await assert.rejects(
          host.runHook("before_tool_call", { name: "weather", arguments: { city: ["Mordor"] } }),
          refusal("arguments.city: must be string"),
        );
        await assert.rejects(host.callTool("weather", {}), refusal('arguments: must have required property "city"'));
        assert.deepEqual(
          (await host.runHook("before_tool_call", { name: "weather", arguments: { city: "Mordor" } })).denied,
          { extension: "pi-guard", reason: "one does not simply walk into Mordor" },
        );
        assert.equal((await host.callTool("weather", { city: "Rome" })).text, "15 °C, cloudy in Rome");
      } finally {
        await host.shutdown();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);

/** A sandboxed pi extension that counts what reached it: tool_call hooks and `count` calls. */
const COUNTING = `
export default function (pi) {
  const seen = { hooks: 0, calls: 0 };
  pi.on("tool_call", () => { seen.hooks += 1; return undefined; });
  pi.registerTool({ name: "count", label: "count", description: "count",
    parameters: { type: "object", properties: { n: { type: "integer", minimum: 0 } }, required: ["n"] },
    execute: async () => { seen.calls += 1; return { content: [{ type: "text", text: "counted" }] }; } });
  pi.registerTool({ name: "seen", label: "seen", description: "seen", parameters: { type: "object", properties: {} },
    execute: async () => ({ content: [{ type: "text", text: JSON.stringify(seen) }] }) });
}
`;

test("issue 13.2: a QuickJS pi tool: invalid arguments reach neither its tool_call hook nor its execute", async () => {
  const dir = await mkdtemp(join(tmpdir(), "octet-argv-qjs-"));
  try {
    await mkdir(join(dir, "counting"));
    await writeFile(join(dir, "counting", "index.mjs"), COUNTING);
    await writeFile(
      join(dir, "counting", "pi-extension.json"),
      JSON.stringify({
        schemaVersion: 1,
        id: "counting",
        runtime: "quickjs",
        entry: "./index.mjs",
        capabilities: ["tools", "event_hooks"],
      }),
    );
    const host = await ExtensionHost.start({
      extensionDirs: [dir],
      workspace: dir,
      enable: ["counting"],
      octetHome: join(dir, "home"),
      runtimes: [rpiRuntime()],
    });
    try {
      await assert.rejects(
        host.runHook("before_tool_call", { name: "count", arguments: { n: -1 } }),
        refusal("arguments.n: must be >= 0"),
      );
      await assert.rejects(host.callTool("count", { n: "1" }), refusal("arguments.n: must be integer"));
      assert.equal((await host.callTool("seen", {})).text, '{"hooks":0,"calls":0}');
      assert.equal((await host.runHook("before_tool_call", { name: "count", arguments: { n: 1 } })).denied, null);
      assert.equal((await host.callTool("count", { n: 1 })).text, "counted");
      assert.equal((await host.callTool("seen", {})).text, '{"hooks":1,"calls":1}');
    } finally {
      await host.shutdown();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/** A 3.8 KB output schema; `salt` makes each one distinct (255 of them fit one 1 MiB frame). */
function bigSchema(salt: string): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (let i = 0; i < 40; i++)
    properties[`f${salt}_${i}`] = {
      type: ["string", "null"],
      description: "a field described at length",
      maxLength: 100 + i,
    };
  return { type: "object", properties };
}

interface Answer {
  error?: { code: number; message: string };
  result?: { revision: number; tools: string[] };
}

/** `publish()` again, while the per-second publication allowance refuses it (for up to 10 s). */
async function whenAllowed(publish: () => Promise<Answer>): Promise<Answer> {
  for (let tries = 0; ; tries++) {
    const r = await publish();
    if (tries === 40 || !/bytes per second; publish again later/.test(r.error?.message ?? "")) return r;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test(
  "issue 13b: tools/register of 255 tools sharing a 3.9 KB output schema compiles it once; new schema text past the " +
    "per-publication bound is refused whole",
  async () => {
    const ask = async (host: ExtensionHost, params: unknown, method = "tools/register") =>
      JSON.parse((await host.callTool("ask", { method, params })).text) as Answer;
    const shared = bigSchema("0");
    assert.ok(JSON.stringify(shared).length > 3800);
    await withRuntime(
      [{ name: "many", tools: ["ask"], config: { features: [...REQUIRED, "dynamic_tools"] } }],
      { services: { dynamicTools: true } },
      async ({ host }) => {
        for (let round = 1; round <= 3; round++) {
          // The same 255 names each time: each publication replaces them whole (256 with "ask").
          const tools = Array.from({ length: 255 }, (_, i) => ({
            name: `t_${i}`,
            description: `round ${round}`,
            parameters: { type: "object" },
            output_schema: shared,
          }));
          // Each is about 1 MB published: the per-second allowance (512 KiB) spaces them out.
          const r = await whenAllowed(() => ask(host, { tools }));
          assert.equal(r.result?.revision, round, JSON.stringify(r.error));
        }
        // 80 distinct schemas (about 310 KB of new schema text) in one publication: over 256 KiB.
        await whenAllowed(() =>
          ask(host, { names: Array.from({ length: 255 }, (_, i) => `t_${i}`) }, "tools/unregister"),
        );
        const distinct = Array.from({ length: 80 }, (_, i) => ({
          name: `d_${i}`,
          description: "d",
          parameters: { type: "object" },
          output_schema: bigSchema(String(i + 1)),
        }));
        const over = await ask(host, { tools: distinct });
        assert.equal(over.error?.code, -32602);
        assert.match(
          over.error!.message,
          /bytes of new schema compilation, over the limit of 262144 bytes per publication/,
        );
        assert.ok(!host.tools().some((t) => t.name === "d_0"), "the catalog is unchanged");
        assert.equal(host.status()[0]!.catalogRevision, 4);
      },
    );
  },
);

test(
  "issue 13 review: a cached catalog republished in a loop is " + "refused, naming the budget; one republish passes",
  async () => {
    const ask = async (host: ExtensionHost, params: unknown) =>
      JSON.parse((await host.callTool("ask", { method: "tools/register", params })).text) as Answer;
    // About 230 KB: under the per-publication compile bound, under half the 512 KiB per second.
    const tools = Array.from({ length: 60 }, (_, i) => ({
      name: `c_${i}`,
      description: "d",
      parameters: { type: "object" },
      output_schema: bigSchema(`loop${i}`),
    }));
    const looping = { name: "looping", tools: ["ask"], config: { features: [...REQUIRED, "dynamic_tools"] } };
    await withRuntime([looping], { services: { dynamicTools: true } }, async ({ host }) => {
      assert.equal((await ask(host, { tools })).result?.revision, 1);
      // Every schema is compiled and cached now; republishing it once still passes.
      const again = await ask(host, { tools });
      assert.equal(again.result?.revision, 2, JSON.stringify(again.error));
      let refused: Answer | undefined;
      for (let i = 0; i < 20 && refused === undefined; i++) {
        const r = await ask(host, { tools });
        if (r.error) refused = r;
      }
      assert.equal(refused?.error?.code, -32602, "a tight loop of republications is refused");
      const budget =
        /its tool definitions are \d+ bytes \(schemas compiled before count too.*left of its 524288 bytes per second/;
      assert.match(refused!.error!.message, budget);
      assert.match(refused!.error!.message, /publish again later; the published catalog is unchanged$/);
    });
  },
);

test(
  "issue 13c: the names a parked extension declares stay reserved: another extension's tools/register of one is " +
    "refused, and the parked one's reload succeeds",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "octet-park-"));
    try {
      const toml = (name: string, command: string[], tools: string[], api: string) =>
        `name = "${name}"\nversion = "0.0.1"\napi_version = "${api}"\n\n[entrypoint]\ncommand ` +
        `= ${JSON.stringify(process.execPath)}\nargs = ` +
        `[${command.map((c) => JSON.stringify(c)).join(", ")}]\n\n[capabilities]\nfilesystem = "none"\nprocess = ` +
        `false\nnetwork = false\n\n[contributes]\ntools = [${tools.map((t) => JSON.stringify(t)).join(", ")}]\n`;
      await mkdir(join(dir, "parked"));
      await writeFile(
        join(dir, "parked", "extension.toml"),
        toml("parked", [FAKE_EXT, "good", "0.1", "kept_name,kept_slow"], ["kept_name", "kept_slow"], "0.1"),
      );
      await mkdir(join(dir, "grabber"));
      await writeFile(
        join(dir, "grabber", "extension.toml"),
        toml(
          "grabber",
          [FAKE_V2, JSON.stringify({ api: "0.2", tools: ["ask"], features: [...REQUIRED, "dynamic_tools"] })],
          ["ask"],
          "0.2",
        ),
      );
      // The workspace marker makes fake-ext crash on start: its first initialize fails, it is parked.
      await writeFile(join(dir, "fake-ext-fail-start"), "");
      const host = await ExtensionHost.start({
        extensionDirs: [dir],
        workspace: dir,
        enable: ["parked", "grabber"],
        services: { dynamicTools: true },
      });
      try {
        assert.equal(host.status().find((s) => s.name === "parked")!.state, "parked");
        const r = JSON.parse(
          (
            await host.callTool("ask", {
              method: "tools/register",
              params: { tools: [{ name: "kept_name", description: "d", parameters: { type: "object" } }] },
            })
          ).text,
        ) as { error?: { code: number; message: string } };
        assert.equal(r.error?.code, -32602);
        assert.match(r.error!.message, /tool "kept_name" is already provided by extension "parked" \(parked/);
        await unlink(join(dir, "fake-ext-fail-start"));
        const reloaded = await host.reload("parked");
        assert.equal(reloaded.state, "ready");
        assert.equal((await host.callTool("kept_name", { x: 1 })).text, '{"x":1}');
      } finally {
        await host.shutdown();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
