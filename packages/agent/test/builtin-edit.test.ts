import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { builtinTool } from "../src/tools/index.js";
import { makeWorkspace, readText, textOf } from "./helpers/builtin-workspace.js";

const edit = builtinTool("edit")!;

const SOURCE = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", ""].join("\n");

test("edit replaces the one occurrence, keeps the mode and answers a diff with context", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("f.txt"), SOURCE);
    chmodSync(ws.file("f.txt"), 0o640);
    const r = await edit.execute({ path: "f.txt", old_text: "five\n", new_text: "FIVE\nfive and a half\n" }, ws.ctx());
    assert.equal(r.isError, false);
    assert.equal(readText(ws.file("f.txt")), SOURCE.replace("five\n", "FIVE\nfive and a half\n"));
    assert.equal(
      textOf(r),
      ["edited f.txt", "@@ -2,7 +2,8 @@", " two", " three", " four", "-five", "+FIVE", "+five and a half", " six"]
        .concat([" seven", " eight"])
        .join("\n"),
    );
    assert.equal(r.details?.["firstChangedLine"], 5);
    assert.equal(statSync(ws.file("f.txt")).mode & 0o777, 0o640);
    assert.deepEqual(readdirSync(ws.dir), ["f.txt"]);
    assert.equal(edit.summary({ path: "f.txt", old_text: "a\nb", new_text: "c" }), "edit f.txt (2 lines -> 1)");
  } finally {
    ws.cleanup();
  }
});

test("edit: old_text not found -> an error quoting its start and pointing to read; the file is unchanged", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("f.txt"), SOURCE);
    const r = await edit.execute({ path: "f.txt", old_text: "  three\nfour", new_text: "x" }, ws.ctx());
    assert.equal(r.isError, true);
    assert.equal(
      textOf(r),
      'old_text was not found in f.txt (it begins "  three\\nfour"). Its first non-empty line (trimmed) does ' +
        "occur, at line 3: the difference is after that. It must match exactly, whitespace and indentation " +
        "included: read f.txt and copy the text from it",
    );
    assert.equal(readText(ws.file("f.txt")), SOURCE);
  } finally {
    ws.cleanup();
  }
});

test("edit: old_text found several times -> an error saying how many and asking for more context", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("f.txt"), "x = 1\ny = 2\nx = 1\naaa\n");
    const r = await edit.execute({ path: "f.txt", old_text: "x = 1", new_text: "x = 3" }, ws.ctx());
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^old_text occurs 2 times in f\.txt; it must occur exactly once\. Include more/);
    const overlapping = await edit.execute({ path: "f.txt", old_text: "aa", new_text: "b" }, ws.ctx());
    assert.match(textOf(overlapping), /occurs 2 times/);
    assert.equal(readText(ws.file("f.txt")), "x = 1\ny = 2\nx = 1\naaa\n");
  } finally {
    ws.cleanup();
  }
});

test("edit of a CRLF file with text copied from read (LF) matches and keeps the CRLF endings and BOM", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("win.txt"), "\ufeffa\r\nb\r\nc\r\n");
    const r = await edit.execute({ path: "win.txt", old_text: "a\nb\n", new_text: "a\nB\nb2\n" }, ws.ctx());
    assert.equal(r.isError, false, textOf(r));
    assert.equal(readFileSync(ws.file("win.txt"), "utf8"), "\ufeffa\r\nB\r\nb2\r\nc\r\n");
    assert.match(textOf(r), /CRLF line endings were kept/);
    assert.match(textOf(r), /\n-b\n\+B\n\+b2\n/);
  } finally {
    ws.cleanup();
  }
});

test("edit refuses a missing file, a binary file, identical texts and bad arguments with clear errors", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("bin"), Buffer.from([1, 0, 2]));
    writeFileSync(ws.file("t.txt"), "abc\n");
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ path: "nope.txt", old_text: "a", new_text: "b" }, /^file not found: nope\.txt$/],
      [{ path: "bin", old_text: "a", new_text: "b" }, /bin is a binary file/],
      [{ path: "t.txt", old_text: "abc", new_text: "abc" }, /old_text and new_text are the same/],
      [{ path: "t.txt", old_text: "", new_text: "b" }, /"old_text" must be a non-empty string; got an empty string/],
      [{ path: "t.txt", oldText: "abc", newText: "b" }, /"old_text" is required .* "path", "oldText", "newText"/],
      [{ path: "../t.txt", old_text: "abc", new_text: "b" }, /outside the workspace/],
    ];
    for (const [args, expected] of cases) {
      const r = await edit.execute(args, ws.ctx());
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match(textOf(r), expected);
    }
    assert.equal(readText(ws.file("t.txt")), "abc\n");
  } finally {
    ws.cleanup();
  }
});

test("edit at the very start and end of a file without a final newline", async () => {
  const ws = makeWorkspace();
  try {
    writeFileSync(ws.file("s.txt"), "first\nmiddle\nlast");
    const start = await edit.execute({ path: "s.txt", old_text: "first", new_text: "1st" }, ws.ctx());
    assert.equal(textOf(start), "edited s.txt\n@@ -1,3 +1,3 @@\n-first\n+1st\n middle\n last");
    const end = await edit.execute({ path: "s.txt", old_text: "last", new_text: "end\n" }, ws.ctx());
    assert.equal(end.isError, false);
    assert.equal(readText(ws.file("s.txt")), "1st\nmiddle\nend\n");
  } finally {
    ws.cleanup();
  }
});
