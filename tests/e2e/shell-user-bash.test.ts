// pi's `!command` and `!!command` in the shell, and pi's user_bash event (issue 17.4): the command
// runs in the workspace, its output is drawn and recorded in the session (bash_execution), and the
// next model request carries it for `!` and not for `!!`, read from the requests the scripted
// OpenAI-compatible server received. pi extensions take the command over with a `{result}`
// answer, or with `{operations}` whose exec runs inside the extension: pi's shipped ssh.ts in the
// node runtime, with a fake `ssh` early on PATH that runs the command here and logs its host.
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { processesMentioning, ROOT, runCli, waitUntil } from "./helpers.js";
import { runOnPty } from "./pty.js";

const PI_EXAMPLES = join(ROOT, "node_modules/@mariozechner/pi-coding-agent/examples/extensions");

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

async function setup(script: Record<string, unknown>[]) {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-user-bash-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  writeFileSync(join(home, "settings.json"), JSON.stringify({ model: "scripted/scripted-model" }));
  const ws = realpathSync(mkdtempSync(join(tmpdir(), "octet-user-bash-ws-")));
  const session = (): Record<string, unknown>[] => {
    const dir = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
    return readFileSync(join(dir, readdirSync(dir)[0]!), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };
  return { server, home, ws, session };
}

/** The user messages of a chat-completions request, as text. */
function userText(body: Record<string, unknown>): string {
  const messages = body["messages"] as { role: string; content: unknown }[];
  return messages
    .filter((m) => m.role === "user")
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content)))
    .join("\n");
}

test("!echo and !!echo on a terminal: output drawn, recorded, in the next request's context only for !", async () => {
  const t = await setup([{ match: "what ran", text: "I saw it." }]);
  const pty = await runOnPty(["--workspace", t.ws], { env: { OCTET_HOME: t.home, NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type("!echo hi-in-context; pwd\r");
    await pty.waitFor(/hi-in-context[\s\S]*\[exit code 0; added to the model's context\]/, "the ! run");
    const mark = pty.output().length;
    pty.type("!!echo hi-kept-out; exit 4\r");
    await pty.waitFor(/hi-kept-out[\s\S]*\[exit code 4; kept out of the model's context\]/, "the !! run", {
      from: mark,
    });
    pty.type("what ran\r");
    await pty.waitFor(/I saw it\./, "the answer");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    await t.server.close();
  }
  const sent = userText(t.server.requests[0]!);
  assert.match(sent, /Ran `echo hi-in-context; pwd`\n```\nhi-in-context\n/, "pi's text of a ! run is in context");
  assert.ok(sent.includes(t.ws), "the command ran in the workspace (pwd)");
  assert.doesNotMatch(sent, /hi-kept-out/, "a !! run is not");
  const runs = t.session().filter((e) => e["type"] === "bash_execution");
  assert.deepEqual(
    runs.map((e) => [e["command"], e["exit_code"], e["exclude_from_context"], e["cancelled"]]),
    [
      ["echo hi-in-context; pwd", 0, false, false],
      ["echo hi-kept-out; exit 4", 4, true, false],
    ],
  );
  assert.equal(runs[1]!["output"], "hi-kept-out", "a !! run is still recorded with its output");
});

test("Ctrl-C kills a running !command (its process group); it is recorded as cancelled", async () => {
  const marker = `octet-user-bash-${process.pid}-${Date.now()}`;
  const t = await setup([]);
  const pty = await runOnPty(["--workspace", t.ws], { env: { OCTET_HOME: t.home, NO_COLOR: "1" } });
  try {
    await pty.waitFor(/octet> /, "the prompt");
    pty.type(`!echo started; sleep 30; echo never-${marker}\r`);
    await pty.waitFor(/\nstarted/, "the command's first output");
    assert.ok(processesMentioning(marker).length > 0, "the command runs");
    pty.type("\x03");
    await pty.waitFor(/\[cancelled; added to the model's context\]/, "the cancellation");
    await waitUntil(() => processesMentioning(marker).length === 0, 5000, "the command's processes to be gone");
    pty.type("/quit\r");
    assert.equal(await pty.exit(), 0);
  } finally {
    pty.stop();
    await t.server.close();
  }
  const run = t.session().find((e) => e["type"] === "bash_execution")!;
  assert.equal(run["cancelled"], true);
  assert.equal(run["exit_code"], null);
  assert.doesNotMatch(String(run["output"]), /never/);
});

const RESULT_EXTENSION = `
export default function (pi) {
  pi.on("user_bash", (event) => {
    if (event.command.startsWith("fake ")) {
      return { result: { output: "replaced " + event.command + " in " + event.cwd + " excluded=" +
        event.excludeFromContext, exitCode: 3, cancelled: false, truncated: false } };
    }
    if (event.command.startsWith("ops ")) {
      return { operations: { exec: async (command, cwd, options) => {
        options.onData("ops ran " + command + "\\n");
        options.onData("in " + cwd + "\\n");
        return { exitCode: 0 };
      } } };
    }
    return undefined;
  });
}
`;

test("user_bash: a {result} answer replaces the run; {operations} exec runs in the extension (QuickJS)", async () => {
  const t = await setup([{ match: "what ran", text: "noted" }]);
  const ext = join(mkdtempSync(join(tmpdir(), "octet-user-bash-ext-")), "bash-hook.ts");
  writeFileSync(ext, RESULT_EXTENSION);
  try {
    const r = await runCli(["--workspace", t.ws, "--pi-extension", ext], {
      input: "!fake ls -la\n!!ops uname\n!echo local-run\nwhat ran\n/quit\n",
      env: { OCTET_HOME: t.home },
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`replaced fake ls -la in ${t.ws} excluded=false\n`));
    assert.match(r.stdout, /\[run by extension bash-hook; exit code 3; added to the model's context\]/);
    assert.match(r.stdout, /ops ran ops uname\nin /, "the operations' output, streamed from the extension");
    assert.match(r.stdout, /local-run\n\[exit code 0; added/, "no answer: octet runs it");
  } finally {
    await t.server.close();
  }
  const sent = userText(t.server.requests[0]!);
  assert.match(sent, /Ran `fake ls -la`\n```\nreplaced fake ls -la/, "the extension's result is what the model reads");
  assert.match(sent, /Command exited with code 3/);
  assert.doesNotMatch(sent, /ops ran/, "!! kept the operations' output out of the context");
  const runs = t.session().filter((e) => e["type"] === "bash_execution");
  assert.deepEqual(
    runs.map((e) => [e["command"], e["exit_code"], e["exclude_from_context"]]),
    [
      ["fake ls -la", 3, false],
      ["ops uname", 0, true],
      ["echo local-run", 0, false],
    ],
  );
  assert.match(String(runs[1]!["output"]), new RegExp(`^ops ran ops uname\nin ${t.ws}`));
});

/**
 * pi's ssh.ts as shipped registers read, write, edit and bash, names octet's agent keeps for its
 * built-in tools, so it does not start in a session with a model. Its user_bash part is run here:
 * createRemoteBashOps cut unchanged from the shipped file, with ssh.ts's flag, session_start
 * (the user@host:/path form) and user_bash handler.
 */
function sshUserBashPart(): string {
  const shipped = readFileSync(join(PI_EXAMPLES, "ssh.ts"), "utf8");
  const ops = shipped.slice(
    shipped.indexOf("function createRemoteBashOps"),
    shipped.indexOf("export default function"),
  );
  assert.match(ops, /spawn\("ssh", \[remote, cmd\]/, "the shipped operations run ssh");
  return `import { spawn } from "node:child_process";
${ops}
export default function (pi) {
  pi.registerFlag("ssh", { description: "SSH remote: user@host or user@host:/path", type: "string" });
  const localCwd = process.cwd();
  let resolvedSsh = null;
  pi.on("session_start", async () => {
    const arg = pi.getFlag("ssh");
    if (arg && arg.includes(":")) {
      const [remote, path] = arg.split(":");
      resolvedSsh = { remote, remoteCwd: path };
    }
  });
  pi.on("user_bash", (_event) => {
    const ssh = resolvedSsh;
    if (!ssh) return;
    return { operations: createRemoteBashOps(ssh.remote, ssh.remoteCwd, localCwd) };
  });
}
`;
}

test("pi's ssh.ts user_bash (node runtime): a !command runs through its operations.exec, ssh", async () => {
  const t = await setup([{ match: "what ran", text: "remote seen" }]);
  const bin = mkdtempSync(join(tmpdir(), "octet-user-bash-bin-"));
  const remote = realpathSync(mkdtempSync(join(tmpdir(), "octet-user-bash-remote-")));
  mkdirSync(join(remote, "marker-dir"));
  const log = join(bin, "ssh.log");
  // A fake ssh: logs the host it was asked for and runs the command here.
  writeFileSync(join(bin, "ssh"), `#!/bin/sh\necho "$1" >> "${log}"\nshift\nexec /bin/sh -c "$1"\n`);
  chmodSync(join(bin, "ssh"), 0o755);
  const ext = join(mkdtempSync(join(tmpdir(), "octet-user-bash-ssh-")), "ssh.ts");
  writeFileSync(ext, sshUserBashPart());
  try {
    const r = await runCli(
      [
        ...["--workspace", t.ws, "--pi-runtime", "node"],
        ...["--pi-extension", ext, "--pi-flag", `ssh=devbox:${remote}`],
      ],
      {
        input: "!ls; echo on-remote\nwhat ran\n/quit\n",
        env: { OCTET_HOME: t.home, PATH: `${bin}:${process.env["PATH"]}` },
        timeoutMs: 90_000,
      },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /marker-dir\non-remote\n/, "the command ran in the remote folder");
    assert.match(r.stdout, /\[run by extension ssh; exit code 0; added to the model's context\]/);
  } finally {
    await t.server.close();
  }
  assert.match(readFileSync(log, "utf8"), /^devbox$/m, "through ssh to the flag's host");
  assert.match(userText(t.server.requests[0]!), /Ran `ls; echo on-remote`\n```\nmarker-dir\non-remote/);
});
