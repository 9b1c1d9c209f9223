/**
 * `octet check` (issue 18.4) through the real binary: every example in examples/ passes the kit
 * (TypeScript, Python and pi extensions alike), and an extension that answers an unknown method
 * with a result fails it, naming ERR-01 with what was expected and what was seen.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processesMentioning, runCli } from "./helpers.js";
import { checkExamples, examplesWithManifest, foreignExamples, type Report } from "./check-helpers.js";

test("issue 18.4: octet check passes on every TypeScript example in examples/", async () => {
  const foreign = new Set(foreignExamples());
  const names = examplesWithManifest().filter((d) => !foreign.has(d));
  assert.ok(names.includes("hello-world") && !names.includes("scripted-model"), names.join(" "));
  await checkExamples(names);
});

/**
 * A raw JSON-RPC extension, no SDK. As "broken": correct in everything but answering unknown
 * methods with a result. As "stray": correct in everything but a debug line on stdout at start.
 */
const BROKEN = `
import { createInterface } from "node:readline";
const stray = process.argv[2] === "stray";
if (stray) process.stdout.write("debug: starting\\n");
const send = (f) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...f }) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return send({ id: null, error: { code: -32700, message: "parse error" } }); }
  if (m.jsonrpc !== "2.0") return send({ id: m.id ?? null, error: { code: -32600, message: "invalid request" } });
  if (m.id === undefined) return;
  if (m.method === "initialize") return send({ id: m.id, result: { api_version: "0.1", tools: [], commands: [] } });
  if (m.method === "shutdown") { send({ id: m.id, result: {} }); process.exit(0); }
  if (m.method === "tool/call") return send({ id: m.id, error: { code: -32602, message: "bad params" } });
  if (stray) return send({ id: m.id, error: { code: -32601, message: "method not found" } });
  send({ id: m.id, result: { ok: "whatever you asked" } });
});
`;

test(
  "issue 18.4: octet check exits 1 on an extension that answers an unknown method with a result (naming ERR-01) " +
    "and on one that writes a stray line to stdout (naming FRAME-03)",
  async () => {
    const dir = await mkdtemp(join(tmpdir(), "octet-check-broken-"));
    try {
      await writeFile(join(dir, "broken.mjs"), BROKEN);
      for (const name of ["broken", "stray"]) {
        await mkdir(join(dir, name));
        await writeFile(
          join(dir, name, "extension.toml"),
          `name = "${name}"\nversion = "0.0.1"\napi_version = "0.1"\n\n[entrypoint]\n` +
            `command = ${JSON.stringify(process.execPath)}\nargs = ["../broken.mjs", "${name}"]\n\n` +
            `[capabilities]\nfilesystem = "none"\nprocess = false\nnetwork = false\n`,
        );
      }
      const text = await runCli(["check", join(dir, "broken", "extension.toml")], { timeoutMs: 60_000 });
      assert.equal(text.code, 1, text.stderr);
      assert.match(text.stdout, /FAIL ERR-01 +an unknown method is refused with -32601/);
      assert.match(
        text.stdout,
        /expected: an error response with code -32601\n +seen: +a result: \{"ok":"whatever you asked"\}/,
      );
      const json = await runCli(["--json", "check", dir], { timeoutMs: 60_000 });
      assert.equal(json.code, 1);
      const [report, stray] = (JSON.parse(json.stdout) as { ok: boolean; reports: Report[] }).reports;
      assert.ok(report && stray && report.extension === "broken" && stray.extension === "stray");
      assert.equal(report.ok, false);
      const failed = [...new Set(report.results.filter((c) => c.outcome === "fail").map((c) => c.id))];
      // Only what is broken fails: the unknown method of ERR-01 and the requests after each bad frame and the storm.
      assert.ok(failed.includes("ERR-01"));
      const passed = report.results.filter((c) => c.outcome === "pass").map((c) => c.id);
      for (const id of ["INIT-01", "INIT-06", "ERR-02", "SHUT-01", "SHUT-02", "FRAME-03"])
        assert.ok(passed.includes(id), id);
      // The stray line fails FRAME-03, named in what was seen; the rest of its checks pass.
      const strayFailed = stray.results.filter((c) => c.outcome === "fail");
      assert.ok(strayFailed.length > 0 && strayFailed.every((c) => c.id === "FRAME-03"), JSON.stringify(strayFailed));
      assert.match(strayFailed[0]!.seen, /a line on stdout that is not UTF-8 JSON .*: debug: starting/);
      assert.deepEqual(processesMentioning(dir), []);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
