// The agent through the octet binary (issue 15.6): `octet run` against the scripted
// OpenAI-compatible server (examples/scripted-model, real HTTP through pi-ai), with a real
// extension, --json events, the approval gate under --no-input, and configuration errors.
// Sessions, the shell and kill -9 are in cli-agent-sessions.test.ts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLES, runCli } from "./helpers.js";

import { MODEL, scripted, sessionFiles } from "./agent-cli-support.js";

test("issue 15.6: octet run: the model calls a real extension's tool and the final answer is printed", async () => {
  const t = await scripted([
    { tool_calls: [{ name: "hello_world", arguments: { name: "octet" } }] },
    { text: "The extension greeted octet." },
  ]);
  try {
    const r = await runCli(
      [
        ...MODEL,
        "--workspace",
        t.ws,
        "--extension-dir",
        EXAMPLES,
        "--enable-extension",
        "hello-world",
        "run",
        "greet octet",
      ],
      { env: { OCTET_HOME: t.home }, timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "The extension greeted octet.\n");
    assert.match(r.stderr, /hello_world/);
    const second = JSON.stringify(t.server.requests[1]);
    assert.match(second, /Hello, octet! Greetings from the hello-world extension\./);
    assert.equal(sessionFiles(t.home).length, 1);
  } finally {
    await t.server.close();
  }
});

test("issue 15.6: octet run --json prints one event per line, turn_end with usage", async () => {
  const t = await scripted([{ text: "json answer", usage: { prompt_tokens: 11, completion_tokens: 2 } }]);
  try {
    const r = await runCli([...MODEL, "--workspace", t.ws, "--json", "run", "hi"], {
      env: { OCTET_HOME: t.home },
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; usage?: { input: number; output: number }; text?: string });
    const types = events.map((e) => e.type).filter((x) => x !== "text_delta");
    assert.deepEqual(types, ["run_start", "turn_start", "turn_end", "run_end"]);
    assert.ok(events.some((e) => e.type === "text_delta"));
    const end = events.find((e) => e.type === "turn_end")!;
    assert.deepEqual([end.usage!.input, end.usage!.output], [11, 2]);
    assert.equal(events.at(-1)!.text, "json answer");
  } finally {
    await t.server.close();
  }
});

test("issue 15.4: under --no-input a write is refused, the file is not created, the model is told", async () => {
  const t = await scripted([
    { tool_calls: [{ name: "write", arguments: { path: "made.txt", content: "x" } }] },
    { text: "I was not allowed to write." },
  ]);
  try {
    const r = await runCli([...MODEL, "--workspace", t.ws, "--no-input", "run", "write made.txt"], {
      env: { OCTET_HOME: t.home },
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(existsSync(join(t.ws, "made.txt")), false);
    assert.match(JSON.stringify(t.server.requests[1]), /--yes|always|policy/);
  } finally {
    await t.server.close();
  }
});

test("issue 15.6: echo PROMPT | octet run takes the prompt from stdin", async () => {
  const t = await scripted([{ match: "from a pipe", text: "piped answer" }]);
  try {
    const r = await runCli([...MODEL, "--workspace", t.ws, "run"], {
      env: { OCTET_HOME: t.home },
      input: "a prompt from a pipe\n",
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "piped answer\n");
    const empty = await runCli([...MODEL, "--workspace", t.ws, "run"], { env: { OCTET_HOME: t.home }, input: "  \n" });
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /run needs a PROMPT/);
  } finally {
    await t.server.close();
  }
});

test("issue 15.6: without a model, run says how to configure one (exit 2)", async () => {
  const home = mkdtempSync(join(tmpdir(), "octet-cli-agent-none-"));
  const r = await runCli(["run", "hello"], { env: { OCTET_HOME: home } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /no model is configured/);
  assert.match(r.stderr, /--model anthropic\//);
  assert.match(r.stderr, /models\.json/);
});

test("issue 15.6: without a model the shell works as before and a plain line says how to configure one", async () => {
  const home = mkdtempSync(join(tmpdir(), "octet-cli-agent-none-"));
  const r = await runCli(["--extension-dir", EXAMPLES, "--enable-extension", "hello-world"], {
    env: { OCTET_HOME: home },
    input: 'what is this?\n/call hello_world {"name":"x"}\n/quit\n',
    timeoutMs: 30_000,
  });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /no model is configured/);
  assert.match(r.stdout, /Hello, x!/);
  assert.equal(sessionFiles(home).length, 0);
});

test("issue 15.6: a mistyped settings.json key or value is a usage error naming the file and the key", async () => {
  const home = mkdtempSync(join(tmpdir(), "octet-cli-agent-settings-"));
  writeFileSync(join(home, "settings.json"), '{"modle": "anthropic/claude-sonnet-4-5"}');
  const typo = await runCli(["run", "hi"], { env: { OCTET_HOME: home } });
  assert.equal(typo.code, 2);
  assert.match(typo.stderr, /settings\.json: unknown key "modle" \(known: model, cacheWarming\)/);
  writeFileSync(join(home, "settings.json"), '{"model": "anthropic", "cacheWarming": "yes"}');
  const bad = await runCli(["run", "hi"], { env: { OCTET_HOME: home } });
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /"model" is "anthropic"; expected "PROVIDER\/MODEL_ID"/);
});

test("issue 15.6: an unknown model and a missing key are configuration errors that name what to do", async () => {
  const home = mkdtempSync(join(tmpdir(), "octet-cli-agent-bad-"));
  const unknown = await runCli(["--model", "nosuch/model", "run", "hi"], { env: { OCTET_HOME: home } });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /nosuch/);
  const env: Record<string, string> = { OCTET_HOME: home, ANTHROPIC_API_KEY: "", ANTHROPIC_OAUTH_TOKEN: "" };
  const nokey = await runCli(["--model", "anthropic/claude-sonnet-4-5", "run", "hi"], { env });
  assert.equal(nokey.code, 2, nokey.stderr);
  assert.match(nokey.stderr, /ANTHROPIC_API_KEY/);
  assert.equal(sessionFiles(home).length, 0, "no session is created for a run that cannot start");
});
