import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { builtinTool } from "../src/tools/index.js";
import { WRITE_MAX_BYTES } from "../src/tools/write.js";
import { makeWorkspace, readText, textOf } from "./helpers/builtin-workspace.js";

const write = builtinTool("write")!;

test("write creates the file and its folders and answers the bytes written", async () => {
  const ws = makeWorkspace();
  try {
    const r = await write.execute({ path: "a/b/c.txt", content: "héllo\n" }, ws.ctx());
    assert.equal(r.isError, false);
    assert.equal(textOf(r), "created a/b/c.txt (7 bytes)");
    assert.equal(readText(ws.file("a/b/c.txt")), "héllo\n");
    assert.equal(write.mutates, true);
    assert.equal(write.summary({ path: "a/b/c.txt", content: "x\ny\n" }), "write a/b/c.txt (2 lines, 4 bytes)");
  } finally {
    ws.cleanup();
  }
});

test("write replaces an existing file atomically: its mode is kept and no temp file is left", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("run.sh"), "#!/bin/sh\necho old\n");
    chmodSync(ws.file("run.sh"), 0o751);
    const r = await write.execute({ path: "run.sh", content: "#!/bin/sh\necho new\n" }, ws.ctx());
    assert.equal(textOf(r), "replaced run.sh (19 bytes)");
    assert.equal(readText(ws.file("run.sh")), "#!/bin/sh\necho new\n");
    assert.equal(statSync(ws.file("run.sh")).mode & 0o777, 0o751);
    assert.deepEqual(readdirSync(ws.dir), ["run.sh"]);
  } finally {
    ws.cleanup();
  }
});

test("write through a link inside the workspace replaces the linked file and keeps the link", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("target.txt"), "old");
    symlinkSync("target.txt", ws.file("alias.txt"));
    const r = await write.execute({ path: "alias.txt", content: "new" }, ws.ctx());
    assert.equal(r.isError, false);
    assert.equal(readText(ws.file("target.txt")), "new");
    assert.ok(lstatSync(ws.file("alias.txt")).isSymbolicLink());
  } finally {
    ws.cleanup();
  }
});

test("write refuses paths outside the workspace, through an outward or dangling link, and folders", async () => {
  const ws = makeWorkspace();
  try {
    symlinkSync(ws.outside, ws.file("out"));
    symlinkSync(path.join(ws.outside, "nothing-yet.txt"), ws.file("dangling.txt"));
    mkdirSync(ws.file("dir"));
    const cases: [string, RegExp][] = [
      ["../outside/x.txt", /outside the workspace/],
      [path.join(ws.outside, "x.txt"), /outside the workspace/],
      ["out/new/x.txt", /leads through a symbolic link to .*outside, outside the workspace/],
      ["dangling.txt", /symbolic link whose target does not exist/],
      ["dir", /dir is a directory; give the path of a file/],
    ];
    for (const [p, expected] of cases) {
      const r = await write.execute({ path: p, content: "x" }, ws.ctx());
      assert.equal(r.isError, true, p);
      assert.match(textOf(r), expected, p);
    }
    assert.deepEqual(readdirSync(ws.outside), []);
  } finally {
    ws.cleanup();
  }
});

test("write refuses content over 10 MiB and names the size and the limit", async () => {
  const ws = makeWorkspace();
  try {
    const r = await write.execute({ path: "huge.txt", content: "z".repeat(WRITE_MAX_BYTES + 1) }, ws.ctx());
    assert.equal(r.isError, true);
    assert.equal(
      textOf(r),
      `write: "content" is ${WRITE_MAX_BYTES + 1} bytes, over the ${WRITE_MAX_BYTES}-byte limit; write a smaller file`,
    );
    assert.deepEqual(readdirSync(ws.dir), []);
  } finally {
    ws.cleanup();
  }
});

test("write checks its arguments: a missing content names the field; a cancelled call writes nothing", async () => {
  const ws = makeWorkspace();
  try {
    const missing = await write.execute({ path: "a.txt", text: "x" }, ws.ctx());
    assert.equal(textOf(missing), 'write: "content" is required (a string); the fields given were "path", "text"');
    const aborted = new AbortController();
    aborted.abort();
    const cancelled = await write.execute({ path: "a.txt", content: "x" }, ws.ctx({ signal: aborted.signal }));
    assert.equal(cancelled.isError, true);
    assert.equal(textOf(cancelled), "write was cancelled");
    assert.deepEqual(readdirSync(ws.dir), []);
  } finally {
    ws.cleanup();
  }
});
