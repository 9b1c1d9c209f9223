import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { BASH_MAX_OUTPUT_BYTES } from "../src/tools/bash.js";
import { builtinTool } from "../src/tools/index.js";
import { makeWorkspace, processGone, textOf, waitUntil } from "./helpers/builtin-workspace.js";

const bash = builtinTool("bash")!;

test("bash runs in the workspace with stdin closed, merges stdout and stderr in order and reports exit 0", async () => {
  const ws = makeWorkspace();
  try {
    const r = await bash.execute({ command: "pwd; echo out1; echo err1 >&2; echo out2; cat" }, ws.ctx());
    assert.equal(r.isError, false);
    assert.equal(textOf(r), `${ws.dir}\nout1\nerr1\nout2\n\n[exit code 0]`);
    assert.equal(r.details?.["exitCode"], 0);
    assert.equal(bash.mutates, true);
    assert.equal(
      bash.summary({ command: "ls\nrm -rf x\u001b[2K", timeout: 5 }),
      "bash: ls\\nrm -rf x\\u001b[2K (timeout 5 s)",
    );
  } finally {
    ws.cleanup();
  }
});

test("bash: a non-zero exit is an error that reports the code; no output says so", async () => {
  const ws = makeWorkspace();
  try {
    const r = await bash.execute({ command: "echo failing; exit 3" }, ws.ctx());
    assert.equal(r.isError, true);
    assert.equal(textOf(r), "failing\n\n[exit code 3]");
    const silent = await bash.execute({ command: "true" }, ws.ctx());
    assert.equal(textOf(silent), "(no output)\n\n[exit code 0]");
    const missing = await bash.execute({ command: "no-such-command-octet" }, ws.ctx());
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /no-such-command-octet: command not found\n\n\[exit code 127\]$/);
  } finally {
    ws.cleanup();
  }
});

test("bash keeps the last 50 KiB of output and says how many bytes were dropped", async () => {
  const ws = makeWorkspace();
  try {
    const r = await bash.execute({ command: "head -c 200000 /dev/zero | tr '\\0' a; echo; echo END" }, ws.ctx());
    assert.equal(r.isError, false);
    const text = textOf(r);
    const dropped = 200000 + 1 + 4 - BASH_MAX_OUTPUT_BYTES;
    assert.ok(
      text.endsWith(
        `\nEND\n\n[the first ${dropped} bytes of output were dropped; the last 50 KiB are shown; exit code 0]`,
      ),
    );
    assert.equal(r.details?.["droppedBytes"], dropped);
    assert.equal(r.details?.["outputBytes"], 200005);
  } finally {
    ws.cleanup();
  }
});

test("bash timeout kills the whole group, a background grandchild included, and says so", async () => {
  const ws = makeWorkspace();
  try {
    const r = await bash.execute(
      { command: "sleep 100 & echo $! > grandchild.pid; echo started; sleep 100", timeout: 1 },
      ws.ctx(),
    );
    assert.equal(r.isError, true);
    assert.equal(textOf(r), "started\n\n[timed out after 1 s: the command and everything it started were killed]");
    assert.equal(r.details?.["timedOut"], true);
    const pid = Number(readFileSync(ws.file("grandchild.pid"), "utf8"));
    await waitUntil(() => processGone(pid), 10_000, `the grandchild sleep ${pid} to be gone`);
  } finally {
    ws.cleanup();
  }
});

test("bash timeout: a command that ignores SIGTERM is killed by the SIGKILL that follows", async () => {
  const ws = makeWorkspace();
  try {
    const r = await bash.execute(
      { command: "trap '' TERM; sleep 100 & echo $! > g.pid; wait", timeout: 0.5 },
      ws.ctx(),
    );
    assert.equal(r.isError, true);
    assert.match(textOf(r), /timed out after 0\.5 s/);
    const pid = Number(readFileSync(ws.file("g.pid"), "utf8"));
    await waitUntil(() => processGone(pid), 10_000, `the TERM-ignoring sleep ${pid} to be gone`);
  } finally {
    ws.cleanup();
  }
});

test("bash cancellation returns at once with a cancelled note and kills the group, grandchild included", async () => {
  const ws = makeWorkspace();
  try {
    const abort = new AbortController();
    const running = bash.execute(
      { command: "sleep 100 & echo $! > grandchild.pid; sleep 100" },
      ws.ctx({ signal: abort.signal }),
    );
    await waitUntil(
      () => existsSync(ws.file("grandchild.pid")) && readFileSync(ws.file("grandchild.pid"), "utf8").endsWith("\n"),
      10_000,
      "the command to start",
    );
    abort.abort();
    const r = await running;
    assert.equal(r.isError, true);
    assert.match(textOf(r), /\[cancelled: the command and everything it started were killed\]$/);
    assert.equal(r.details?.["cancelled"], true);
    const pid = Number(readFileSync(ws.file("grandchild.pid"), "utf8"));
    await waitUntil(() => processGone(pid), 10_000, `the grandchild sleep ${pid} to be gone`);
    const before = new AbortController();
    before.abort();
    const never = await bash.execute({ command: "touch ran" }, ws.ctx({ signal: before.signal }));
    assert.equal(textOf(never), "bash was cancelled");
    assert.equal(existsSync(ws.file("ran")), false);
  } finally {
    ws.cleanup();
  }
});

test("bash does not wait for a background process that keeps the output open, and says why", async () => {
  const ws = makeWorkspace();
  let pid = 0;
  try {
    const r = await bash.execute({ command: "sleep 60 & echo $!" }, ws.ctx());
    pid = Number(textOf(r).split("\n")[0]);
    assert.ok(pid > 1, textOf(r));
    assert.equal(r.isError, false);
    assert.match(textOf(r), /processes it started in the background still hold its output.*; exit code 0\]$/);
  } finally {
    if (pid > 1 && !processGone(pid)) process.kill(pid, "SIGKILL");
    ws.cleanup();
  }
});

test("bash reports progress through onUpdate with the output so far", async () => {
  const ws = makeWorkspace();
  try {
    const updates: string[] = [];
    // The command waits for a file that only the progress callback creates: no update, no second line.
    const r = await bash.execute(
      { command: "echo first; while [ ! -e go ]; do sleep 0.05; done; echo second", timeout: 30 },
      ws.ctx({
        onUpdate: (text) => {
          updates.push(text);
          if (text.includes("first")) writeFileSync(ws.file("go"), "");
        },
      }),
    );
    assert.equal(textOf(r), "first\nsecond\n\n[exit code 0]");
    assert.equal(updates[0], "first\n");
  } finally {
    ws.cleanup();
  }
});

test("bash checks its arguments: command required, timeout greater than 0 and at most 600", async () => {
  const ws = makeWorkspace();
  try {
    const cases: [Record<string, unknown>, string][] = [
      [{ cmd: "ls" }, 'bash: "command" is required (a non-empty string); the fields given were "cmd"'],
      [{ command: "ls", timeout: 0 }, 'bash: "timeout" must be a number greater than 0 and at most 600; got 0'],
      [{ command: "ls", timeout: 601 }, 'bash: "timeout" must be a number greater than 0 and at most 600; got 601'],
      [{ command: ["ls"] }, 'bash: "command" must be a non-empty string; got an array'],
    ];
    for (const [args, message] of cases) assert.equal(textOf(await bash.execute(args, ws.ctx())), message);
  } finally {
    ws.cleanup();
  }
});
