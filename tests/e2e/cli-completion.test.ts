/**
 * Shell completion (issue 18.7): `octet completion bash|zsh|fish` run in the real shells, with
 * `octet` on PATH as a user has it. The names come from `octet __complete`, which reads manifests
 * and starts nothing: an extension that would leave a marker file when started proves it.
 * zsh and fish are checked where they are installed (CI may have only bash).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, EXAMPLES, runCli } from "./helpers.js";

interface Fixture {
  root: string;
  /** PATH with a bin folder holding `octet` first. */
  env: Record<string, string>;
  marker: string;
  script: (shell: string) => Promise<string>;
}

/**
 * A bin folder with `octet`, an octet home whose config adds examples/ and a "marker" extension
 * (its process would write `marker`), and a workspace to run in.
 */
async function fixture(): Promise<Fixture> {
  const root = await mkdtemp(join(tmpdir(), "octet-completion-"));
  const bin = join(root, "bin");
  const home = join(root, "home");
  const extDir = join(root, "ext", "marker");
  const marker = join(root, "marker");
  await mkdir(bin);
  await mkdir(home);
  await mkdir(extDir, { recursive: true });
  await mkdir(join(root, "ws", "sub-dir"), { recursive: true });
  await writeFile(
    join(bin, "octet"),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
  );
  await chmod(join(bin, "octet"), 0o755);
  const writeMarker = `require("fs").writeFileSync(${JSON.stringify(marker)}, "started")`;
  await writeFile(
    join(extDir, "extension.toml"),
    [
      'name = "marker"\nversion = "0.0.1"\napi_version = "0.1"',
      `[entrypoint]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ["-e", ${JSON.stringify(writeMarker)}]`,
      '[capabilities]\nfilesystem = "none"\nprocess = false\nnetwork = false',
      '[contributes]\ntools = ["marker_tool"]\ncommands = ["mark"]\n',
    ].join("\n"),
  );
  await writeFile(join(home, "config.toml"), `extension_dirs = [${JSON.stringify(join(root, "ext"))}]\n`);
  const env = { PATH: `${bin}:${process.env["PATH"] ?? ""}`, OCTET_HOME: home, HOME: root };
  return {
    root,
    env,
    marker,
    script: async (shell) => {
      const r = await runCli(["completion", shell]);
      assert.equal(r.code, 0, r.stderr);
      const file = join(root, `octet.${shell}`);
      await writeFile(file, r.stdout);
      return file;
    },
  };
}

function installed(shell: string): boolean {
  return spawnSync(shell, ["-c", "exit 0"]).status === 0;
}

/** Runs `program` in `shell` (cwd: the workspace); its stdout, failing on a non-zero exit. */
function inShell(f: Fixture, shell: string, args: string[], program: string): string {
  const r = spawnSync(shell, [...args, program], { cwd: join(f.root, "ws"), env: f.env, encoding: "utf8" });
  assert.equal(r.status, 0, `${shell}: ${r.stderr}`);
  return r.stdout;
}

test("issue 18.7: bash completes commands, subcommands, flags, flag values, and extension and tool names", async () => {
  const f = await fixture();
  try {
    const script = await f.script("bash");
    // Each case: the words on the line (the last one being typed) -> what COMPREPLY must hold.
    const cases: [string[], string[]][] = [
      [["ext"], ["extensions"]],
      [["co"], ["command", "config", "completion"]],
      [
        ["extensions", ""],
        ["list", "status", "reload", "validate"],
      ],
      [["--enable-ext"], ["--enable-extension"]],
      [
        ["--pi-runtime", ""],
        ["quickjs", "node"],
      ],
      [["call", "mark"], ["marker_tool"]],
      [["command", ""], ["mark"]],
      [["--extension-dir", EXAMPLES, "call", "hello_"], ["hello_world"]],
      [["-e", `${EXAMPLES}/hello-world`, "tools", "hello"], ["hello_world"]],
      [["--enable-extension", "mar"], ["marker"]],
      [["--workspace", "sub"], ["sub-dir"]],
      [["completion", "z"], ["zsh"]],
    ];
    const program = [
      `source ${JSON.stringify(script)}`,
      "complete -p octet",
      ...cases.map(([words]) => {
        const line = ["octet", ...words].map((w) => JSON.stringify(w)).join(" ");
        return `COMP_WORDS=(${line}); COMP_CWORD=${words.length}; _octet; echo "[\${COMPREPLY[*]}]"`;
      }),
    ].join("\n");
    const lines = inShell(f, "bash", ["-c"], program).trimEnd().split("\n");
    assert.equal(lines[0], "complete -F _octet octet");
    for (const [i, [words, expected]] of cases.entries())
      assert.equal(lines[i + 1], `[${expected.join(" ")}]`, `octet ${words.join(" ")}<TAB>`);
    assert.equal(existsSync(f.marker), false, "completion started no extension");
    // The marker works: starting the extension does leave it.
    await runCli(["--enable-extension", "marker", "extensions", "status"], { env: f.env });
    assert.equal(existsSync(f.marker), true, "the marker extension, started, leaves its marker");
  } finally {
    await rm(f.root, { recursive: true, force: true });
  }
});

test("issue 18.7: __complete answers despite a broken config, silently; completion needs a shell", async () => {
  const f = await fixture();
  try {
    await writeFile(join(f.env["OCTET_HOME"]!, "config.toml"), "enable = [\n");
    const r = await runCli(["__complete", "1", "--extension-dir", ""], { env: f.env });
    assert.deepEqual([r.code, r.stdout, r.stderr], [0, "dirs\n", ""]);
    const names = await runCli(["__complete", "3", "--extension-dir", EXAMPLES, "call", "hello_w"], { env: f.env });
    assert.deepEqual([names.code, names.stdout, names.stderr], [0, "words\nhello_world\ttool of hello-world\n", ""]);
    const bad = await runCli(["completion", "tcsh"]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /completion needs one shell: bash, zsh or fish; got: tcsh/);
  } finally {
    await rm(f.root, { recursive: true, force: true });
  }
});

test("issue 18.7: the zsh script parses, and its function offers names with descriptions", async (t) => {
  if (!installed("zsh")) return t.skip("zsh is not installed");
  const f = await fixture();
  try {
    const script = await f.script("zsh");
    inShell(f, "zsh", ["-n"], script);
    // zsh's completion system is replaced by printers of what it was handed; the script is real.
    const out = inShell(
      f,
      "zsh",
      ["-f", "-c"],
      [
        'compdef() { print -r -- "compdef $*" }',
        '_describe() { print -rl -- "${(@P)${@[-1]}}" }',
        '_files() { print -r -- "_files $*" }',
        `source ${JSON.stringify(script)}`,
        "words=(octet call mark); CURRENT=3; _octet",
        'words=(octet --workspace ""); CURRENT=3; _octet',
      ].join("\n"),
    );
    assert.equal(out, "compdef _octet octet\nmarker_tool:tool of marker\n_files -/\n");
  } finally {
    await rm(f.root, { recursive: true, force: true });
  }
});

test("issue 18.7: the fish script parses, and fish completes through it", async (t) => {
  if (!installed("fish")) return t.skip("fish is not installed");
  const f = await fixture();
  try {
    const script = await f.script("fish");
    inShell(f, "fish", ["--no-execute"], script);
    const out = inShell(
      f,
      "fish",
      ["--no-config", "-c"],
      `source ${JSON.stringify(script)}; complete -C"octet ext"; complete -C"octet call mark"`,
    );
    assert.equal(out, "extensions\tlist, start, reload or validate extensions\nmarker_tool\ttool of marker\n");
  } finally {
    await rm(f.root, { recursive: true, force: true });
  }
});
