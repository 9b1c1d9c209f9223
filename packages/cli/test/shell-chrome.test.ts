// The shell's chrome around the prompt (shell-chrome.ts): lines cut to the terminal's cells, wide
// characters counted as two, and the footer as the prompt's first lines, made terminal-safe.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createInterface } from "node:readline";
import { PassThrough } from "node:stream";
import { fitCells, ShellChrome } from "../src/shell-chrome.js";

test("fitCells: a line that fits is kept; a longer one is cut with an ellipsis; wide ones count two", () => {
  assert.equal(fitCells("short", 10), "short");
  assert.equal(fitCells("abcdefghijkl", 10), "abcdefghi…");
  // Six CJK characters are twelve cells: four (8 cells) and the ellipsis fit in ten.
  assert.equal(fitCells("漢字漢字漢字", 10), "漢字漢字…");
  // A grapheme of several code points (e + combining acute) is one cell and never split.
  assert.equal(fitCells("e\u0301".repeat(12), 5), `${"e\u0301".repeat(4)}…`);
});

test("the footer text of each extension stands above the prompt, escapes removed; a stopped generation's goes", () => {
  const out = Object.assign(new PassThrough(), { columns: 21 }) as unknown as NodeJS.WriteStream;
  const chrome = new ShellChrome({ out, idle: () => true });
  const status = (extension: string, generation: number, text: string) =>
    chrome.observe({
      type: "status",
      extension,
      generation,
      contribution: { surface: "footer", text, style_role: null, priority: 0 },
    });
  status("a", 1, "tokens \u001b[31m12\u001b[0m\nmodel x");
  status("b", 1, "a footer longer than twenty cells");
  assert.equal(chrome.prompt(), "tokens 12\nmodel x\na footer longer tha…\noctet> ");
  chrome.observe({ type: "state", extension: "a", generation: 1, state: "stopped" });
  assert.equal(chrome.prompt(), "a footer longer tha…\noctet> ");
  status("b", 1, "");
  assert.equal(chrome.prompt(), "octet> ");
});

test("a header set while the prompt is shown is printed above it; the typed text and footer redrawn", async () => {
  const input = new PassThrough();
  const out = Object.assign(new PassThrough(), { columns: 40, isTTY: true }) as unknown as NodeJS.WriteStream;
  let written = "";
  out.on("data", (d: Buffer) => (written += d.toString("utf8")));
  const rl = createInterface({ input, output: out, terminal: true, prompt: "octet> " });
  const chrome = new ShellChrome({ out, idle: () => true });
  try {
    chrome.attach(rl);
    const status = (surface: "header" | "footer", text: string) =>
      chrome.observe({
        type: "status",
        extension: "x",
        generation: 1,
        contribution: { surface, text, style_role: null, priority: 0 },
      });
    status("footer", "feet");
    rl.prompt();
    input.write("typed");
    await new Promise((r) => setImmediate(r));
    const mark = written.length;
    status("header", "HEAD one\nHEAD two");
    await new Promise((r) => setImmediate(r));
    const after = written.slice(mark);
    // Cleared from the prompt's first row, the header written, then footer, prompt and typed text again.
    assert.match(after, /HEAD one\nHEAD two\n[\s\S]*feet\r?\n?[\s\S]*octet> typed/);
    assert.equal(rl.line, "typed", "the typed text is kept");
  } finally {
    rl.close();
  }
});
