/**
 * --trace FILE and OCTET_TRACE (issue 18.5) through the real binary and real extensions: every
 * frame both ways as JSONL with time, extension and generation; the broker's secret never in the
 * file; `octet trace FILE` readable, with its filters.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, EXAMPLES, runCli } from "./helpers.js";

interface TraceRecord {
  ts: string;
  extension: string;
  generation: number;
  dir: "in" | "out";
  frame?: Record<string, unknown>;
}

function records(file: string): TraceRecord[] {
  return readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l) as TraceRecord);
}

async function withTemp(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-trace-e2e-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const HELLO = ["--extension-dir", EXAMPLES, "--enable-extension", "hello-world"];

test(
  "issue 18.5: --trace writes every frame both ways with time, extension and generation; octet trace shows " + "it",
  async () => {
    await withTemp(async (dir) => {
      const file = join(dir, "frames.jsonl");
      const r = await runCli(["--trace", file, ...HELLO, "call", "hello_world", '{"name":"trace"}']);
      assert.equal(r.code, 0, r.stderr);
      const all = records(file);
      const methods = all.map(
        (x) => `${x.dir} ${String(x.frame?.["method"] ?? (x.frame && "result" in x.frame ? "result" : "?"))}`,
      );
      // initialize out and its answer in, the call out and its answer in, shutdown out and its ack in.
      assert.deepEqual(methods, [
        "out initialize",
        "in result",
        "out tool/call",
        "in result",
        "out shutdown",
        "in result",
      ]);
      for (const x of all) {
        assert.equal(x.extension, "hello-world");
        assert.equal(x.generation, 1);
        assert.ok(!Number.isNaN(Date.parse(x.ts)), x.ts);
      }
      assert.deepEqual(all[2]?.frame?.["params"] && (all[2].frame["params"] as { arguments: unknown }).arguments, {
        name: "trace",
      });

      const shown = await runCli(["trace", file]);
      assert.equal(shown.code, 0, shown.stderr);
      const lines = shown.stdout.trimEnd().split("\n");
      assert.equal(lines.length, 6);
      assert.match(lines[0]!, /^\d\d:\d\d:\d\d\.\d{3} hello-world#1 → initialize #1 \{/);
      assert.match(lines[1]!, /hello-world#1 ← result #1 \(initialize\) \{"api_version":"0\.1"/);
      assert.match(lines[3]!, /hello-world#1 ← result #2 \(tool\/call\) .*trace/);

      const only = await runCli(["trace", "--only-method", "tool/call", file]);
      const kept = only.stdout.trimEnd().split("\n");
      assert.equal(kept.length, 2, only.stdout);
      assert.match(kept[0]!, / hello-world#1 → tool\/call #2 \{"name":"hello_world"/);
      assert.match(kept[1]!, / hello-world#1 ← result #2 \(tool\/call\) \{"content":/);
      const none = await runCli(["trace", "--only-extension", "other", file]);
      assert.equal(none.stdout, "");
    });
  },
);

test("issue 18.5: OCTET_TRACE traces too, and the broker's secret is redacted wherever it would appear", async () => {
  await withTemp(async (dir) => {
    const file = join(dir, "secret.jsonl");
    const secret = "s3cret-value-for-the-trace";
    const r = await runCli(
      [
        "--extension-dir",
        EXAMPLES,
        "--enable-extension",
        "guarded",
        "--policy",
        join(EXAMPLES, "guarded", "policy.toml"),
        "--secret",
        "guarded.api_token=GUARDED_TOKEN",
        "call",
        "publish",
        '{"text":"hi","preview":true}',
      ],
      { env: { GUARDED_TOKEN: secret, OCTET_TRACE: file } },
    );
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(file, "utf8");
    assert.ok(!text.includes(secret), "the secret value is not in the trace");
    const all = records(file);
    const ask = all.find((x) => x.dir === "in" && x.frame?.["method"] === "secret/get");
    assert.ok(ask, "the secret/get request is traced");
    const answer = all.find(
      (x) => x.dir === "out" && x.frame?.["id"] === ask.frame?.["id"] && "result" in (x.frame ?? {}),
    );
    assert.equal(answer?.frame?.["result"], "[redacted]");
  });
});

test("issue 18.5: trace needs one FILE (exit 2), a missing file exits 3; help teaches trace and check", async () => {
  const usage = await runCli(["trace"]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /trace takes one FILE/);
  const help = await runCli(["trace", "--help"]);
  assert.match(help.stdout, /octet --trace frames\.jsonl --extension-dir examples --enable-extension hello-world/);
  assert.match(help.stdout, /--only-method METHOD/);
  const checkHelp = await runCli(["help", "check"]);
  assert.match(checkHelp.stdout, /octet check examples\/hello-world/);
  assert.match((await runCli(["--help"])).stdout, /--trace FILE +append every extension frame/);
  const missing = await runCli(["trace", join(tmpdir(), "octet-no-such-trace.jsonl")]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /cannot read it \(ENOENT\)/);
});

test("issue 18.5: octet trace --follow shows records appended after it started, until Ctrl-C", async () => {
  await withTemp(async (dir) => {
    const file = join(dir, "live.jsonl");
    const record = (id: number): string =>
      `${JSON.stringify({
        ts: new Date().toISOString(),
        extension: "live",
        generation: 3,
        dir: "out",
        frame: { jsonrpc: "2.0", id, method: "tool/call", params: { name: "t" } },
      })}\n`;
    writeFileSync(file, record(1));
    const child = spawn(process.execPath, [CLI, "trace", "--follow", file], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const seen = (n: number): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${n} lines within 10 s: ${out}`)), 10_000);
        const check = (): void => {
          if (out.split("\n").filter(Boolean).length >= n) {
            clearTimeout(timer);
            child.stdout.off("data", onData);
            resolve();
          }
        };
        const onData = (d: Buffer): void => {
          out += d.toString("utf8");
          check();
        };
        child.stdout.on("data", onData);
        check();
      });
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    await seen(1);
    appendFileSync(file, record(2));
    await seen(2);
    child.kill("SIGINT");
    assert.equal(await exited, 0);
    assert.match(out, /live#3 → tool\/call #1 /);
    assert.match(out, /live#3 → tool\/call #2 /);
  });
});
