import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { EXAMPLES, processesMentioning, runCli, waitUntil } from "./helpers.js";

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "octet-pinode-e2e-")));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A node-runtime pi extension `root/<id>` with `source` as its index.mjs. */
async function nodeExtension(root: string, id: string, source: string): Promise<string> {
  const dir = join(root, id);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "index.mjs"), source);
  await writeFile(
    join(dir, "pi-extension.json"),
    JSON.stringify({
      schemaVersion: 1,
      id,
      runtime: "node",
      entry: "./index.mjs",
      capabilities: ["tools", "commands"],
    }),
  );
  return dir;
}

test(
  "examples/pi-node from the CLI: file_info reads with node:fs, find_todos runs grep through pi.exec in the " +
    "project, the todos command notifies; status lists it as rpi-node",
  async () => {
    await withDir(async (ws) => {
      await mkdir(join(ws, "src"));
      await writeFile(join(ws, "notes.md"), "# notes\n\nTODO: write more\n");
      await writeFile(join(ws, "src", "main.js"), "// TODO: tests\nconsole.log(1);\n");
      const base = ["--extension-dir", EXAMPLES, "--enable-extension", "pi-node"];
      const info = await runCli([...base, "call", "file_info", '{"path":"notes.md"}'], { cwd: ws });
      assert.equal(info.code, 0, info.stderr);
      assert.equal(info.stdout.trim(), "notes.md: 3 lines, 26 bytes");
      const missing = await runCli([...base, "call", "file_info", '{"path":"nope.md"}'], { cwd: ws });
      assert.equal(missing.code, 1);
      assert.match(missing.stdout + missing.stderr, /ENOENT: no such file or directory, stat '.*nope\.md'/);
      const todos = await runCli([...base, "call", "find_todos", "{}"], { cwd: ws });
      assert.equal(todos.code, 0, todos.stderr);
      assert.deepEqual(todos.stdout.trim().split("\n").sort(), [
        "./notes.md:3:TODO: write more",
        "./src/main.js:1:// TODO: tests",
      ]);
      const none = await runCli([...base, "call", "find_todos", '{"word":"FIXME"}'], { cwd: ws });
      assert.equal(none.stdout.trim(), "no FIXME found");
      const cmd = await runCli([...base, "command", "todos"], { cwd: ws });
      assert.equal(cmd.code, 0, cmd.stderr);
      assert.match(cmd.stdout + cmd.stderr, new RegExp(`2 TODO line\\(s\\) in ${ws}`));
      const status = await runCli([...base, "--json", "extensions", "status"], { cwd: ws });
      const list = JSON.parse(status.stdout) as { name: string; runtime: string; state: string; tools: string[] }[];
      const row = list.find((s) => s.name === "pi-node")!;
      assert.deepEqual([row.runtime, row.state, row.tools], ["rpi-node", "ready", ["file_info", "find_todos"]]);
    });
  },
);

const PROBE = `
export default function (pi) {
  console.log("probe loaded");
  pi.registerTool({
    name: "probe_wait",
    description: "runs a process group until cancelled",
    parameters: { type: "object" },
    async execute(_id, _params, signal, _onUpdate, ctx) {
      console.warn("probe_wait started in " + ctx.cwd);
      const r = await pi.exec("sh", ["-c", "sleep 300 & wait"], { signal, cwd: ctx.cwd });
      return { content: [{ type: "text", text: JSON.stringify(r) }] };
    },
  });
}
`;

test(
  "a node extension through the host: console reaches the host's diagnostic events, the caller's abort stops the " +
    "tool's pi.exec and its whole group, and shutdown leaves no process",
  async () => {
    await withDir(async (root) => {
      const dir = await nodeExtension(root, "pi-probe", PROBE);
      const ws = join(root, "ws");
      await mkdir(ws);
      const events: HostEvent[] = [];
      const host = await ExtensionHost.start({
        extensionDirs: [root],
        workspace: ws,
        enable: ["pi-probe"],
        runtimes: [rpiRuntime()],
        onEvent: (e) => events.push(e),
      });
      const diagnostics = (): string[] =>
        events.flatMap((e) => (e.type === "diagnostic" && e.extension === "pi-probe" ? [e.message] : []));
      try {
        const s = host.status().find((x) => x.name === "pi-probe")!;
        assert.deepEqual([s.state, s.runtime], ["ready", "rpi-node"]);
        assert.ok(diagnostics().includes("extension says: probe loaded"), diagnostics().join("\n"));
        // The extension's processes carry its entry path in their environment: the runner (and its
        // launcher), and every command it starts.
        const before = processesMentioning(dir);
        assert.ok(before.length >= 1, "the runner is found by its environment");
        const ac = new AbortController();
        const pending = host.callTool("probe_wait", {}, { signal: ac.signal });
        // Awaited below; should a check fail first, its failure is the one to report, not this
        // call's rejection at shutdown.
        pending.catch(() => {});
        await waitUntil(() => processesMentioning(dir).length === before.length + 2, 10_000, "sh and sleep");
        // The runner spawns at once, while the console line still travels to the host as a frame.
        const started = `extension says: probe_wait started in ${ws}`;
        await waitUntil(() => diagnostics().includes(started), 5_000, `the diagnostic "${started}"`);
        ac.abort();
        await assert.rejects(pending, /cancel/i);
        await waitUntil(
          () => processesMentioning(dir).sort().join() === before.sort().join(),
          10_000,
          "the command's group to be gone, the runner kept",
        );
        assert.equal(host.status().find((x) => x.name === "pi-probe")!.state, "ready");
      } finally {
        await host.shutdown();
      }
      await waitUntil(() => processesMentioning(dir).length === 0, 5_000, "no process of the extension left");
    });
  },
);

const FACTORY_CRASH = "a node extension whose factory throws does not start: its status says why, and nothing is left";
test(FACTORY_CRASH, async () => {
  await withDir(async (root) => {
    const dir = await nodeExtension(
      root,
      "pi-broken",
      'export default function (pi) { throw new Error("missing API key"); }\n',
    );
    const host = await ExtensionHost.start({
      extensionDirs: [root],
      workspace: root,
      enable: ["pi-broken"],
      runtimes: [rpiRuntime()],
      supervision: { policy: { baseMs: 10_000, capMs: 10_000 } },
    });
    try {
      const s = host.status().find((x) => x.name === "pi-broken")!;
      assert.notEqual(s.state, "ready");
      assert.match(s.lastError ?? "", /the extension factory failed: missing API key/);
      await waitUntil(() => processesMentioning(dir).length === 0, 5_000, "the failed runner to be gone");
    } finally {
      await host.shutdown();
    }
  });
});
