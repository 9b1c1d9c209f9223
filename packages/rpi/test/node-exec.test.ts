import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { alive, connectNode, groupMembers, nodePackage, pidFrom, textOf, until } from "./node-support.js";

function workspace(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "octet-pinode-ws-")));
}

const EXEC = `
export default function (pi) {
  pi.registerTool({
    name: "run",
    description: "runs sh -c with the options given",
    parameters: { type: "object" },
    async execute(_id, params, signal) {
      const options = { signal };
      if (params.timeout !== undefined) options.timeout = params.timeout;
      const r = await pi.exec("sh", ["-c", params.script], options);
      return { content: [{ type: "text", text: JSON.stringify(r) }] };
    },
  });
  pi.registerTool({
    name: "start",
    description: "starts a command and answers at once",
    parameters: { type: "object" },
    async execute(_id, params) {
      void pi.exec("sh", ["-c", params.script]);
      return { content: [{ type: "text", text: "started" }] };
    },
  });
  pi.registerTool({
    name: "missing",
    description: "a command that does not exist",
    parameters: { type: "object" },
    async execute() {
      const r = await pi.exec("octet-no-such-command-xyz", []);
      return { content: [{ type: "text", text: JSON.stringify(r) }] };
    },
  });
}
`;

/** A shell script that writes its pid (its group's id) to `file`, then waits on a background sleep. */
const groupScript = (file: string): string => `echo $$ > ${file}; sleep 300 & wait`;

test("pi.exec: the host's cancel aborts the tool's signal and kills the command's whole process group", async () => {
  const dir = nodePackage({ "index.mjs": EXEC });
  const ws = workspace();
  const h = await connectNode(dir, ws);
  try {
    await h.c.start();
    const ac = new AbortController();
    const file = join(ws, "pid");
    const pending = h.c.invoke(
      { kind: "tool", name: "run", callId: "c1", arguments: { script: groupScript(file) } },
      { signal: ac.signal },
    );
    const pgid = await pidFrom(file);
    await until(() => groupMembers(pgid).length === 2, 10_000, "sh and its sleep in the command's group");
    assert.notEqual(pgid, h.pid, "the command leads its own group, not the runner's");
    ac.abort();
    assert.equal((await pending).status, "cancelled");
    await until(() => groupMembers(pgid).length === 0, 10_000, "the command's group to be gone");
    assert.ok(alive(h.pid), "the runner keeps serving");
  } finally {
    await h.c.shutdown("test over");
    rmSync(dir, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
});

const TIMEOUT =
  "pi.exec: a timeout kills the group and resolves killed: true; a missing command resolves code 1 with the reason";
test(TIMEOUT, async () => {
  const dir = nodePackage({ "index.mjs": EXEC });
  const ws = workspace();
  const h = await connectNode(dir, ws);
  try {
    await h.c.start();
    const file = join(ws, "pid");
    const pending = h.c.invoke({
      kind: "tool",
      name: "run",
      callId: "c1",
      arguments: { script: groupScript(file), timeout: 300 },
    });
    const pgid = await pidFrom(file);
    const r = JSON.parse(textOf(await pending)) as { killed: boolean; code: number };
    assert.equal(r.killed, true);
    await until(() => groupMembers(pgid).length === 0, 10_000, "the timed-out group to be gone");
    const missing = JSON.parse(
      textOf(await h.c.invoke({ kind: "tool", name: "missing", callId: "c2", arguments: {} })),
    );
    assert.equal(missing.code, 1);
    assert.equal(missing.killed, false);
    assert.match(missing.stderr, /could not start octet-no-such-command-xyz: not found/);
  } finally {
    await h.c.shutdown("test over");
    rmSync(dir, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
});

const SHUTDOWN =
  "shutdown: the runner exits on the shutdown frame and takes the pi.exec commands still running with it";
test(SHUTDOWN, async () => {
  const dir = nodePackage({ "index.mjs": EXEC });
  const ws = workspace();
  const h = await connectNode(dir, ws);
  try {
    await h.c.start();
    const file = join(ws, "pid");
    assert.equal(
      textOf(await h.c.invoke({ kind: "tool", name: "start", callId: "c1", arguments: { script: groupScript(file) } })),
      "started",
    );
    const pgid = await pidFrom(file);
    await until(() => groupMembers(pgid).length === 2, 10_000, "the background command");
    await h.c.shutdown("test over");
    assert.ok(!h.diagnostics.some((d) => /did not exit within/.test(d)), h.diagnostics.join("\n"));
    assert.equal(alive(h.pid), false);
    await until(() => groupMembers(pgid).length === 0, 5_000, "the command's group to be gone");
    // The runner's own group empties too, though not always in the same instant: a CI run under
    // load once found one member left right after the runner (not identified); it must be gone soon.
    await until(() => groupMembers(h.pid).length === 0, 5_000, "the runner's group to be gone");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(ws, { recursive: true, force: true });
  }
});
