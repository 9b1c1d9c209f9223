import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { READ_MAX_OUTPUT_BYTES } from "../src/tools/read.js";
import { builtinTool } from "../src/tools/index.js";
import { makeWorkspace, textOf } from "./helpers/builtin-workspace.js";

const read = builtinTool("read")!;

function lines(n: number, make: (i: number) => string = (i) => `line ${i}`): string {
  return `${Array.from({ length: n }, (_, i) => make(i + 1)).join("\n")}\n`;
}

test("read shows numbered lines, does not mutate, and a file without a final newline keeps its last line", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("a.txt"), "alpha\nbeta\r\ngamma");
    const r = await read.execute({ path: "a.txt" }, ws.ctx());
    assert.equal(r.isError, false);
    assert.equal(textOf(r), "    1\talpha\n    2\tbeta\n    3\tgamma");
    assert.equal(r.details?.["totalLines"], 3);
    assert.equal(read.mutates, false);
    assert.equal(read.summary({ path: "a.txt", offset: 2, limit: 5 }), "read a.txt (lines 2-6)");
  } finally {
    ws.cleanup();
  }
});

test("read honours offset and limit and says which offset reads on", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("n.txt"), lines(50));
    const r = await read.execute({ path: "n.txt", offset: 10, limit: 3 }, ws.ctx());
    assert.equal(r.isError, false);
    assert.equal(
      textOf(r),
      "   10\tline 10\n   11\tline 11\n   12\tline 12\n\n[lines 10-12 shown, more follow; use offset=13 to read on]",
    );
    const last = await read.execute({ path: "n.txt", offset: 49 }, ws.ctx());
    assert.equal(textOf(last), "   49\tline 49\n   50\tline 50");
  } finally {
    ws.cleanup();
  }
});

test("read stops at 2000 lines by default with a note to use offset=2001", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(
      ws.file("big.txt"),
      lines(2500, (i) => String(i)),
    );
    const r = await read.execute({ path: "big.txt" }, ws.ctx());
    const text = textOf(r);
    assert.match(text, /\n {1}2000\t2000\n\n\[lines 1-2000 shown, more follow; use offset=2001 to read on\]$/);
    assert.doesNotMatch(text, /\t2001\n/);
    assert.equal(r.details?.["truncated"], true);
  } finally {
    ws.cleanup();
  }
});

test("read cuts a line at 2000 characters and caps the answer at 50 KiB with the offset to continue", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("wide.txt"), `${"x".repeat(5000)}\nshort\n`);
    const wide = textOf(await read.execute({ path: "wide.txt" }, ws.ctx()));
    assert.ok(wide.startsWith(`    1\t${"x".repeat(2000)} [line cut at 2000 characters]\n    2\tshort`));
    assert.match(wide, /1 line\(s\) were cut at 2000 characters/);

    writeFileSync(
      ws.file("long.txt"),
      lines(1000, (i) => `${i} ${"y".repeat(100)}`),
    );
    const r = await read.execute({ path: "long.txt" }, ws.ctx());
    const text = textOf(r);
    const body = text.slice(0, text.lastIndexOf("\n\n["));
    assert.ok(Buffer.byteLength(body) <= READ_MAX_OUTPUT_BYTES, `${Buffer.byteLength(body)} bytes`);
    const shownNumber = Number(body.split("\n").at(-1)!.split("\t")[0]);
    assert.ok(Number.isInteger(shownNumber) && shownNumber < 1000, `last line shown: ${shownNumber}`);
    assert.match(text, new RegExp(`reached its 50 KiB cap; use offset=${shownNumber + 1} to read on\\]$`));
    const next = await read.execute({ path: "long.txt", offset: shownNumber + 1, limit: 1 }, ws.ctx());
    assert.ok(textOf(next).startsWith(`${String(shownNumber + 1).padStart(5)}\t${shownNumber + 1} y`));
  } finally {
    ws.cleanup();
  }
});

test("read refuses binary files, non-UTF-8 text, folders and missing files with a clear error", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("bin.dat"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
    writeFileSync(ws.file("latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
    mkdirSync(ws.file("folder"));
    const cases: [string, RegExp][] = [
      ["bin.dat", /bin\.dat is a binary file \(it contains NUL bytes\)/],
      ["latin1.txt", /latin1\.txt is not UTF-8 text/],
      ["folder", /folder is a directory, not a file/],
      ["missing.txt", /file not found: missing\.txt/],
    ];
    for (const [p, expected] of cases) {
      const r = await read.execute({ path: p }, ws.ctx());
      assert.equal(r.isError, true, p);
      assert.match(textOf(r), expected);
    }
  } finally {
    ws.cleanup();
  }
});

test("read: an empty file, and an offset past the end names the file's length", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("empty.txt"), "");
    writeFileSync(ws.file("two.txt"), "a\nb");
    const empty = await read.execute({ path: "empty.txt" }, ws.ctx());
    assert.equal(empty.isError, false);
    assert.match(textOf(empty), /empty\.txt is empty/);
    const past = await read.execute({ path: "two.txt", offset: 3 }, ws.ctx());
    assert.equal(past.isError, true);
    assert.equal(textOf(past), "offset 3 is past the end of two.txt, which has 2 lines");
  } finally {
    ws.cleanup();
  }
});

test("read refuses paths outside the workspace: .., absolute, and a symlink that leads out", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(path.join(ws.outside, "secret.txt"), "secret\n");
    symlinkSync(path.join(ws.outside, "secret.txt"), ws.file("link.txt"));
    symlinkSync(ws.outside, ws.file("linkdir"));
    writeFileSync(ws.file("inside.txt"), "ok\n");
    symlinkSync("inside.txt", ws.file("good-link.txt"));
    for (const p of ["../outside/secret.txt", path.join(ws.outside, "secret.txt"), "link.txt", "linkdir/secret.txt"]) {
      const r = await read.execute({ path: p }, ws.ctx());
      assert.equal(r.isError, true, p);
      assert.match(textOf(r), /outside the workspace/, p);
      assert.doesNotMatch(textOf(r), /\tsecret/);
    }
    const ok = await read.execute({ path: ws.file("sub/../good-link.txt") }, ws.ctx());
    assert.equal(textOf(ok), "    1\tok");
  } finally {
    ws.cleanup();
  }
});

test("read checks its arguments and names the field and what was expected", async () => {
  const ws = makeWorkspace();
  try {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'read: "path" is required (a non-empty string); the fields given were none'],
      [{ file: "a" }, 'read: "path" is required (a non-empty string); the fields given were "file"'],
      [{ path: 3 }, 'read: "path" must be a non-empty string; got 3'],
      [{ path: "a", offset: 0 }, 'read: "offset" must be an integer at least 1; got 0'],
      [{ path: "a", limit: 2.5 }, 'read: "limit" must be an integer at least 1; got 2.5'],
      [{ path: "a", limit: "many" }, 'read: "limit" must be an integer at least 1; got "many"'],
    ];
    for (const [args, message] of cases) {
      const r = await read.execute(args, ws.ctx());
      assert.equal(r.isError, true);
      assert.equal(textOf(r), message);
    }
    writeFileSync(ws.file("a"), "1\n2\n3\n");
    const numericString = await read.execute({ path: "a", offset: "2", limit: "1" }, ws.ctx());
    assert.match(textOf(numericString), /^ {4}2\t2\n/);
  } finally {
    ws.cleanup();
  }
});
