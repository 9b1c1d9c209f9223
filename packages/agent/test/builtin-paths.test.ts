import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { resolveInWorkspace } from "../src/tools/paths.js";
import { makeWorkspace } from "./helpers/builtin-workspace.js";

test("paths: a workspace reached through a link accepts absolute paths under either name", async () => {
  const ws = makeWorkspace();
  try {
    const alias = path.join(ws.outside, "alias");
    symlinkSync(ws.dir, alias);
    writeFileSync(ws.file("a.txt"), "a");
    for (const input of [path.join(alias, "a.txt"), ws.file("a.txt"), "a.txt", "./sub/../a.txt"]) {
      const r = await resolveInWorkspace(alias, input);
      assert.ok(r.ok, input);
      assert.deepEqual(r.path, { real: ws.file("a.txt"), relative: "a.txt" });
    }
    const self = await resolveInWorkspace(alias, ".");
    assert.ok(self.ok);
    assert.equal(self.path.relative, ".");
  } finally {
    ws.cleanup();
  }
});

test("paths: a path not yet existing resolves under the real path of its nearest existing ancestor", async () => {
  const ws = makeWorkspace();
  try {
    mkdirSync(ws.file("real-dir"));
    symlinkSync("real-dir", ws.file("dir-link"));
    const r = await resolveInWorkspace(ws.dir, "dir-link/new/file.txt");
    assert.ok(r.ok);
    assert.deepEqual(r.path, { real: ws.file("real-dir/new/file.txt"), relative: "real-dir/new/file.txt" });
  } finally {
    ws.cleanup();
  }
});

test("paths: escapes are refused with the path and the workspace named", async () => {
  const ws = makeWorkspace();
  try {
    symlinkSync("..", ws.file("up"));
    const cases: [string, RegExp][] = [
      ["..", /^the path "\.\." is outside the workspace .*ws; use a path inside it$/],
      ["a/../../outside", /is outside the workspace/],
      ["/etc/passwd", /^the path "\/etc\/passwd" is outside the workspace/],
      ["up/outside/x", /^the path "up\/outside\/x" leads through a symbolic link to .*, outside the workspace/],
      ["a\u0000b", /contains a NUL byte/],
    ];
    for (const [input, expected] of cases) {
      const r = await resolveInWorkspace(ws.dir, input);
      assert.equal(r.ok, false, input);
      if (!r.ok) assert.match(r.error, expected, input);
    }
    const gone = await resolveInWorkspace(path.join(ws.dir, "missing-workspace"), "a.txt");
    assert.equal(gone.ok, false);
    if (!gone.ok)
      assert.match(gone.error, /the workspace .*missing-workspace cannot be used: no such file or directory/);
  } finally {
    ws.cleanup();
  }
});
