import { test } from "node:test";
import assert from "node:assert/strict";
import { LiveLine, MIN_REDRAW_MS, ProgressView, formatStatus, type Terminal } from "../src/progress-view.js";

function fakeTerminal(tty: boolean): Terminal & { text: string } {
  const t = { text: "", tty, color: false, columns: () => 60, write: (s: string) => void (t.text += s) };
  return t;
}

const CLEAR = "\r\u001b[2K";

test(
  "PROG-05: a status with a total is a bar with percentage, current/total, unit and message; without one, " +
    "a spinner",
  () => {
    assert.equal(
      formatStatus({ type: "status", message: "copying", current: 5, total: 20, unit: "files" }, 0),
      "[#####---------------]  25% 5/20 files  copying",
    );
    assert.equal(
      formatStatus({ type: "status", message: "", current: 30, total: 20 }, 0),
      "[####################] 100% 30/20",
      "current above total is clamped to 100%",
    );
    assert.equal(
      formatStatus({ type: "status", message: "x", current: 1.25, total: 3 }, 0),
      "[########------------]  41% 1.3/3  x",
    );
    assert.equal(
      formatStatus({ type: "status", message: "waiting", total: 0 }, 1),
      "/ waiting",
      "a total of 0 is no total",
    );
    assert.equal(
      formatStatus({ type: "status", message: "reading\tthe\nlog", current: 7, unit: "MiB" }, 2),
      "- reading the log (7 MiB)",
      "one line, the count without a total",
    );
  },
);

test(
  "PROG-05: a burst of status events draws once at once and once more with the latest state, at most " + "every 50 ms",
  async () => {
    const term = fakeTerminal(true);
    let now = 1000;
    const view = new ProgressView(new LiveLine(term), "t", () => now);
    for (let i = 1; i <= 100; i++) view.handle({ type: "status", message: "m", current: i, total: 100 });
    assert.equal(term.text.split(CLEAR).length - 1, 1, "the first event draws");
    assert.match(term.text, /1\/100/);
    now += MIN_REDRAW_MS;
    await new Promise((r) => setTimeout(r, MIN_REDRAW_MS + 30));
    assert.equal(term.text.split(CLEAR).length - 1, 2, "one deferred redraw for the other 99");
    assert.match(term.text, /100% 100\/100  m$/);
    view.finish();
    assert.ok(term.text.endsWith(CLEAR), "finish clears the line");
  },
);

test(
  "PROG-06: output is printed per line with a stream prefix, across events, with CR progress and CRLF " +
    "reduced, flushed at the end",
  () => {
    const term = fakeTerminal(false);
    const view = new ProgressView(new LiveLine(term), "tool");
    view.handle({ type: "output", stream: "stdout", encoding: "utf8", data: "a\nb" });
    view.handle({
      type: "output",
      stream: "stderr",
      encoding: "base64",
      data: Buffer.from("e1\r\n").toString("base64"),
    });
    view.handle({ type: "output", stream: "stdout", encoding: "utf8", data: "c\n10%\r20%\n\u001b]0;title\u0007tail" });
    view.handle({ type: "status", message: "ignored without a terminal", total: 2, current: 1 });
    view.handle({ type: "decoration", label: "ignored too" });
    view.finish();
    assert.equal(
      term.text,
      "[tool stdout] a\n[tool stderr] e1\n[tool stdout] bc\n[tool stdout] 20%\n[tool stdout] tail\n",
    );
  },
);

test("a prompt holds the live line: messages wait and the bar comes back after it", () => {
  const term = fakeTerminal(true);
  const line = new LiveLine(term);
  const out = (): string => term.text;
  line.show("bar");
  const release = line.hold();
  assert.equal(out(), `${CLEAR}bar${CLEAR}`);
  line.print("note\n");
  line.show("bar 2");
  assert.equal(out(), `${CLEAR}bar${CLEAR}`, "nothing is drawn while held");
  release();
  assert.equal(out(), `${CLEAR}bar${CLEAR}note\n${CLEAR}bar 2`);
  line.print("later\n");
  assert.ok(out().endsWith(`${CLEAR}later\n${CLEAR}bar 2`), "a message clears the line, prints, and redraws it");
});

test("the live line never wraps: it is cut to the terminal width", () => {
  const term = fakeTerminal(true);
  new LiveLine(term).show("x".repeat(200));
  assert.equal(term.text, `${CLEAR}${"x".repeat(58)}…`);
});
