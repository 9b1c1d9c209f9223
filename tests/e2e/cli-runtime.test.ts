/**
 * The CLI's side of the feature-negotiated runtime, end to end with real processes: progress on
 * stderr (bar, spinner, output, decoration), confirmations and input (--yes, --no-input, the
 * terminal, secret input without echo, withdrawn questions), menus and renderers in the shell.
 * Terminal behaviour runs on a real pseudo-terminal (pty.ts); the rest on pipes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { makeExtensions, processesMentioning, runCli } from "./helpers.js";
import { makeCliExt, plain, runOnPty } from "./pty.js";

const sha = (s: string): string => createHash("sha256").update(s).digest("hex");
const SHELL_PROMPT = /octet> (\u001b\[\d+G)?$/;
const ASK_ALL = JSON.stringify({ steps: [{ confirm: "Proceed?" }, { input: "Your name:" }, { secret: "Token:" }] });

/** Runs `body` with a fresh cli-ext folder, then checks that no extension process is left. */
async function withExt(mode: "good" | "badmenu", body: (base: string[], dir: string) => Promise<void>): Promise<void> {
  const { dir, base, cleanup } = await makeCliExt(mode);
  try {
    await body(base, dir);
    assert.deepEqual(processesMentioning(dir), [], "no extension process is left");
  } finally {
    await cleanup();
  }
}

test(
  "PROG-05, PROG-06, PROG-09: on a terminal, octet call draws a throttled bar on stderr, prints output and " +
    "decoration, clears the line; stdout has only the result",
  async () => {
    await withExt("good", async (base) => {
      const run = await runOnPty([...base, "call", "progress", '{"n":200}'], { stdoutToFile: true });
      assert.equal(await run.exit(), 0, run.output());
      assert.equal(await run.stdout(), "progress done\n", "nothing of the progress on stdout");
      const out = run.output();
      assert.match(
        out,
        /\[#{20}\] 100% 200\/200 files {2}copying/,
        "the bar shows percentage, current/total, unit and message",
      );
      assert.match(out, /\r\u001b\[2K[|/\\-] warming up/, "a spinner while there is no total");
      const draws = out.match(/\r\u001b\[2K\[[#-]{20}\]/g) ?? [];
      assert.ok(
        draws.length >= 1 && draws.length <= 20,
        `200 status events in a burst drew the bar ${draws.length} times (throttled to 20 per second)`,
      );
      assert.match(out, /\u001b\[2m· phase: counting\u001b\[0m/, "the decoration is a dim line");
      const text = plain(out);
      assert.match(text, /\[progress stdout\] line one\n\[progress stdout\] line two\n/);
      assert.match(
        text,
        /\[progress stderr\] warn: é ok\n/,
        "base64 output decoded, a character split across events intact",
      );
      assert.match(
        text,
        /\[progress stdout\] no newline at end\n/,
        "an unterminated last line is printed when the call ends",
      );
      const tail = out.slice(out.lastIndexOf("copying"));
      assert.match(tail, /^copying\r\u001b\[2K/, "the bar is cleared at the end");
    });
  },
);

test(
  "PROG-06: without a terminal only output events reach stderr, " + "and --json keeps stdout to one JSON document",
  async () => {
    await withExt("good", async (base) => {
      const r = await runCli([...base, "--json", "call", "progress", '{"n":20}']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout)["text"], "progress done");
      assert.match(r.stderr, /\[progress stdout\] line one\n\[progress stdout\] line two\n/);
      assert.match(r.stderr, /\[progress stderr\] warn: é ok\n/);
      assert.doesNotMatch(
        r.stderr,
        /%|warming up|copying|phase|\r|\u001b/,
        "no bar, spinner or decoration, no escape sequences",
      );
    });
  },
);

test(
  "CONF-01, INPUT-01, INPUT-08: on a terminal the person answers y/N, a visible input and a secret input that is " +
    "never echoed",
  async () => {
    await withExt("good", async (base) => {
      const run = await runOnPty([...base, "call", "ask", ASK_ALL], { stdoutToFile: true });
      await run.waitFor(/Proceed\?[^]*\[y\/N\] $/, "the confirmation");
      run.type("y\r");
      await run.waitFor(/Your name: $/, "the input prompt");
      run.type("Ann\r");
      await run.waitFor(/Token:(\u001b\[2m)? \(hidden\)(\u001b\[0m)? $/, "the secret prompt");
      const before = run.output().length;
      run.type("s3cX");
      run.type("\u007f"); // Backspace
      run.type("ret\r");
      assert.equal(await run.exit(), 0, run.output());
      assert.deepEqual(
        JSON.parse(await run.stdout()),
        [true, "Ann", { sha256: sha("s3cret") }],
        "Backspace edited the secret",
      );
      assert.match(plain(run.output()), /Your name: Ann\n/, "ordinary input is echoed");
      const afterSecret = run.output().slice(before);
      for (const piece of ["s3c", "X", "ret", "*"])
        assert.ok(
          !afterSecret.includes(piece),
          `the secret is not echoed (found ${piece}): ${JSON.stringify(afterSecret)}`,
        );
    });
  },
);

test("INPUT-08: Ctrl-C at a secret prompt cancels the call, exits 130 and leaves no extension process", async () => {
  await withExt("good", async (base) => {
    const run = await runOnPty([...base, "call", "ask", JSON.stringify({ steps: [{ secret: "Token:" }] })], {
      stdoutToFile: true,
    });
    await run.waitFor(/Token:/, "the secret prompt");
    run.type("ab\u0003");
    assert.equal(await run.exit(), 130, run.output());
    assert.match(plain(run.output()), /\^C\n[^]*cancelling/);
    assert.equal(await run.stdout(), "");
  });
});

test(
  "CONF-04, INPUT-06: --no-input on a terminal never asks: " + "confirmations denied, input cancelled, each noted",
  async () => {
    await withExt("good", async (base) => {
      const run = await runOnPty([...base, "--no-input", "call", "ask", ASK_ALL], { stdoutToFile: true });
      assert.equal(await run.exit(), 0, run.output());
      assert.deepEqual(JSON.parse(await run.stdout()), [false, null, null]);
      const text = plain(run.output());
      assert.match(text, /\[cli-ext\] Proceed\?: denied \(--no-input\)/);
      assert.match(text, /\[cli-ext\] input requested: Your name:: cancelled \(--no-input\)/);
      assert.doesNotMatch(text, /\[y\/N\]/, "nothing was asked");
    });
  },
);

test(
  "CONF-04, INPUT-06: without a terminal confirmations are denied and input cancelled; --yes accepts confirmations " +
    "and says so",
  async () => {
    await withExt("good", async (base) => {
      const steps = JSON.stringify({ steps: [{ confirm: "Delete it?", destructive: true }, { input: "Your name:" }] });
      const headless = await runCli([...base, "call", "ask", steps]);
      assert.equal(headless.code, 0, headless.stderr);
      assert.deepEqual(JSON.parse(headless.stdout), [false, null]);
      assert.match(
        headless.stderr,
        /\[cli-ext\] Delete it\? \(destructive\): denied, no terminal to ask \(pass --yes to accept\)/,
      );
      assert.match(headless.stderr, /input requested: Your name:: cancelled, no terminal to ask/);
      const yes = await runCli([...base, "--yes", "--json", "call", "ask", steps]);
      assert.equal(yes.code, 0, yes.stderr);
      assert.deepEqual(
        JSON.parse(JSON.parse(yes.stdout)["text"]),
        [true, null],
        "--yes accepts confirmations, never invents input",
      );
      assert.match(yes.stderr, /\[cli-ext\] Delete it\? \(destructive\): yes \(--yes\)/);
      const short = await runCli([...base, "-y", "call", "ask", steps]);
      assert.deepEqual(JSON.parse(short.stdout), [true, null], "-y is --yes");
    });
  },
);

test("INPUT-07: a question whose call settles is withdrawn at once; the CLI does not wait for an answer", async () => {
  await withExt("good", async (base) => {
    const run = await runOnPty([...base, "call", "withdraw", '{"ms":500}'], { stdoutToFile: true });
    await run.waitFor(/Never answered: $/, "the question");
    assert.equal(await run.exit(5_000), 0, run.output());
    assert.equal(await run.stdout(), "gave up waiting\n");
    assert.match(plain(run.output()), /Never answered: \n\(the question was withdrawn: its call ended\)/);
  });
});

test(
  "MENU-04, MENU-05, MENU-11: /menu shows the tree with paths and marks; /menu NAME PATH runs the action with its " +
    "literal arguments",
  async () => {
    await withExt("good", async (base) => {
      const input = [
        "/menu cli-ext",
        "/menu cli-ext setup",
        "/menu cli-ext more/check",
        "/menu cli-ext nope",
        "/menu",
        "/quit",
        "",
      ].join("\n");
      const r = await runCli(base, { input });
      assert.equal(r.code, 0, r.stderr);
      const expected = [
        "CLI fixture (menu of cli-ext)",
        "status: ready: All good",
        "Pick one.",
        "  Set up  [setup] (recommended) — the usual",
        "  More/  [more/]",
        "    Check status  [more/check]",
        "  Wipe everything  [wipe] (destructive)",
        "run one with /menu cli-ext PATH",
      ].join("\n");
      assert.ok(r.stdout.includes(expected), r.stdout);
      assert.doesNotMatch(r.stdout, /generated menu/);
      assert.match(r.stdout, /ran setup \["--fast","x y"\]\n/);
      assert.match(r.stdout, /ran status \["deep"\]\n/);
      assert.match(r.stdout, /error: extension "cli-ext" has no menu action "nope"/);
      assert.match(r.stdout, /error: usage: \/menu NAME \[PATH\], e\.g\. \/menu cli-ext \(running: cli-ext\)/);
    });
  },
);

test("MENU-13: a destructive menu action is confirmed first: denied without a terminal, run with --yes", async () => {
  await withExt("good", async (base) => {
    const denied = await runCli(base, { input: "/menu cli-ext wipe\n/quit\n" });
    assert.equal(denied.code, 0, denied.stderr);
    assert.match(denied.stdout, /error: menu action "Wipe everything" of "cli-ext" was not confirmed/);
    assert.doesNotMatch(denied.stdout, /ran wipe/);
    assert.match(denied.stderr, /\[cli-ext\] Run "Wipe everything"\? \(destructive\): denied, no terminal to ask/);
    const yes = await runCli([...base, "--yes"], { input: "/menu cli-ext wipe\n/quit\n" });
    assert.match(yes.stdout, /ran wipe \[\]\n/);
    assert.match(yes.stderr, /\[cli-ext\] Run "Wipe everything"\? \(destructive\): yes \(--yes\)/);
  });
});

test(
  "MENU-03, MENU-06: a menu that names an undeclared command is replaced by the generated menu, and the shell says " +
    "why",
  async () => {
    await withExt("badmenu", async (base) => {
      const r = await runCli(base, { input: "/menu cli-ext\n/menu cli-ext status\n/quit\n" });
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /generated menu: menu rejected: .*undeclared/);
      assert.match(
        r.stdout,
        new RegExp(
          String.raw`  setup  \[setup\] — the setup command\n  wipe  \[wipe\] — the wipe command\n  ` +
            String.raw`status  \[status\] — the status command\n`,
        ),
      );
      assert.match(r.stdout, /ran status \[\]\n/, "the generated entry runs the command without arguments");
    });
  },
);

test(
  "REND-01, REND-02, REND-03: /call shows a renderer's segments, coloured by style role only on a terminal; a tool " +
    "without renderer prints its text",
  async () => {
    await withExt("good", async (base) => {
      const piped = await runCli(base, { input: "/call rendered {}\n/call plain {}\n/quit\n" });
      assert.equal(piped.code, 0, piped.stderr);
      assert.match(piped.stdout, /2 passed, 1 failed\n/);
      assert.match(piped.stdout, /plain text\n/);
      assert.doesNotMatch(piped.stdout, /\u001b/, "no colour without a terminal");

      const run = await runOnPty(base);
      await run.waitFor(SHELL_PROMPT, "the shell prompt");
      run.type("/call rendered {}\r");
      await run.waitFor(/1 failed/, "the rendered result");
      assert.match(run.output(), /\u001b\[32m2 passed\u001b\[0m, \u001b\[31m1 failed\u001b\[0m/);
      run.type("/quit\r");
      assert.equal(await run.exit(), 0, run.output());
    });
  },
);

test(
  "INPUT-08, PROG-05: in the shell on a terminal, a call shows its bar, a secret is read without echo, and readline " +
    "works afterwards",
  async () => {
    await withExt("good", async (base) => {
      const run = await runOnPty(base);
      await run.waitFor(SHELL_PROMPT, "the shell prompt");
      run.type('/call progress {"n":30}\r');
      await run.waitFor(/progress done\r?\n/, "the progress call");
      assert.match(run.output(), /\] 100% 30\/30 files/);
      const from = run.output().length;
      run.type(`/call ask ${JSON.stringify({ steps: [{ secret: "Token:" }, { confirm: "Sure?" }] })}\r`);
      // The prompt, not the echoed command line (which also says Token:): it carries the extension's tag.
      await run.waitFor(/\[cli-ext\]\S* Token:/, "the secret prompt", { from });
      const typedFrom = run.output().length;
      run.type("hunter2\r");
      await run.waitFor(/\[y\/N\] $/, "the confirmation", { from: typedFrom });
      run.type("n\r");
      await run.waitFor(new RegExp(sha("hunter2")), "the answer", { from });
      assert.ok(!run.output().slice(typedFrom).includes("hunter2"), "the secret is not echoed");
      assert.match(run.output().slice(typedFrom), /\{"sha256":"[0-9a-f]{64}"\},false\]/);
      const again = run.output().length;
      run.type("/tools\r");
      await run.waitFor(/TOOL\s+EXTENSION/, "/tools after the prompts", { from: again });
      run.type("/quit\r");
      assert.equal(await run.exit(), 0, run.output());
    });
  },
);

test("--yes and --no-input are documented in --help, and the shell help lists /menu", async () => {
  const help = await runCli(["--help"]);
  assert.match(help.stdout, /-y, --yes +accept every confirmation/);
  assert.match(help.stdout, /--no-input +never ask/);
  const shell = await runCli([], { input: "/help\n/quit\n" });
  assert.match(shell.stdout, /\/menu NAME PATH +run the menu action at PATH/);
});

test(
  "terminal safety: escape sequences in an extension's command text, notifications and errors never reach the " +
    "terminal",
  async () => {
    const { dir, cleanup } = await makeExtensions([
      { name: "esc", behaviour: "command-error", extraToml: 'commands = ["boom"]' },
    ]);
    try {
      const r = await runCli([
        "--extension-dir",
        dir,
        "--workspace",
        dir,
        "--enable-extension",
        "esc",
        "command",
        "boom",
      ]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /boom: the command failed as asked/);
      assert.ok(!/\u001b|PWNED\u0007/.test(r.stderr), `no escape sequence on stderr: ${JSON.stringify(r.stderr)}`);
    } finally {
      await cleanup();
    }
  },
);
