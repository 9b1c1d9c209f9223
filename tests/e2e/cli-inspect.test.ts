/**
 * `octet extensions validate` (issue 13.7) and `octet tools` (issue 13.6) through the real
 * binary: a manifest lint with file, key and exit status for CI, every ready tool as a readable
 * signature with its output schema, and help texts that teach both with examples.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLES, runCli } from "./helpers.js";

async function withBroken(body: (dir: string, file: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-validate-"));
  const file = join(dir, "broken", "extension.toml");
  try {
    await mkdir(join(dir, "broken"));
    await mkdir(join(dir, "fine"));
    await writeFile(
      file,
      'name = "broken"\nversion = "0.1.0"\napi_version = "0.4"\n[entrypoint]\ncommand = "node"\nargs = ' +
        '["x.js"]\n[contributes]\ntools = ["Bad Name"]\n',
    );
    await writeFile(
      join(dir, "fine", "extension.toml"),
      'name = "fine"\nversion = "0.1.0"\napi_version = "0.1"\n[entrypoint]\ncommand = "node"\nargs = ["x.js"]\n',
    );
    await body(dir, file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(
  "issue 13.7: extensions validate exits 1 on a broken manifest, " + "naming the file and the key; it starts nothing",
  async () => {
    await withBroken(async (dir, file) => {
      const r = await runCli(["--extension-dir", dir, "extensions", "validate"]);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^INVALID {2}broken .*broken\/extension\.toml\n/m);
      assert.ok(r.stdout.includes(`  ${file}: key "contributes.tools[0]"`), r.stdout);
      assert.match(r.stdout, /^ok {7}fine /m);
      assert.match(r.stdout, /2 checked, 1 invalid\n$/);
      const json = await runCli(["--extension-dir", dir, "--json", "extensions", "validate"]);
      assert.equal(json.code, 1);
      const out = JSON.parse(json.stdout) as {
        valid: boolean;
        extensions: { name: string; valid: boolean; errors: string[] }[];
      };
      assert.equal(out.valid, false);
      assert.deepEqual(
        out.extensions.map((e) => [e.name, e.valid]),
        [
          ["broken", false],
          ["fine", true],
        ],
      );
    });
  },
);

test(
  "issue 13.7: extensions validate NAME checks only NAME; a NAME not " +
    "discovered fails; examples/ all pass (exit 0)",
  async () => {
    await withBroken(async (dir) => {
      const fine = await runCli(["--extension-dir", dir, "extensions", "validate", "fine"]);
      assert.equal(fine.code, 0, fine.stdout);
      assert.doesNotMatch(fine.stdout, /broken/);
      const missing = await runCli(["--extension-dir", dir, "extensions", "validate", "fine", "nope"]);
      assert.equal(missing.code, 1);
      assert.match(
        missing.stdout,
        /MISSING {2}nope: no extension of that name was discovered \(discovered: broken, fine\)/,
      );
    });
    const examples = await runCli(["--extension-dir", EXAMPLES, "extensions", "validate"]);
    assert.equal(examples.code, 0, examples.stdout);
    assert.match(examples.stdout, /^ok {7}hello-world /m);
    assert.match(examples.stdout, / 0 invalid\n$/);
  },
);

test(
  "issue 13.6: octet tools shows every ready tool as a signature with parameters, enum values, defaults and output " +
    "schema",
  async () => {
    const r = await runCli([
      "--extension-dir",
      EXAMPLES,
      "--enable-extension",
      "typed-tools",
      "--enable-extension",
      "hello-world",
      "tools",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^hello_world\(name: string\) -> text {4}\[hello-world\]\n/m);
    assert.match(
      r.stdout,
      new RegExp(
        String.raw`^simulate\(circuit: string, steps\?: integer, probes: string\[\], mode\?: "dc" \| ` +
          String.raw`"transient", note\?: string \| null\) -> \{ probes: string\[\], volts: number\[\], steps: ` +
          String.raw`integer \} {4}\[typed-tools\]$`,
        "m",
      ),
    );
    assert.match(r.stdout, /^ {4}circuit: string, required — The circuit to simulate$/m);
    assert.match(r.stdout, /^ {4}steps: integer \(1\.\.1000\), optional, default 100$/m);
    assert.match(r.stdout, /^ {4}mode: "dc" \| "transient", optional, default "dc"$/m);
    assert.match(r.stdout, /^ {2}returns: structured \{ count: integer \}$/m);
    assert.match(r.stdout, /^ {2}returns: text \(no output schema\)$/m);
  },
);

test("issue 13.6: octet tools --json prints the definitions; a named tool that is missing exits 3", async () => {
  const base = ["--extension-dir", EXAMPLES, "--enable-extension", "typed-tools"];
  const r = await runCli([...base, "--json", "tools", "simulate"]);
  assert.equal(r.code, 0, r.stderr);
  const defs = JSON.parse(r.stdout) as {
    extension: string;
    name: string;
    parameters: { properties: Record<string, unknown> };
    output_schema: unknown;
  }[];
  assert.deepEqual(
    defs.map((d) => [d.extension, d.name]),
    [["typed-tools", "simulate"]],
  );
  assert.deepEqual(Object.keys(defs[0]!.parameters.properties), ["circuit", "steps", "probes", "mode", "note"]);
  assert.ok(defs[0]!.output_schema !== null, "the output schema is printed");
  const missing = await runCli([...base, "tools", "nope"]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /no ready extension provides tool "nope" \(available: simulate, broken\)/);
  const missingJson = await runCli([...base, "--json", "tools", "nope"]);
  assert.equal(missingJson.code, 3);
  assert.equal(
    (JSON.parse(missingJson.stdout) as { error: { code: string } }).error.code,
    "unknown_tool",
    "--json: one document, the error",
  );
});

test(
  "issue 13.6, 13.7: octet --help, octet tools --help and octet " + "extensions validate --help teach with examples",
  async () => {
    const main = await runCli(["--help"]);
    assert.match(main.stdout, /extensions validate \[NAME\.\.\.\]/);
    assert.match(main.stdout, /octet --extension-dir examples extensions validate/);
    assert.match(main.stdout, /tools \[TOOL\.\.\.\]/);
    const tools = await runCli(["tools", "--help"]);
    assert.match(tools.stdout, /^Usage:\n {2}octet \[FLAGS\] tools \[TOOL\.\.\.\]/);
    assert.match(
      tools.stdout,
      /Example:\n {2}octet --extension-dir examples --enable-extension typed-tools tools simulate/,
    );
    const validate = await runCli(["extensions", "validate", "--help"]);
    assert.match(validate.stdout, /^Usage:\n {2}octet \[FLAGS\] extensions validate \[NAME\.\.\.\]/);
    assert.match(validate.stdout, /Exits 1 when any manifest is invalid/);
    assert.match(validate.stdout, /Examples:\n {2}octet --extension-dir examples extensions validate\n/);
    const viaHelp = await runCli(["help", "extensions", "validate"]);
    assert.equal(viaHelp.stdout, validate.stdout);
  },
);
