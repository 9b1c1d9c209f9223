/**
 * The `octet` binary end to end, continued from cli.test.ts (split so neither file nears the
 * per-file limit on a busy machine): Ctrl-C and SIGTERM, the shell on piped input, --json errors.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CLI, EXAMPLES, makeExtensions, processesMentioning, runCli, waitUntil } from "./helpers.js";

const _HELLO = ["--extension-dir", EXAMPLES, "--enable-extension", "hello-world"];

test("Ctrl-C during octet call cancels the call, exits 130 and leaves no extension process", async () => {
  const { dir, cleanup } = await makeExtensions([{ name: "sleepy", behaviour: "good" }]);
  try {
    const { spawn } = await import("node:child_process");
    const child = spawn(
      process.execPath,
      [
        CLI,
        "--verbose",
        "--extension-dir",
        dir,
        "--workspace",
        dir,
        "--enable-extension",
        "sleepy",
        "call",
        "slow",
        "{}",
      ],
      {
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await waitUntil(() => /generation 1: ready/.test(stderr), 10_000, "the extension to be ready");
    child.kill("SIGINT");
    const code = await exited;
    assert.equal(code, 130, stderr);
    assert.match(stderr, /cancelling/);
    assert.match(stderr, /octet: tool "slow" of extension "sleepy": tool\/call \(id \d+\) was cancelled/);
    assert.deepEqual(processesMentioning(dir), []);
  } finally {
    await cleanup();
  }
});

/** Spawns the CLI with live pipes so a test can signal it mid-run. */
async function spawnCli(args: string[], input?: string) {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, NO_COLOR: "1" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const out = { stdout: "", stderr: "" };
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out.stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (out.stderr += d));
  if (input !== undefined) child.stdin.write(input);
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, out, exited };
}

test("SHUT-07: Ctrl-C while an extension is still starting stops it and exits 130", async () => {
  const { dir, cleanup } = await makeExtensions([{ name: "mute", behaviour: "hang-init" }]);
  try {
    const { child, out, exited } = await spawnCli([
      "--extension-dir",
      dir,
      "--workspace",
      dir,
      "--enable-extension",
      "mute",
      "call",
      "echo",
      "{}",
    ]);
    child.stdin.end();
    await waitUntil(() => processesMentioning(`${dir}/mute`).length > 0, 10_000, "the extension to be spawned");
    child.kill("SIGINT");
    assert.equal(await exited, 130, out.stderr);
    assert.deepEqual(processesMentioning(dir), [], "nothing of the starting extension survives");
  } finally {
    await cleanup();
  }
});

test("SHUT-07: a second Ctrl-C leaves at once and still kills every extension process group", async () => {
  const { dir, cleanup } = await makeExtensions([{ name: "stubborn", behaviour: "hang-shutdown" }]);
  try {
    const { child, out, exited } = await spawnCli([
      "--verbose",
      "--extension-dir",
      dir,
      "--workspace",
      dir,
      "--enable-extension",
      "stubborn",
      "call",
      "slow",
      "{}",
    ]);
    child.stdin.end();
    await waitUntil(() => /generation 1: ready/.test(out.stderr), 10_000, "the extension to be ready");
    child.kill("SIGINT");
    await waitUntil(() => /cancelling/.test(out.stderr), 5_000, "the first Ctrl-C to be seen");
    child.kill("SIGINT");
    assert.equal(await exited, 130, out.stderr);
    await waitUntil(() => processesMentioning(dir).length === 0, 2_000, "the extension's group to be gone");
  } finally {
    await cleanup();
  }
});

test(
  "the shell on piped input: Ctrl-C cancels the running call, " + "SIGTERM leaves promptly; no process survives",
  async () => {
    const { dir, cleanup } = await makeExtensions([{ name: "sh", behaviour: "good" }]);
    try {
      const base = ["--extension-dir", dir, "--workspace", dir, "--enable-extension", "sh"];
      // Ctrl-C while idle leaves the shell: signal only once the call is running in the extension.
      await writeFile(join(dir, "fake-ext-announce-slow"), "");
      const first = await spawnCli(base, "/call slow {}\n");
      await waitUntil(() => /running sh/.test(first.out.stdout), 10_000, "the shell to start");
      await waitUntil(() => existsSync(join(dir, "fake-ext-slow-running")), 10_000, "the slow call to run");
      first.child.kill("SIGINT");
      await waitUntil(() => /cancelling the running call/.test(first.out.stdout), 5_000, "the cancel");
      await waitUntil(
        () => /error: tool "slow" of extension "sh": tool\/call \(id \d+\) was cancelled/.test(first.out.stdout),
        5_000,
        "the cancelled call's error",
      );
      first.child.stdin.end("/quit\n");
      assert.equal(await first.exited, 0, first.out.stderr);
      assert.deepEqual(processesMentioning(dir), []);

      const second = await spawnCli(base, "/call slow {}\n");
      await waitUntil(() => /running sh/.test(second.out.stdout), 10_000, "the shell to start");
      const sent = Date.now();
      second.child.kill("SIGTERM");
      assert.equal(await second.exited, 0, second.out.stderr);
      assert.ok(Date.now() - sent < 5_000, "SIGTERM did not wait for the 60 s call");
      assert.deepEqual(processesMentioning(dir), []);
    } finally {
      await cleanup();
    }
  },
);

test("--json usage errors print one JSON document on stdout; a command's error reply exits 1", async () => {
  const usage = await runCli(["--json", "call"]);
  assert.equal(usage.code, 2);
  assert.deepEqual(JSON.parse(usage.stdout), {
    error: { code: "usage", message: "call needs a TOOL name: octet call TOOL [ARGS_JSON]" },
  });
  const { dir, cleanup } = await makeExtensions([
    { name: "cmd", behaviour: "command-error", extraToml: 'commands = ["boom"]' },
  ]);
  try {
    const r = await runCli([
      "--extension-dir",
      dir,
      "--workspace",
      dir,
      "--enable-extension",
      "cmd",
      "command",
      "boom",
    ]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /command \/boom of extension "cmd": boom: the command failed as asked/);
  } finally {
    await cleanup();
  }
});

test(
  "SUP-21, SUP-22: octet extensions reload NAME replaces the running " +
    "generation with a new one and shows the status",
  async () => {
    const r = await runCli([
      "--extension-dir",
      EXAMPLES,
      "--enable-extension",
      "hello-world",
      "--json",
      "extensions",
      "reload",
      "hello-world",
    ]);
    assert.equal(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout) as {
      name: string;
      state: string;
      generation: number;
      restarts: number;
      supervision: string;
    }[];
    const hello = list.find((s) => s.name === "hello-world")!;
    assert.equal(hello.state, "ready");
    assert.equal(hello.generation, 2, "generation 1 was replaced by 2");
    assert.equal(hello.restarts, 0, "a manual reload is not an automatic restart");
    assert.equal(hello.supervision, "watching");
    const human = await runCli([
      "--extension-dir",
      EXAMPLES,
      "--enable-extension",
      "hello-world",
      "extensions",
      "reload",
    ]);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stderr, /reloaded hello-world/);
    assert.match(human.stdout, /RESTARTS/);
    const unknown = await runCli([
      "--extension-dir",
      EXAMPLES,
      "--enable-extension",
      "hello-world",
      "extensions",
      "reload",
      "nope",
    ]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no extension named "nope" was discovered \(known: .*hello-world/);
  },
);
