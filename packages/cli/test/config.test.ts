import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCommandLine } from "../src/args.js";
import { applyConfig, type Origin } from "../src/config/config-resolve.js";
import { MAX_CONFIG_FILE_BYTES } from "../src/config/config-file.js";

const EXAMPLES = fileURLToPath(new URL("../../../../examples", import.meta.url));

/** A home and a workspace folder with the given config files; removed after `body`. */
function withFiles(files: { home?: string; workspace?: string }, body: (home: string, ws: string) => void): void {
  const root = mkdtempSync(join(tmpdir(), "octet-config-"));
  const home = join(root, "home");
  const ws = join(root, "ws");
  mkdirSync(home);
  mkdirSync(join(ws, ".octet"), { recursive: true });
  if (files.home !== undefined) writeFileSync(join(home, "config.toml"), files.home);
  if (files.workspace !== undefined) writeFileSync(join(ws, ".octet", "config.toml"), files.workspace);
  try {
    body(home, ws);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function effective(home: string, ws: string, argv: string[] = []) {
  return applyConfig(parseCommandLine(["--workspace", ws, ...argv]), { OCTET_HOME: home });
}

test("config: the command line beats the workspace file, which beats the home file; lists and tables merge", () => {
  withFiles(
    {
      home:
        `model = "anthropic/claude-sonnet-4-5"\nenable = ["h1", "shared"]\nextension_dirs = ["${EXAMPLES}"]\n` +
        `max_turns = 10\npi_flags = { plan = true, preset = "slow" }\n`,
      workspace: 'model = "openai/gpt-4o"\nenable = ["w1", "shared"]\npi_flags = { plan = false }\nsafe_mode = true\n',
    },
    (home, ws) => {
      const homeFile = join(home, "config.toml");
      const wsFile = join(ws, ".octet", "config.toml");
      const { options, origins } = effective(home, ws, ["--enable-extension", "c1", "--max-turns", "5"]);
      assert.equal(options.model, "openai/gpt-4o");
      assert.equal(options.modelSource, wsFile);
      assert.equal(options.maxTurns, 5);
      assert.deepEqual(origins["max_turns"], { value: 5, source: "--max-turns" });
      assert.deepEqual(options.enable, ["c1", "w1", "shared", "h1"]);
      assert.deepEqual(
        (origins["enable"] as Origin[]).map((o) => o.source),
        ["--enable-extension", wsFile, wsFile, homeFile],
      );
      assert.deepEqual(options.extensionDirs, [EXAMPLES]);
      assert.deepEqual(options.piFlags, { preset: "slow" }, "the workspace's plan = false unsets the home's");
      assert.equal(options.safeMode, true);
      assert.deepEqual(origins["safe_mode"], { value: true, source: wsFile });
      assert.deepEqual(origins["pi_runtime"], { value: "quickjs", source: "default" });
    },
  );
});

test("config: --no-config reads neither file; a missing file is no file", () => {
  withFiles({ home: "enable = [1]\n", workspace: "bogus = true\n" }, (home, ws) => {
    const r = effective(home, ws, ["--no-config"]);
    assert.equal(r.files.ignored, true);
    assert.deepEqual(r.options.enable, []);
  });
  withFiles({}, (home, ws) => {
    const r = effective(home, ws);
    assert.equal(r.files.home.found, false);
    assert.equal(r.files.workspace?.found, false);
  });
});

test("config: a workspace file cannot trust, map secrets, choose the policy or pi runtime, or load paths", () => {
  const refused: [string, RegExp][] = [
    ['trust = ["x"]', /a cloned repository would trust its own extensions/],
    ['[secrets]\n"a.b" = "HOME"', /which of your environment variables its extensions read/],
    ['policy = "p.toml"', /which of its extensions' operations are allowed/],
    ['pi_runtime = "node"', /out of the QuickJS sandbox/],
    [`extension_dirs = ["${EXAMPLES}"]`, /an extension loaded by path is trusted/],
    [`extensions = ["${EXAMPLES}/hello-world"]`, /\.octet\/extensions\//],
    [`pi_extensions = ["${EXAMPLES}"]`, /an extension loaded by path is trusted/],
  ];
  for (const [text, why] of refused)
    withFiles({ workspace: `${text}\n` }, (home, ws) => {
      const key = /^\[?(\w+)/.exec(text)![1]!;
      assert.throws(
        () => effective(home, ws),
        (err: Error) => {
          const prefix = `${join(ws, ".octet", "config.toml")}: key "${key}": a workspace config cannot set it: `;
          assert.ok(err.message.startsWith(prefix), err.message);
          assert.match(err.message, why);
          return err.name === "UsageError";
        },
      );
    });
});

test("config: every bad key or value is reported at once, naming the file, key, value and what is expected", () => {
  withFiles(
    {
      home:
        'enabled = ["x"]\nextension-dir = ["a"]\nmax_turns = 0\nmodel = "claude"\npi_runtime = "deno"\n' +
        'safe_mode = "yes"\nextension_dirs = ["./missing"]\nyes = true\n[secrets]\n"9bad" = "X"\nok = "1X"\n',
    },
    (home, ws) => {
      const file = join(home, "config.toml");
      assert.throws(
        () => effective(home, ws),
        (err: Error) => {
          const lines = err.message.split("\n");
          assert.equal(lines[0], `${file} has 10 problems:`);
          const expected = [
            `key "enabled": unknown key; did you mean "enable"?`,
            `key "extension-dir": unknown key; did you mean "extension_dirs"?`,
            `key "max_turns" = 0: expected a whole number from 1 to 1000`,
            `key "model" = "claude": expected PROVIDER/MODEL_ID`,
            `key "pi_runtime" = "deno": expected "quickjs" or "node"`,
            `key "safe_mode" = "yes": expected true or false`,
            `key "extension_dirs" = ["./missing"]: "./missing" does not exist (${join(home, "missing")})`,
            `key "yes": not a setting: accepting every confirmation is decided per run: pass --yes`,
            `key "secrets.9bad" = "X": "9bad" is not a secret name`,
            `key "secrets.ok" = "1X": expected the name of an environment variable`,
          ];
          for (const [i, text] of expected.entries())
            assert.ok(lines[i + 1]?.startsWith(`  ${file}: ${text}`), `${lines[i + 1]}\n  wanted: ${text}`);
          return true;
        },
      );
    },
  );
});

test("config: a TOML syntax error names the line and column; an oversized file names the limit", () => {
  withFiles({ home: 'model = "a/b"\nenable = [\n' }, (home, ws) => {
    assert.throws(() => effective(home, ws), /config\.toml is not valid TOML at line 3, column 1: /);
  });
  withFiles({ home: `# ${"x".repeat(MAX_CONFIG_FILE_BYTES)}\n` }, (home, ws) => {
    assert.throws(() => effective(home, ws), new RegExp(`over the ${MAX_CONFIG_FILE_BYTES}-byte limit`));
  });
});

test("config: home secrets (dotted keys) and policy apply; a --secret of the same name replaces the file's", () => {
  withFiles(
    {
      home:
        `policy = "${EXAMPLES}/guarded/policy.toml"\n[secrets]\nguarded.api_token = "TOKEN_A"\n` +
        '"other.key" = "TOKEN_B"\n',
    },
    (home, ws) => {
      const { options, origins } = effective(home, ws, ["--secret", "guarded.api_token=TOKEN_C"]);
      assert.deepEqual(options.secrets, [
        { name: "guarded.api_token", variable: "TOKEN_C" },
        { name: "other.key", variable: "TOKEN_B" },
      ]);
      assert.equal(options.policy?.operations.get("guarded.publish"), "ask");
      assert.deepEqual(origins["policy"], {
        value: `${EXAMPLES}/guarded/policy.toml`,
        source: join(home, "config.toml"),
      });
    },
  );
});

test("config: when the workspace's .octet is the octet home, its file is read once, as the home's", () => {
  withFiles({}, (_home, ws) => {
    writeFileSync(join(ws, ".octet", "config.toml"), 'trust = ["mine"]\n');
    const r = effective(join(ws, ".octet"), ws);
    assert.equal(r.files.workspace, null);
    assert.deepEqual(r.options.trust, ["mine"]);
  });
});

test("-e: an extension folder enabled by its manifest's name, a pi file by its id; a folder of them refused", () => {
  withFiles({}, (home, ws) => {
    const hello = join(EXAMPLES, "hello-world");
    const quick = join(EXAMPLES, "quickjs");
    const piFile = join(EXAMPLES, "quickjs", "quickjs_extension.mjs");
    const { options, origins } = effective(home, ws, ["-e", hello, "-e", quick, "--extension", piFile]);
    assert.deepEqual(options.extensionDirs, [hello, quick]);
    assert.deepEqual(options.enable, ["hello-world", "quickjs-example"]);
    assert.deepEqual(options.piExtensions, [piFile]);
    assert.deepEqual(
      (origins["extensions"] as Origin[]).map((o) => o.source),
      ["-e", "-e", "-e"],
    );
    assert.throws(() => effective(home, ws, ["-e", EXAMPLES]), /for a folder of extensions use --extension-dir/);
    assert.throws(() => effective(home, ws, ["-e", join(ws, "nope")]), /-e .*nope: no such file or folder/);
  });
});
