/**
 * resolveEntrypoint (ENV-10): a bare command is kept for PATH lookup, "./" and "../" are resolved
 * against the extension's directory (the child's cwd is the workspace, ENV-08), and everything
 * else, absolute paths and flags included, passes verbatim.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveEntrypoint } from "../../src/process/entrypoint.js";

const dir = "/home/u/.octet/extensions/hello";

test("ENV-10: a bare command is kept verbatim for the PATH lookup", () => {
  for (const command of ["node", "python3", "my-ext", "node.exe"]) {
    assert.equal(resolveEntrypoint({ command, args: [] }, dir).command, command);
  }
});

test("ENV-10: a command starting with ./ or ../ is resolved against the extension directory", () => {
  assert.equal(resolveEntrypoint({ command: "./bin/ext", args: [] }, dir).command, `${dir}/bin/ext`);
  assert.equal(
    resolveEntrypoint({ command: "../shared/run", args: [] }, dir).command,
    "/home/u/.octet/extensions/shared/run",
  );
  assert.equal(resolveEntrypoint({ command: "./a/../b", args: [] }, dir).command, `${dir}/b`);
});

test("ENV-10: arguments starting with ./ or ../ are resolved; all others pass verbatim", () => {
  const args = [
    "./main.js",
    "../lib/x.py",
    "main.js",
    "/abs/path.js",
    "-u",
    "--flag=./not-resolved",
    "-",
    ".",
    "..",
    ".hidden",
    "..weird",
    "$(echo hi)",
    "; rm -rf /",
    "a b",
    "",
    "~/x",
    ".\\win",
  ];
  const r = resolveEntrypoint({ command: "python3", args }, dir);
  assert.deepEqual(r, {
    command: "python3",
    args: [
      `${dir}/main.js`,
      "/home/u/.octet/extensions/lib/x.py",
      "main.js",
      "/abs/path.js",
      "-u",
      "--flag=./not-resolved",
      "-",
      ".",
      "..",
      ".hidden",
      "..weird",
      "$(echo hi)",
      "; rm -rf /",
      "a b",
      "",
      "~/x",
      ".\\win",
    ],
  });
});

test("ENV-10: an absolute command is kept verbatim", () => {
  assert.equal(resolveEntrypoint({ command: "/usr/bin/node", args: [] }, dir).command, "/usr/bin/node");
});

test("the manifest's arrays are not modified", () => {
  const args = Object.freeze(["./x.js"]);
  const entry = Object.freeze({ command: "./run", args });
  const r = resolveEntrypoint(entry, dir);
  assert.deepEqual(args, ["./x.js"]);
  assert.notEqual(r.args, args);
});
