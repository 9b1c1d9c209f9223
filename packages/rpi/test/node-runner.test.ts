import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, connectNode, groupMembers, nodePackage, textOf, until } from "./node-support.js";

function workspace(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "octet-pinode-ws-")));
}

const TOOLS = `
import { readFileSync } from "node:fs";
export default function (pi) {
  pi.registerTool({
    name: "probe",
    description: "Node facts",
    parameters: { type: "object", properties: { file: { type: "string" } } },
    async execute(_id, params, signal, _onUpdate, ctx) {
      const text = readFileSync(params.file, "utf8");
      const ran = await pi.exec("sh", ["-c", "pwd; echo err >&2; exit 3"], { signal });
      return { content: [{ type: "text", text: JSON.stringify({
        text, cwd: process.cwd(), ctxCwd: ctx.cwd, ran,
        nativeSignal: signal instanceof AbortSignal && ctx.signal === signal,
        nodeTimer: typeof setTimeout(() => {}, 0),
        buffer: Buffer.from("hi").toString("base64"),
        path: typeof process.env.PATH,
      }) }] };
    },
  });
}
`;

test(
  "a node extension's tool uses node:fs, process and Buffer, and pi.exec runs a real command in the session's cwd " +
    "with pi's ExecResult",
  async () => {
    const dir = nodePackage({ "index.mjs": TOOLS });
    const ws = workspace();
    writeFileSync(join(ws, "note.txt"), "hello from fs\n");
    const h = await connectNode(dir, ws);
    try {
      await h.c.start();
      assert.deepEqual(
        h.c.tools().map((t) => t.name),
        ["probe"],
      );
      const r = await h.c.invoke(
        { kind: "tool", name: "probe", callId: "c1", arguments: { file: "note.txt" } },
        { context: { cwd: ws, mode: "rpc", projectTrusted: true } },
      );
      const got = JSON.parse(textOf(r)) as Record<string, unknown>;
      assert.equal(got["text"], "hello from fs\n");
      assert.equal(got["cwd"], ws);
      assert.equal(got["ctxCwd"], ws);
      assert.deepEqual(got["ran"], { stdout: `${ws}\n`, stderr: "err\n", code: 3, killed: false });
      assert.equal(got["nativeSignal"], true);
      assert.equal(got["nodeTimer"], "object");
      assert.equal(got["buffer"], "aGk=");
      assert.equal(got["path"], "string");
    } finally {
      await h.c.shutdown("test over");
      rmSync(dir, { recursive: true, force: true });
      rmSync(ws, { recursive: true, force: true });
    }
  },
);

const CHATTY = `
console.log("top level", { a: 1 });
process.stdout.write("a stray write\\n");
export default function (pi) {
  console.info("factory ran");
  pi.registerTool({
    name: "chat",
    description: "prints",
    parameters: { type: "object" },
    async execute() {
      console.warn("careful");
      console.error(new Error("shown, not thrown"));
      console.log("x".repeat(10000));
      process.stdout.write(JSON.stringify({ type: "response", id: "req-999", result: {} }) + "\\n");
      setTimeout(() => { throw new Error("late throw"); }, 0);
      return { content: [{ type: "text", text: "still fine" }] };
    },
  });
}
`;

test("console and process.stdout never reach the wire: they arrive as log diagnostics at their levels", async () => {
  const dir = nodePackage({ "index.mjs": CHATTY });
  const h = await connectNode(dir, workspace());
  try {
    await h.c.start();
    assert.equal(textOf(await h.c.invoke({ kind: "tool", name: "chat", callId: "c1", arguments: {} })), "still fine");
    await until(() => h.diagnostics.some((d) => /late throw/.test(d)), 5_000, "the uncaught throw's diagnostic");
    const said = h.diagnostics.join("\n");
    assert.match(said, /^info: extension says: top level \{ a: 1 \}$/m);
    assert.match(said, /^info: extension says: a stray write$/m);
    assert.match(said, /^info: extension says: factory ran$/m);
    assert.match(said, /^warning: extension says: careful$/m);
    assert.match(said, /^error: extension says: Error: shown, not thrown/m);
    assert.match(said, /^info: extension says: x{1000,}$/m, "a long line is cut, not split into frames");
    assert.match(said, /^info: extension says: \{"type":"response","id":"req-999"/m);
    assert.match(said, /^error: extension says: uncaught exception: Error: late throw/m);
    assert.ok(!/protocol|violation|unknown id/i.test(said), said);
    // Still serving after all of it.
    assert.equal(h.c.state, "ready");
    assert.equal(textOf(await h.c.invoke({ kind: "tool", name: "chat", callId: "c2", arguments: {} })), "still fine");
  } finally {
    await h.c.shutdown("test over");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a factory that throws is a clean load failure naming the error, and no process is left", async () => {
  const dir = nodePackage({
    "index.mjs":
      "export default function (pi) {\n" +
      '  pi.registerTool({ name: "t", execute() {} });\n' +
      '  throw new TypeError("no config");\n' +
      "}\n",
  });
  const h = await connectNode(dir, workspace());
  try {
    await assert.rejects(h.c.start(), /the extension factory failed: TypeError: no config/);
    await until(() => !alive(h.pid), 5_000, "the runner to be gone");
    // The group's other members end a moment after its leader (a loaded machine showed one
    // still exiting at the first look): none may be left, so wait for that, within the same bound.
    await until(() => groupMembers(h.pid).length === 0, 5_000, `no process left in group ${h.pid}`);
    assert.deepEqual(h.c.tools(), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an entry that cannot be imported fails the load with the entry's path and the cause", async () => {
  const dir = nodePackage({ "index.mjs": `import "./missing.mjs";\nexport default function () {}\n` });
  const h = await connectNode(dir, workspace());
  try {
    await assert.rejects(h.c.start(), (err: Error) => {
      assert.match(err.message, new RegExp(`could not load the entry ${join(dir, "index.mjs")}`));
      assert.match(err.message, /import "\.\/missing\.mjs"/);
      return true;
    });
    await until(() => !alive(h.pid), 5_000, "the runner to be gone");
    assert.match(h.stderr.join("\n"), /octet node runner: could not load/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the runner refuses to start without the launch's environment and says which variable is missing", async () => {
  const { spawnSync } = await import("node:child_process");
  const { NODE_RUNNER_PATH } = await import("../src/node/launch-node.js");
  const r = spawnSync(process.execPath, [NODE_RUNNER_PATH], { env: {}, input: "", encoding: "utf8" });
  assert.equal(r.status, 2);
  assert.equal(r.stdout, "", "nothing on the wire");
  assert.match(r.stderr, /PI_EXTENSION_ID is not set; the Node runner is started by the rpi runtime/);
  assert.ok(readFileSync(NODE_RUNNER_PATH, "utf8").length > 0);
});

const REFUSALS = `
export default function (pi) {
  pi.registerTool({
    name: "refusals",
    description: "what cannot cross the protocol",
    parameters: { type: "object" },
    async execute(_id, _params, _signal, _onUpdate, ctx) {
      const said = [];
      const attempt = (f) => { try { f(); said.push("no refusal"); } catch (e) { said.push(e.message); } };
      attempt(() => pi.registerEntryRenderer("x", () => null));
      attempt(() => ctx.ui.custom(() => null));
      const timer = await new Promise((resolve) => setTimeout(() => resolve("node timer fired"), 5));
      return { content: [{ type: "text", text: JSON.stringify({ said, timer }) }] };
    },
  });
}
`;

const REFUSED =
  "the parts of pi that cannot cross the protocol refuse naming the Node runtime; Node's timers serve the extension";
test(REFUSED, async () => {
  const dir = nodePackage({ "index.mjs": REFUSALS });
  const h = await connectNode(dir, workspace());
  try {
    await h.c.start();
    const got = JSON.parse(textOf(await h.c.invoke({ kind: "tool", name: "refusals", callId: "c1", arguments: {} })));
    assert.deepEqual(got, {
      said: [
        "pi.registerEntryRenderer is not available to Node extensions: renderers cannot cross the extension protocol",
        "ctx.ui.custom is not available to Node extensions: components cannot cross the extension protocol",
      ],
      timer: "node timer fired",
    });
  } finally {
    await h.c.shutdown("test over");
    rmSync(dir, { recursive: true, force: true });
  }
});

const NETWORK = `
export default function (pi) {
  pi.registerTool({
    name: "fetch_slow",
    description: "fetches a URL with the tool's signal",
    parameters: { type: "object" },
    async execute(_id, params, signal) {
      const r = await fetch(params.url, { signal });
      return { content: [{ type: "text", text: await r.text() }] };
    },
  });
  pi.registerTool({
    name: "huge",
    description: "a result over the frame limit",
    parameters: { type: "object" },
    async execute() {
      return { content: [{ type: "text", text: "y".repeat(2 * 1024 * 1024) }] };
    },
  });
}
`;

test(
  "ctx.signal is Node's own AbortSignal: the host's cancel aborts the extension's fetch (the server sees the " +
    "request go); a result over the frame limit is an error naming its size and the limit",
  async () => {
    const { createServer } = await import("node:http");
    let closedEarly: () => void = () => {};
    const aborted = new Promise<void>((resolve) => (closedEarly = resolve));
    let arrived: () => void = () => {};
    const request = new Promise<void>((resolve) => (arrived = resolve));
    const server = createServer((req, res) => {
      arrived();
      // Never answered: only the client's abort ends this request.
      res.on("close", () => {
        if (!res.writableEnded) closedEarly();
      });
      req.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    const dir = nodePackage({ "index.mjs": NETWORK });
    const h = await connectNode(dir, workspace());
    try {
      await h.c.start();
      const ac = new AbortController();
      const pending = h.c.invoke(
        { kind: "tool", name: "fetch_slow", callId: "c1", arguments: { url: `http://127.0.0.1:${port}/slow` } },
        { signal: ac.signal },
      );
      await request;
      ac.abort();
      assert.equal((await pending).status, "cancelled");
      await aborted;
      const huge = await h.c.invoke({ kind: "tool", name: "huge", callId: "c2", arguments: {} });
      assert.equal(huge.status, "error");
      assert.match(
        (huge as { error: { message: string } }).error.message,
        /the frame is \d+ bytes of UTF-8, over the 1048576-byte limit \(maxFrameBytes\); it was not sent/,
      );
      assert.equal(h.c.state, "ready");
    } finally {
      await h.c.shutdown("test over");
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

// pi's examples/extensions/dirty-repo-guard.ts, its types stripped: hooks, pi.exec("git") and ctx.hasUI.
const DIRTY_REPO_GUARD = `
async function checkDirtyRepo(pi, ctx, action) {
  const { stdout, code } = await pi.exec("git", ["status", "--porcelain"]);
  if (code !== 0) return;
  const hasChanges = stdout.trim().length > 0;
  if (!hasChanges) return;
  if (!ctx.hasUI) return { cancel: true };
  const changedFiles = stdout.trim().split("\\n").filter(Boolean).length;
  const choice = await ctx.ui.select(\`You have \${changedFiles} uncommitted file(s). \${action} anyway?\`, [
    "Yes, proceed anyway",
    "No, let me commit first",
  ]);
  if (choice !== "Yes, proceed anyway") {
    ctx.ui.notify("Commit your changes first", "warning");
    return { cancel: true };
  }
}
export default function (pi) {
  pi.on("session_before_switch", async (event, ctx) => {
    const action = event.reason === "new" ? "new session" : "switch session";
    return checkDirtyRepo(pi, ctx, action);
  });
  pi.on("session_before_fork", async (_event, ctx) => checkDirtyRepo(pi, ctx, "fork"));
}
`;

test("pi's dirty-repo-guard runs on Node: its hook runs git through pi.exec in the session's repository", async () => {
  const { execFileSync } = await import("node:child_process");
  const dir = nodePackage({ "index.mjs": DIRTY_REPO_GUARD });
  const ws = workspace();
  execFileSync("git", ["init", "-q"], { cwd: ws });
  const h = await connectNode(dir, ws, { mode: "print" });
  try {
    await h.c.start();
    assert.deepEqual(h.c.hooks().sort(), ["session_before_fork", "session_before_switch"]);
    const hook = (name: string) => h.c.invoke({ kind: "hook", event: { name, data: { reason: "new" } } });
    assert.deepEqual(await hook("session_before_switch"), { status: "success", value: null }, "a clean repository");
    writeFileSync(join(ws, "changed.txt"), "uncommitted\n");
    assert.deepEqual(await hook("session_before_switch"), { status: "success", value: { cancel: true } });
    assert.deepEqual(await hook("session_before_fork"), { status: "success", value: { cancel: true } });
  } finally {
    await h.c.shutdown("test over");
    rmSync(dir, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
});
