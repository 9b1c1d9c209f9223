/**
 * What the `octet` binary tells a new user when something is wrong (issue 13.3, 13.4, 13.11),
 * through real processes: an enabled broken manifest named with file and key by `call` and
 * `command`, a start failure's cause (the head of a Node stack trace) without -v, and the
 * messages of mistyped flags, missing folders, bad policy files, missing secret variables and
 * extensions that are not enabled.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLES, makeExtensions, runCli } from "./helpers.js";

/** A folder of extensions written from `files` ({"dir/extension.toml": text}); removed after `body`. */
async function withFolder(files: Record<string, string>, body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-diag-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const manifest = (name: string, extra = "", args = '["./main.js"]'): string =>
  `name = "${name}"\nversion = "0.1.0"\napi_version = "0.1"\n[entrypoint]\ncommand ` +
  `= ${JSON.stringify(process.execPath)}\nargs = ${args}\n${extra}\n[contributes]\ntools = ` +
  `["t_${name.replace(/-/g, "_")}"]\n`;

const BROKEN = { "broken/extension.toml": manifest("broken", '[capabilities]\nfilesystem = "everything"') };

test(
  "issue 13.3: call with an enabled broken manifest names the " + "extension, the manifest file and the key",
  async () => {
    await withFolder(BROKEN, async (dir) => {
      const r = await runCli(["--extension-dir", dir, "--enable-extension", "broken", "call", "x", "{}"]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(r.stderr, /no ready extension provides tool "x" \(no extension is running\)/);
      assert.match(
        r.stderr,
        new RegExp(
          `extension "broken" has an invalid ` +
            `manifest: ${join(dir, "broken", "extension.toml").replace(/[.\\/]/g, "\\$&")}: key ` +
            `"capabilities\\.filesystem": must be one of`,
        ),
      );
      assert.doesNotMatch(
        r.stderr,
        /enable one with --enable-extension NAME/,
        "it is enabled: the hint to enable one is wrong",
      );
    });
  },
);

test(
  "issue 13.3: a running extension without the tool lists its tools " +
    "and names the broken one; command does the same",
  async () => {
    await withFolder(BROKEN, async (dir) => {
      const args = [
        "--extension-dir",
        dir,
        "--extension-dir",
        join(EXAMPLES, "hello-world"),
        "--enable-extension",
        "broken",
        "--enable-extension",
        "hello-world",
      ];
      const r = await runCli([...args, "call", "x", "{}"]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(
          String.raw`no ready extension provides tool "x" \(available: hello_world\)\n {2}extension ` +
            String.raw`"broken" has an invalid manifest: .*broken\/extension\.toml: key ` +
            String.raw`"capabilities\.filesystem"`,
        ),
      );
      const c = await runCli([...args, "command", "nope"]);
      assert.equal(c.code, 3, c.stderr);
      assert.match(
        c.stderr,
        new RegExp(
          String.raw`no ready extension provides command "nope" \(available: hello\)\n {2}extension ` +
            String.raw`"broken" has an invalid manifest: .*key "capabilities\.filesystem"`,
        ),
      );
    });
  },
);

test(
  "issue 13.3: a manifest whose unquoted value breaks the TOML keeps its name; a NAME never discovered is named " +
    "with what was",
  async () => {
    const text = manifest("real-name", "[capabilities]\nfilesystem = everything");
    await withFolder({ "folder-name/extension.toml": text }, async (dir) => {
      const r = await runCli([
        "--extension-dir",
        dir,
        "--enable-extension",
        "real-name",
        "--enable-extension",
        "typo-name",
        "call",
        "x",
        "{}",
      ]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(
          String.raw`extension "real-name" has an invalid manifest: ` +
            String.raw`.*folder-name\/extension\.toml:8:\d+: invalid TOML \(line 8, column \d+\)`,
        ),
      );
      assert.doesNotMatch(r.stderr, /--enable-extension real-name: no extension of that name was discovered/);
      assert.match(
        r.stderr,
        /--enable-extension typo-name: no extension of that name was discovered \(discovered: real-name\)/,
      );
      const list = await runCli(["--extension-dir", dir, "--json", "extensions", "list"]);
      assert.deepEqual(
        (JSON.parse(list.stdout) as { name: string }[]).map((e) => e.name),
        ["real-name"],
        "listed under its own name, not the folder's",
      );
    });
  },
);

const NODE_CRASH = { "crash/extension.toml": manifest("crash"), "crash/main.js": 'require("./missing-dep.js");\n' };

test(
  "issue 13.4: a start failure whose stderr is a Node stack trace shows `Error: Cannot find module` without -v, in " +
    "call and status",
  async () => {
    await withFolder(NODE_CRASH, async (dir) => {
      const args = ["--extension-dir", dir, "--enable-extension", "crash"];
      const r = await runCli([...args, "call", "t_crash", "{}"]);
      assert.equal(r.code, 3, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(
          String.raw`octet: tool "t_crash" belongs to extension "crash", which is parked: .*exited ` +
            String.raw`with code 1; stderr: Error: Cannot find module '\.\/missing-dep\.js'`,
        ),
      );
      assert.doesNotMatch(r.stderr, /\[crash stderr\]/, "without -v the stderr lines themselves are not shown");
      const other = await runCli([...args, "call", "x", "{}"]);
      assert.match(
        other.stderr,
        /extension "crash" could not start: .*stderr: Error: Cannot find module '\.\/missing-dep\.js'/,
        "named with its cause for any tool",
      );
      const s = await runCli([...args, "extensions", "status"]);
      assert.equal(s.code, 3);
      assert.match(s.stdout, /crash .*parked .*stderr: Error: Cannot find module '\.\/missing-dep\.js'/);
      assert.match(s.stdout, /crash stderr, the error:\n {4}Error: Cannot find module '\.\/missing-dep\.js'\n/);
      const json = await runCli([...args, "--json", "extensions", "status"]);
      const status = (JSON.parse(json.stdout) as { stderrTail: string[]; stderrErrors: string[] }[])[0]!;
      assert.ok(
        status.stderrTail.length >= 10 && status.stderrTail.length <= 20,
        `the kept tail holds the trace (${status.stderrTail.length} lines)`,
      );
      assert.deepEqual(status.stderrErrors, ["Error: Cannot find module './missing-dep.js'"]);
    });
  },
);

test(
  "issue 13.11: an unknown flag suggests the nearest flag; only " + "an unrelated one gets the hint about --",
  async () => {
    const typo = await runCli(["--enable-extention", "x", "call", "t"]);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown flag --enable-extention; did you mean --enable-extension\?/);
    assert.doesNotMatch(typo.stderr, /put "--"/);
    const verbose = await runCli(["--verbos", "extensions", "list"]);
    assert.match(verbose.stderr, /did you mean --verbose\?/);
    const other = await runCli(["command", "hello", "-zq"]);
    assert.equal(other.code, 2);
    assert.match(other.stderr, /unknown flag -z\n\(put "--" before arguments that start with "-"/);
  },
);

test(
  "issue 13.11: --extension-dir or --workspace naming a missing " + "folder is a usage error (exit 2) that names it",
  async () => {
    const dir = await runCli(["--extension-dir", "/nonexistent/exts", "extensions", "list"]);
    assert.equal(dir.code, 2);
    assert.match(dir.stderr, /--extension-dir \/nonexistent\/exts: no such folder/);
    const ws = await runCli([
      "--workspace",
      "/nonexistent",
      "--extension-dir",
      EXAMPLES,
      "--enable-extension",
      "hello-world",
      "call",
      "hello_world",
      "{}",
    ]);
    assert.equal(ws.code, 2);
    assert.match(ws.stderr, /--workspace \/nonexistent: no such folder/);
    const file = await runCli(["--workspace", join(EXAMPLES, "hello-world", "extension.toml"), "extensions", "list"]);
    assert.equal(file.code, 2);
    assert.match(file.stderr, /is a file, not a folder/);
  },
);

test("issue 13.11: a policy file with bad TOML gets its line and column", async () => {
  await withFolder({ "p.toml": 'default = "deny"\n[operations]\n"git.push" = allow\n' }, async (dir) => {
    const r = await runCli(["--policy", join(dir, "p.toml"), "extensions", "list"]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--policy .*p\.toml: the policy file is not valid TOML at line 3, column \d+/);
  });
});

test("issue 13.11: a --secret variable that is not set is named on stderr, its value never", async () => {
  const base = [
    "--extension-dir",
    EXAMPLES,
    "--enable-extension",
    "guarded",
    "--policy",
    join(EXAMPLES, "guarded", "policy.toml"),
  ];
  const r = await runCli([
    ...base,
    "--secret",
    "guarded.api_token=OCTET_TEST_UNSET_VARIABLE",
    "call",
    "publish",
    '{"text":"x","preview":true}',
  ]);
  assert.match(
    r.stderr,
    new RegExp(
      String.raw`secret "guarded\.api_token" asked for by extension "guarded" is unavailable: the ` +
        String.raw`environment variable OCTET_TEST_UNSET_VARIABLE \(--secret ` +
        String.raw`guarded\.api_token=OCTET_TEST_UNSET_VARIABLE\) is not set`,
    ),
  );
  const set = await runCli(
    [...base, "--secret", "guarded.api_token=GUARDED_TOKEN", "call", "publish", '{"text":"x","preview":true}'],
    { env: { GUARDED_TOKEN: "s3cret-value-xyz" } },
  );
  assert.doesNotMatch(
    set.stderr + set.stdout,
    /s3cret-value-xyz|is unavailable/,
    "a set variable: no diagnostic, and the value is never printed",
  );
});

test("issue 13.11: extensions list and status say the not-enabled hint once, not on every row", async () => {
  const list = await runCli(["--extension-dir", EXAMPLES, "extensions", "list"]);
  assert.equal(list.code, 0);
  assert.equal((list.stdout.match(/--enable-extension/g) ?? []).length, 1, list.stdout);
  assert.match(
    list.stdout,
    /Not enabled: background-worker, .*hello-world, .*\. Start one with --enable-extension NAME\.\n$/,
  );
  const status = await runCli([
    "--extension-dir",
    EXAMPLES,
    "--enable-extension",
    "hello-world",
    "extensions",
    "status",
  ]);
  assert.equal(status.code, 0, status.stderr);
  assert.equal((status.stdout.match(/--enable-extension/g) ?? []).length, 1, status.stdout);
  assert.doesNotMatch(status.stdout, /Not enabled: .*hello-world/, "the enabled one is not listed");
});

test("issue 13.4: a start failure whose stderr has no error line is named with its last stderr line", async () => {
  const { dir, cleanup } = await makeExtensions([{ name: "flaky", behaviour: "crash-on-start" }]);
  try {
    const r = await runCli(["--extension-dir", dir, "--enable-extension", "flaky", "call", "x", "{}"]);
    assert.equal(r.code, 3);
    assert.match(r.stderr, /extension "flaky" could not start: .*stderr: fake-ext: crashing on start as asked/);
  } finally {
    await cleanup();
  }
});

test(
  "issue 13.3: enabling a name that only an unreadable manifest " + "name could be says that manifest's error",
  async () => {
    await withFolder(
      {
        "some-folder/extension.toml":
          'name = 12\nversion = "0.1.0"\napi_version = "0.1"\n[entrypoint]\ncommand = "node"\nargs = ["x.js"]\n',
      },
      async (dir) => {
        const r = await runCli(["--extension-dir", dir, "--enable-extension", "mine", "call", "t", "{}"]);
        assert.equal(r.code, 3);
        assert.match(
          r.stderr,
          new RegExp(
            String.raw`--enable-extension mine: no extension of that name was discovered ` +
              String.raw`\(discovered: some-folder\); .*some-folder\/extension\.toml: key "name": must be a ` +
              String.raw`string, got number 12`,
          ),
        );
      },
    );
  },
);
