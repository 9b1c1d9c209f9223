// The agent through the octet binary (issue 15.6): `octet run` against the scripted
// OpenAI-compatible server (examples/scripted-model, real HTTP through pi-ai), with a real
// extension, --json events, the approval gate under --no-input, sessions list / --continue /
// --resume, the interactive shell over a pipe, and kill -9 in the middle of a turn.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CLI, EXAMPLES, ROOT, runCli, waitUntil } from "./helpers.js";

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

async function scripted(script: Record<string, unknown>[]): Promise<{ server: Server; home: string; ws: string }> {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-cli-agent-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-cli-agent-ws-"));
  return { server, home, ws };
}

const MODEL = ["--model", "scripted/scripted-model"];

function sessionFiles(home: string): string[] {
  const root = join(home, "sessions");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((d) =>
    readdirSync(join(root, d))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(root, d, f)),
  );
}

function entries(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .slice(1);
}

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

test("issue 15.6: sessions list, --continue and --resume carry the conversation on", async () => {
  const t = await scripted([{ text: "first reply" }, { text: "second reply" }, { text: "third reply" }]);
  try {
    const env = { OCTET_HOME: t.home };
    const base = [...MODEL, "--workspace", t.ws];
    assert.equal((await runCli([...base, "run", "remember the word PAPAYA"], { env, timeoutMs: 60_000 })).code, 0);
    const list = await runCli([...base, "--json", "sessions", "list"], { env });
    const sessions = JSON.parse(list.stdout) as { id: string; first_prompt: string }[];
    assert.equal(sessions.length, 1);
    assert.match(sessions[0]!.first_prompt, /PAPAYA/);
    const cont = await runCli([...base, "--continue", "run", "which word?"], { env, timeoutMs: 60_000 });
    assert.equal(cont.code, 0, cont.stderr);
    assert.match(JSON.stringify(t.server.requests[1]), /PAPAYA/);
    const resumed = await runCli([...base, "--resume", sessions[0]!.id.slice(0, 6), "run", "again?"], {
      env,
      timeoutMs: 60_000,
    });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(JSON.stringify(t.server.requests[2]), /which word\?/);
    assert.equal(sessionFiles(t.home).length, 1, "one session file throughout");
    const table = await runCli([...base, "sessions", "list"], { env });
    assert.match(table.stdout, new RegExp(sessions[0]!.id.slice(0, 8)));
  } finally {
    await t.server.close();
  }
});

test("issue 15.6: the shell over a pipe: a plain line is a prompt, /name and /session act on the session", async () => {
  const t = await scripted([{ text: "shell answer" }]);
  try {
    const r = await runCli([...MODEL, "--workspace", t.ws], {
      env: { OCTET_HOME: t.home },
      input: "hello from the shell\n/name my session\n/session\n/quit\n",
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /shell answer/);
    assert.match(r.stdout, /session named "my session"/);
    assert.match(r.stdout, /name\s+my session/);
    assert.match(r.stdout, /entries\s+3/);
  } finally {
    await t.server.close();
  }
});

test("issue 15.1: kill -9 mid-turn, a torn line left, then --continue: nothing committed is lost", async () => {
  const t = await scripted([
    { tool_calls: [{ name: "read", arguments: { path: "a.txt" } }] },
    { chunks: ["never ", "ending"], delay_ms: 30, hang: true },
    { text: "continued fine" },
  ]);
  try {
    writeFileSync(join(t.ws, "a.txt"), "content of a\n");
    const child = spawn(process.execPath, [CLI, ...MODEL, "--workspace", t.ws, "run", "read a.txt"], {
      env: { ...process.env, NO_COLOR: "1", OCTET_HOME: t.home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    // The second request is streaming: the user, assistant and tool result entries are committed.
    await waitUntil(() => t.server.requests.length >= 2, 30_000, "the second model request");
    const file = sessionFiles(t.home)[0]!;
    await waitUntil(() => entries(file).length >= 3, 10_000, "three committed entries");
    const before = entries(file);
    child.kill("SIGKILL");
    await new Promise((r) => child.on("close", r));
    // What a write cut by the kill leaves: part of a line, never reported as committed.
    appendFileSync(file, '{"type":"message","id":"torn0000","parent_id":');
    const r = await runCli([...MODEL, "--workspace", t.ws, "--continue", "run", "go on"], {
      env: { OCTET_HOME: t.home },
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "continued fine\n");
    assert.match(r.stderr, /torn|skipp/i, "the torn line is reported");
    assert.match(r.stderr, /stale lock/, "the dead process's lock is taken over, and said so");
    assert.doesNotMatch(readFileSync(file, "utf8"), /torn0000/, "the torn line is gone from the file");
    const after = entries(file);
    assert.deepEqual(after.slice(0, before.length), before, "every committed entry is still there, unchanged");
    const roles = after.map((e) => (e["message"] as { role: string }).role);
    assert.deepEqual(roles.slice(0, 3), ["user", "assistant", "toolResult"]);
    assert.equal(roles.at(-1), "assistant");
    assert.match(JSON.stringify(t.server.requests.at(-1)), /content of a/);
  } finally {
    await t.server.close();
  }
});

test("WAVE1-32: in the shell, an extension's user message runs and is drawn like a prompt", async () => {
  const t = await scripted([{ match: "from the extension", text: "answer to the extension's message" }]);
  const ext = mkdtempSync(join(tmpdir(), "octet-cli-inject-"));
  cpSync(join(ROOT, "tests/fixtures/inject-probe"), join(ext, "inject-probe"), { recursive: true });
  mkdirSync(join(ext, "inject-probe/node_modules/@octet"), { recursive: true });
  symlinkSync(join(ROOT, "sdk/typescript"), join(ext, "inject-probe/node_modules/@octet/extension"));
  try {
    const r = await runCli(
      [...MODEL, "--workspace", t.ws, "--extension-dir", ext, "--enable-extension", "inject-probe"],
      { env: { OCTET_HOME: t.home }, input: "/inject from the extension\n", timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /inject: ok/);
    assert.match(r.stdout, /message from an extension: from the extension\n(.|\n)*answer to the extension's message/);
    const [file] = sessionFiles(t.home);
    const users = entries(file!).filter((e) => (e["message"] as { role?: string } | undefined)?.role === "user");
    assert.equal(users.length, 1);
  } finally {
    await t.server.close();
  }
});
