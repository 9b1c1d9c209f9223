/**
 * The `octet` binary end to end: the bundled hello-world example through real processes, the
 * exact command forms, --json, exit statuses and the interactive shell on piped input.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLES, groupMembers, makeExtensions, processesMentioning, runCli } from "./helpers.js";

const HELLO = ["--extension-dir", EXAMPLES, "--enable-extension", "hello-world"];

test("CALL-12, INIT-07: octet call hello_world prints the greeting and exits 0", async () => {
  const r = await runCli([...HELLO, "call", "hello_world", '{"name":"x"}']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Hello, x! Greetings from the hello-world extension.\n");
});

test("CALL-12: octet call --json prints only the full result object on stdout", async () => {
  const r = await runCli([...HELLO, "--json", "call", "hello_world", '{"name":"x"}']);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.equal(out["extension"], "hello-world");
  assert.equal(out["tool"], "hello_world");
  assert.equal(out["is_error"], false);
  assert.deepEqual(out["content"], [{ type: "text", text: "Hello, x! Greetings from the hello-world extension." }]);
});

test("octet call: bad ARGS_JSON is a usage error (exit 2) that names the problem", async () => {
  const notJson = await runCli([...HELLO, "call", "hello_world", "{name:x}"]);
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /ARGS_JSON is not valid JSON/);
  const array = await runCli([...HELLO, "call", "hello_world", "[1]"]);
  assert.equal(array.code, 2);
  assert.match(array.stderr, /must be a JSON object.*got an array/);
  const missing = await runCli([...HELLO, "call"]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /call needs a TOOL name/);
});

test("MAN-18: octet call on an extension that is not enabled exits 3 and says how to enable it", async () => {
  const r = await runCli(["--extension-dir", EXAMPLES, "call", "hello_world", "{}"]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /hello-world.*not_enabled.*--enable-extension hello-world/);
});

test("octet call on an unknown tool exits 3 and lists the available ones", async () => {
  const r = await runCli([...HELLO, "call", "no_such_tool", "{}"]);
  assert.equal(r.code, 3);
  assert.match(r.stderr, /no ready extension provides tool "no_such_tool" \(available: hello_world\)/);
});

test("CMD-01, CMD-02, NOTIF-01: octet command hello runs the slash command and shows its notifications", async () => {
  const r = await runCli([...HELLO, "command", "hello", "octet", "user"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "Hello, octet user!\n");
  assert.match(r.stderr, /\[hello-world\] success: Hello — hello greeted octet user/);
  assert.match(r.stderr, /\[hello-world\] info: Greeting sent — to octet user/);
});

test(
  "MAN-10: octet extensions list shows name, version, runtime " + "and api, source, manifest, enabled, trusted",
  async () => {
    const r = await runCli(["--extension-dir", EXAMPLES, "--json", "extensions", "list"]);
    assert.equal(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout) as Record<string, unknown>[];
    const hello = list.find((e) => e["name"] === "hello-world");
    assert.ok(hello);
    assert.equal(hello["version"], "0.1.0");
    assert.equal(hello["api_version"], "0.1");
    assert.equal(hello["runtime"], "octet");
    assert.equal(hello["source"], "explicit");
    assert.equal(hello["enabled"], false);
    assert.equal(hello["trusted"], true);
    assert.match(String(hello["manifest_path"]), /examples\/hello-world\/extension\.toml$/);
    const human = await runCli(["--extension-dir", EXAMPLES, "extensions", "list"]);
    assert.match(human.stdout, /^NAME\s+VERSION\s+RUNTIME\s+SOURCE\s+ENABLED\s+TRUSTED\s+MANIFEST/);
    assert.match(human.stdout, /hello-world\s+0\.1\.0\s+octet 0\.1\s+explicit\s+no\s+yes/);
  },
);

test(
  "LIFE-01, LIFE-02: octet extensions status starts the " + "extension and reports state, generation, health",
  async () => {
    const r = await runCli([...HELLO, "--json", "extensions", "status"]);
    assert.equal(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout) as Record<string, unknown>[];
    const hello = list.find((e) => e["name"] === "hello-world")!;
    assert.equal(hello["state"], "ready");
    assert.equal(hello["generation"], 1);
    assert.equal(hello["health"], "ok");
    assert.equal(hello["pendingRequests"], 0);
    assert.equal(typeof hello["pid"], "number");
    // Only this run's extension and its group: other test files run hello-world at the same time.
    const pid = hello["pid"] as number;
    assert.equal(typeof hello["pgid"], "number");
    assert.deepEqual(
      processesMentioning("examples/hello-world/dist").filter((p) => p === pid),
      [],
      "the extension is stopped afterwards",
    );
    assert.deepEqual(groupMembers(hello["pgid"] as number), [], "its process group is empty afterwards");
  },
);

test("octet --help and octet call --help teach the forms; unknown commands are usage errors", async () => {
  const help = await runCli(["--help"]);
  assert.equal(help.code, 0);
  for (const form of [
    "extensions list",
    "extensions status",
    "call TOOL [ARGS_JSON]",
    "command NAME [ARG...]",
    "--extension-dir DIR",
    "--enable-extension NAME",
    "--trust-extension NAME",
    "--safe-mode",
    "--workspace DIR",
    "--json",
  ]) {
    assert.ok(help.stdout.includes(form), `--help mentions ${form}`);
  }
  const callHelp = await runCli(["call", "--help"]);
  assert.match(callHelp.stdout, /Exit status: 0 success, 1 the tool returned an error result/);
  const bad = await runCli(["frobnicate"]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /unknown command "frobnicate"/);
  const badFlag = await runCli(["--no-such-flag"]);
  assert.equal(badFlag.code, 2);
});

test(
  "the interactive shell runs /extensions status, /tools, /call, " + "a slash command and /quit from piped input",
  async () => {
    const input = [
      "/help",
      "/extensions status",
      "/tools",
      '/call hello_world {"name":"shell"}',
      "/hello pipe",
      "/nope",
      "/quit",
      "",
    ].join("\n");
    // A workspace of its own, named in the extension's environment (OCTET_WORKSPACE): the leftover
    // check sees this shell's extension, not another file's hello-world running at the same time.
    const workspace = mkdtempSync(join(tmpdir(), "octet-cli-shell-"));
    const r = await runCli([...HELLO, "--workspace", workspace], { input });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /running hello-world/);
    assert.match(r.stdout, /\/call TOOL \{json\}/);
    assert.match(r.stdout, /hello-world\s+octet 0\.1\s+ready\s+1/);
    assert.match(r.stdout, /hello_world\s+hello-world\s+Greet someone/);
    assert.match(r.stdout, /Hello, shell! Greetings from the hello-world extension\./);
    assert.match(r.stdout, /Hello, pipe!/);
    assert.match(r.stdout, /unknown command \/nope/);
    assert.deepEqual(processesMentioning(workspace), []);
  },
);

test("CALL-13, CALL-15: a tool error result exits 1; an API 0.2 text result exits 0", async () => {
  const { dir, cleanup } = await makeExtensions([
    { name: "failing", behaviour: "tool-error" },
    { name: "partsy", behaviour: "good", api: "0.2", tools: ["echo2", "slow2"] },
  ]);
  try {
    const base = [
      "--extension-dir",
      dir,
      "--workspace",
      dir,
      "--enable-extension",
      "failing",
      "--enable-extension",
      "partsy",
    ];
    const failed = await runCli([...base, "call", "echo", '{"v":1}']);
    assert.equal(failed.code, 1, failed.stderr);
    assert.equal(failed.stdout, "the tool failed as asked\n");
    const ok = await runCli([...base, "--json", "call", "echo2", '{"v":2}']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout)["content"], [{ type: "text", text: '{"v":2}' }]);
  } finally {
    await cleanup();
  }
});
