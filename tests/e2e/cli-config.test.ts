/**
 * Configuration files (issue 18.6) through the real `octet` binary: $OCTET_HOME/config.toml and
 * <workspace>/.octet/config.toml under the flags, what a project file may not do, `-e PATH`, and
 * `octet config` saying where each value came from.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLES, FAKE_EXT, runCli } from "./helpers.js";

/** An octet home and a workspace with one project extension ("proj", tool proj_echo); removed after. */
async function withHomeAndWorkspace(body: (home: string, ws: string) => Promise<void>): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "octet-cfg-e2e-"));
  const home = join(root, "home");
  const ws = join(root, "ws");
  const proj = join(ws, ".octet", "extensions", "proj");
  await mkdir(home);
  await mkdir(proj, { recursive: true });
  await writeFile(
    join(proj, "extension.toml"),
    `name = "proj"\nversion = "0.0.1"\napi_version = "0.1"\n[entrypoint]\ncommand = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(FAKE_EXT)}, "good", "0.1", "proj_echo,proj_slow"]
[capabilities]\nfilesystem = "none"\nprocess = false\nnetwork = false
[contributes]\ntools = ["proj_echo", "proj_slow"]\n`,
  );
  try {
    await body(home, ws);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

test("issue 18.6: the home config replaces the flags; octet config names where each value came from", async () => {
  await withHomeAndWorkspace(async (home, ws) => {
    const homeFile = join(home, "config.toml");
    await writeFile(homeFile, `extension_dirs = ["${EXAMPLES}"]\nenable = ["hello-world"]\nmax_turns = 7\n`);
    await writeFile(join(ws, ".octet", "config.toml"), 'model = "openai/gpt-4o"\nenable = ["typed-tools"]\n');
    const env = { OCTET_HOME: home };
    const call = await runCli(["call", "hello_world", '{"name":"config"}'], { cwd: ws, env });
    assert.equal(call.code, 0, call.stderr);
    assert.equal(call.stdout.trim(), "Hello, config! Greetings from the hello-world extension.");

    const text = await runCli(["--max-turns", "3", "config"], { cwd: ws, env });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`^ {2}home {7}${homeFile}$`, "m"));
    assert.match(text.stdout, /^model +openai\/gpt-4o +\S+\/ws\/\.octet\/config\.toml$/m);
    assert.match(text.stdout, /^max_turns +3 +--max-turns$/m);
    assert.match(text.stdout, /^pi_runtime +quickjs +default$/m);
    assert.match(text.stdout, /^enable +typed-tools +\S+\/ws\/\.octet\/config\.toml\n +hello-world +\S+config\.toml$/m);

    const json = await runCli(["--json", "-e", join(EXAMPLES, "media"), "config"], { cwd: ws, env });
    assert.equal(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout) as {
      files: { home: { path: string; found: boolean } };
      settings: Record<string, { value: unknown; source: string } | { value: unknown; source: string }[]>;
    };
    assert.deepEqual(out.files.home, { path: homeFile, found: true });
    assert.deepEqual(out.settings["max_turns"], { value: 7, source: homeFile });
    assert.deepEqual(out.settings["enable"], [
      { value: "media", source: "-e" },
      { value: "typed-tools", source: join(ws, ".octet", "config.toml") },
      { value: "hello-world", source: homeFile },
    ]);
  });
});

test("issue 18.6: a project file may enable its extension but not trust it; home trust starts it", async () => {
  await withHomeAndWorkspace(async (home, ws) => {
    const wsFile = join(ws, ".octet", "config.toml");
    await writeFile(wsFile, 'enable = ["proj"]\ntrust = ["proj"]\n');
    const refused = await runCli(["call", "proj_echo", "{}"], { cwd: ws, env: { OCTET_HOME: home } });
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, new RegExp(`${wsFile}: key "trust": a workspace config cannot set it: a cloned `));

    await writeFile(wsFile, 'enable = ["proj"]\n');
    const untrusted = await runCli(["call", "proj_echo", "{}"], { cwd: ws, env: { OCTET_HOME: home } });
    assert.equal(untrusted.code, 3, untrusted.stderr);
    assert.match(untrusted.stderr, /project extension "proj" is not trusted/);

    await writeFile(join(home, "config.toml"), 'trust = ["proj"]\n');
    const ok = await runCli(["call", "proj_echo", '{"a":1}'], { cwd: ws, env: { OCTET_HOME: home } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /"a":\s*1/);
  });
});

test("issue 18.6: policy and secrets from the home config reach the guarded example", async () => {
  await withHomeAndWorkspace(async (home, ws) => {
    await writeFile(
      join(home, "config.toml"),
      `extension_dirs = ["${EXAMPLES}"]\nenable = ["guarded"]\npolicy = "${EXAMPLES}/guarded/policy.toml"\n` +
        '[secrets]\nguarded.api_token = "GUARDED_TOKEN"\n',
    );
    const r = await runCli(["call", "publish", '{"text":"hi","preview":true}'], {
      cwd: ws,
      env: { OCTET_HOME: home, GUARDED_TOKEN: "cfg-secret" },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^previewed "hi" with token sha256:[0-9a-f]{12}$/m);
  });
});

test("issue 18.6: -e loads and enables one extension folder, a pi-extension.json folder or a pi file", async () => {
  const hello = await runCli(["-e", join(EXAMPLES, "hello-world"), "call", "hello_world", '{"name":"e"}']);
  assert.equal(hello.code, 0, hello.stderr);
  assert.match(hello.stdout, /Hello, e!/);
  for (const path of [join(EXAMPLES, "quickjs"), join(EXAMPLES, "quickjs", "quickjs_extension.mjs")]) {
    const r = await runCli(["-e", path, "call", "word_count", '{"text":"a b c"}'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, `${path}: ${r.stderr}`);
    assert.match(r.stdout, /3/);
  }
  const folder = await runCli(["-e", EXAMPLES, "tools"]);
  assert.equal(folder.code, 2);
  assert.match(folder.stderr, /-e \S+examples: \S+ holds no extension\.toml.*use --extension-dir/);
});

test("issue 18.6: config.toml's model wins over settings.json's, which is still used alone", async () => {
  await withHomeAndWorkspace(async (home, ws) => {
    await writeFile(join(home, "settings.json"), '{"model": "anthropic/claude-sonnet-4-5"}');
    const alone = await runCli(["--json", "config"], { cwd: ws, env: { OCTET_HOME: home } });
    assert.deepEqual(JSON.parse(alone.stdout).settings.model, {
      value: "anthropic/claude-sonnet-4-5",
      source: join(home, "settings.json"),
    });
    await writeFile(join(home, "config.toml"), 'model = "openai/gpt-4o"\n');
    const both = await runCli(["models"], { cwd: ws, env: { OCTET_HOME: home } });
    assert.equal(both.code, 0, both.stderr);
    assert.match(both.stdout, new RegExp(`current: openai/gpt-4o \\(from ${join(home, "config.toml")}\\)`));
  });
});
