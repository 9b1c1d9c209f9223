// Terminal handoff in the interactive shell on a real pseudo-terminal (W 2.24, issue 16.4): an
// extension takes the terminal, writes to it and reads from it, gives it back, and the shell's
// prompt works again; a holder killed mid-grant loses it and the shell recovers its screen.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, processesMentioning, runCli, waitUntil } from "./helpers.js";
import { plain, runOnPty } from "./pty.js";

const PROBE = join(ROOT, "tests", "fixtures", "terminal-probe.mjs");
const PY_PROBE = join(ROOT, "tests", "fixtures", "terminal-probe.py");

function probeDir(): { dir: string; base: string[]; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "octet-terminal-pty-"));
  mkdirSync(join(dir, "terminal-probe"));
  writeFileSync(
    join(dir, "terminal-probe", "extension.toml"),
    `name = "terminal-probe"
version = "0.0.1"
api_version = "0.4"

[entrypoint]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(PROBE)}, ${JSON.stringify(dir)}]

[contributes]
commands = ["grab", "grab-hold", "grab-twice", "grab-leak", "grab-available", "grab-watch"]
`,
  );
  mkdirSync(join(dir, "py-probe"));
  writeFileSync(
    join(dir, "py-probe", "extension.toml"),
    `name = "py-probe"
version = "0.0.1"
api_version = "0.4"

[entrypoint]
command = "python3"
args = [${JSON.stringify(PY_PROBE)}, ${JSON.stringify(dir)}]

[contributes]
commands = ["pygrab", "pyleak"]
`,
  );
  const base = ["--extension-dir", dir, "--workspace", dir, "--enable-extension", "terminal-probe"];
  return { dir, base, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

test("TERM-01, TERM-02: an extension takes the terminal, writes, reads, gives it back; the prompt works", async () => {
  const p = probeDir();
  const pty = await runOnPty(p.base, { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/grab\r");
    await pty.waitFor(/PROBE-DREW 100x\d+/, "the extension writing to the terminal it was granted");
    const mark = pty.output().length;
    pty.type("hello tty\r");
    await pty.waitFor(/grab released after hello tty/, "the command's answer after the release", { from: mark });
    // While the extension held the terminal the shell drew nothing: no prompt, no echo of its own.
    const lent = pty.output().slice(mark, pty.output().indexOf("grab released"));
    assert.doesNotMatch(lent, /octet> /);
    assert.equal(lent.split("hello tty").length - 1, 1, "the line was echoed once, by the tty for the extension");
    // The shell reads again: a command typed now runs.
    const again = pty.output().length;
    pty.type("/commands\r");
    await pty.waitFor(/\/grab-hold/, "the shell answering /commands after the handoff", { from: again });
    await pty.waitFor(/octet> /, "the prompt again", { from: again });
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    p.cleanup();
  }
});

test("TERM-08: keys typed and a resize while an extension holds the terminal send it no observation", async () => {
  const p = probeDir();
  const pty = await runOnPty(p.base, { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/grab-watch\r");
    await pty.waitFor(/PROBE-WATCH 100x30/, "the extension holding the terminal");
    // While the grant is live: the window is resized, then a line is typed on the terminal.
    pty.resize();
    pty.type("typed while held\r");
    await pty.waitFor(/watch released after typed while held at 80x24/, "the holder reading at the new size");
    // After the release the shell owns the terminal again: more keys and the prompt.
    const again = pty.output().length;
    pty.type("/commands\r");
    await pty.waitFor(/\/grab-watch/, "the shell answering /commands after the handoff", { from: again });
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
    const frames = readFileSync(join(p.dir, "frames.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { method?: string; params?: unknown });
    const methods = frames.flatMap((f) => (f.method === undefined ? [] : [f.method]));
    // The log is live: it holds the initialize and the command that took the terminal.
    assert.ok(methods.includes("initialize"), methods.join(" "));
    assert.ok(methods.includes("command/execute"), methods.join(" "));
    for (const m of ["ui/terminal-input", "ui/resize"]) assert.ok(!methods.includes(m), `${m} in ${methods.join(" ")}`);
    // Nor did the typed line reach the holder over the wire in any other frame.
    assert.doesNotMatch(JSON.stringify(frames), /typed while held/);
  } finally {
    pty.stop();
    p.cleanup();
  }
});

test("TERM-07: a holder killed mid-grant loses it; the shell recovers its screen and its prompt", async () => {
  const p = probeDir();
  const pty = await runOnPty(p.base, { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/grab-hold\r");
    await pty.waitFor(/PROBE-HOLDING/, "the holder on the alternate screen");
    // The extension's own process as this test sees it (inside a PID namespace it is PID 1).
    const holder = processesMentioning(PROBE).filter((pid) => {
      const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      return argv[0] === process.execPath && argv.includes(p.dir);
    });
    assert.equal(holder.length, 1, `one holder process, found ${holder.join(", ")}`);
    const mark = pty.output().length;
    process.kill(holder[0]!, "SIGKILL");
    await pty.waitFor(/\u001b\[\?1049l\u001b\[\?25h/, "the shell leaving the alternate screen, cursor shown", {
      from: mark,
    });
    await pty.waitFor(/the terminal was taken back from terminal-probe: (call_ended|process_ended)/, "the note", {
      from: mark,
    });
    await pty.waitFor(/octet> /, "the prompt after the failed command", { from: mark });
    await pty.waitFor(/generation 2 is ready/, "the supervisor restarting the extension", { from: mark });
    const again = pty.output().length;
    pty.type("/commands\r");
    await pty.waitFor(/\/grab-twice/, "the shell reading keys again (raw mode restored)", { from: again });
    assert.match(plain(pty.output().slice(mark)), /error: /, "the killed holder's command failed");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    p.cleanup();
  }
});

test("TERM-03: a second acquire by the holder is invalid_request; the first grant is released", async () => {
  const p = probeDir();
  const pty = await runOnPty(p.base, { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/grab-twice\r");
    await pty.waitFor(
      /second acquire: .*invalid_request terminal\/acquire refused: this extension already holds/,
      "the refusal",
    );
    const again = pty.output().length;
    pty.type("/grab\r");
    await pty.waitFor(/PROBE-DREW/, "a new grant after the release", { from: again });
    pty.type("x\r");
    await pty.waitFor(/grab released after x/, "the second grant released", { from: again });
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    p.cleanup();
  }
});

test("TERM-07, TERM-10: a call answering while it holds the terminal loses it: grant-lost reaches it", async () => {
  const p = probeDir();
  const pty = await runOnPty(p.base, { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/grab-leak\r");
    await pty.waitFor(/answered while holding the terminal/, "the command's answer");
    await pty.waitFor(/taken back from terminal-probe: call_ended/, "the shell taking its terminal back");
    await waitUntil(() => existsSync(join(p.dir, "lost.txt")), 10_000, "the holder's grant-lost handler");
    assert.equal(
      readFileSync(join(p.dir, "lost.txt"), "utf8"),
      "lost the leaked grant call_ended: the call that acquired the terminal settled (signal aborted)\n",
    );
    const again = pty.output().length;
    pty.type("/grab\r");
    await pty.waitFor(/PROBE-DREW/, "the next grant", { from: again });
    pty.type("ok\r");
    await pty.waitFor(/grab released after ok/, "released", { from: again });
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    p.cleanup();
  }
});

test("TERM-05: the shell over a pipe has no terminal to lend: acquire is refused with invalid_request", async () => {
  const p = probeDir();
  try {
    const r = await runCli(["--no-input", ...p.base], { input: "/grab-available\n/quit\n" });
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /available=true; invalid_request terminal\/acquire refused: no interactive frontend owns a terminal/,
    );
  } finally {
    p.cleanup();
  }
});

test("examples/pager: /pager takes the terminal for a full-screen view, scrolls, and gives it back", async () => {
  const pty = await runOnPty(["--extension-dir", join(ROOT, "examples"), "--enable-extension", "pager"], {
    env: { NO_COLOR: "1" },
  });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/pager\r");
    await pty.waitFor(/PAGER 1-\d+\/200/, "the pager's status line");
    pty.type("j");
    await pty.waitFor(/PAGER 2-\d+\/200/, "one line down");
    const mark = pty.output().length;
    pty.type("q");
    await pty.waitFor(/pager closed at line 2 of 200/, "the command's answer", { from: mark });
    assert.match(pty.output().slice(mark), /\u001b\[\?1049l/, "the pager left the alternate screen");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
  }
});

test("TERM-01, TERM-07: the Python SDK takes the terminal, reads, gives it back; a leaked grant is lost", async () => {
  const p = probeDir();
  const pty = await runOnPty([...p.base, "--enable-extension", "py-probe"], { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/pygrab\r");
    await pty.waitFor(/PY-DREW 100x\d+/, "the Python extension writing to the terminal");
    const mark = pty.output().length;
    pty.type("from python\r");
    await pty.waitFor(/pygrab released after from python/, "the answer after the release", { from: mark });
    pty.type("/pyleak\r");
    await pty.waitFor(/taken back from py-probe: call_ended/, "the shell taking its terminal back", { from: mark });
    await waitUntil(() => existsSync(join(p.dir, "lost.txt")), 10_000, "the Python grant-lost handler");
    assert.equal(
      readFileSync(join(p.dir, "lost.txt"), "utf8"),
      "lost call_ended: the call that acquired the terminal settled (event set)\n",
    );
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    p.cleanup();
  }
});

test("TERM-07: Ctrl-C while an extension holds the terminal cancels its call; the shell takes it back", async () => {
  const p = probeDir();
  const pty = await runOnPty(p.base, { env: { NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("/grab\r");
    await pty.waitFor(/PROBE-DREW/, "the holder");
    const mark = pty.output().length;
    pty.type("\u0003");
    await pty.waitFor(/cancelling the running call/, "the shell cancelling the call", { from: mark });
    await pty.waitFor(/taken back from terminal-probe: call_ended/, "the terminal taken back", { from: mark });
    await pty.waitFor(/octet> /, "the prompt", { from: mark });
    const again = pty.output().length;
    pty.type("/commands\r");
    await pty.waitFor(/\/grab-twice/, "the shell reading keys again", { from: again });
    // The holder stopped reading the tty when its call was cancelled: it settled, nobody killed it.
    assert.doesNotMatch(pty.output(), /did not settle cancelled/);
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    p.cleanup();
  }
});
