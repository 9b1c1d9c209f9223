import { test } from "node:test";
import assert from "node:assert/strict";
import { terminalSafe } from "../src/output.js";
import { renderSegments, roleColor } from "../src/render-view.js";

test("REND-01: style roles map to colours by word", () => {
  assert.equal(roleColor("extension.tests.fail"), "red");
  assert.equal(roleColor("test-error"), "red");
  assert.equal(roleColor("extension.greeter.ok"), "green");
  assert.equal(roleColor("build.success"), "green");
  assert.equal(roleColor("lint.warning"), "yellow");
  assert.equal(roleColor("extension.x.detail"), "dim");
  assert.equal(roleColor("dim"), "dim");
  assert.equal(roleColor("extension.token.count"), null, '"ok" inside a word is not ok');
  assert.equal(roleColor(null), null);
});

test("REND-01: segments are joined; without a terminal there is no colour and no control character", () => {
  const stream = { isTTY: false } as NodeJS.WriteStream;
  assert.equal(
    renderSegments(
      [
        { text: "2 passed", style_role: "x.ok" },
        { text: ", ", style_role: null },
        { text: "1\u001b[2J failed", style_role: "x.fail" },
      ],
      stream,
    ),
    "2 passed, 1 failed",
  );
});

test("terminalSafe drops control characters, keeping LF and TAB, and colours only when asked", () => {
  assert.equal(terminalSafe("a\u001b[31mb\u001b[0m\tc\nd\u0007\u009b"), "ab\tc\nd");
  assert.equal(
    terminalSafe("a\u001b[31mb\u001b[2Jc", true),
    "a\u001b[31mbc\u001b[0m",
    "colours kept, other sequences dropped whole",
  );
  assert.equal(
    terminalSafe("x\u001b]0;title\u0007y\u001b]8;;http://e\u001b\\z\u001bMw"),
    "xyzw",
    "OSC and two-byte sequences dropped whole",
  );
});
