// session/switch (W 2.21b) through the octet binary: the interactive shell over a pipe binds the
// agent's lifecycle service when a model is configured, so an extension's tool (the control-probe
// fixture, TypeScript SDK) switches the shell's session, and the next prompt goes to the other.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
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
import { ROOT, runCli } from "./helpers.js";

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

function sessionFiles(home: string): string[] {
  const root = join(home, "sessions");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((d) =>
    readdirSync(join(root, d))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(root, d, f)),
  );
}

function lines(file: string): Record<string, any>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);
}

test("SCTL-04: in the shell an extension switches the session; the next prompt goes there", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({
    script: [{ text: "first answer" }, { text: "shell answer" }, { text: "second answer" }],
  })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-cli-ctl-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-cli-ctl-ws-"));
  const exts = mkdtempSync(join(tmpdir(), "octet-cli-ctl-ext-"));
  cpSync(join(ROOT, "tests/fixtures/control-probe"), join(exts, "control-probe"), { recursive: true });
  mkdirSync(join(exts, "control-probe/node_modules/@octet"), { recursive: true });
  symlinkSync(join(ROOT, "sdk/typescript"), join(exts, "control-probe/node_modules/@octet/extension"));
  const base = ["--model", "scripted/scripted-model", "--workspace", ws, "--extension-dir", exts];
  try {
    const first = await runCli([...base, "run", "first prompt"], { env: { OCTET_HOME: home }, timeoutMs: 60_000 });
    assert.equal(first.code, 0, first.stderr);
    const [other] = sessionFiles(home);
    assert.ok(other);
    const otherId = lines(other)[0]!["id"] as string;
    const call = JSON.stringify({ op: "switch", tag: "sw", session_id: otherId });
    const r = await runCli([...base, "--enable-extension", "control-probe"], {
      env: { OCTET_HOME: home },
      input: `hello from the shell\n/call ctl ${call}\nsecond prompt\n/session\n/quit\n`,
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /shell answer/);
    assert.match(r.stdout, new RegExp(`id\\s+${otherId}`));
    const log = readFileSync(join(exts, "control.log"), "utf8");
    assert.match(log, /"tag":"sw","op":"switch","ok":true/);
    const files = sessionFiles(home);
    assert.equal(files.length, 2);
    const texts = (f: string) =>
      lines(f)
        .filter((e) => e["type"] === "message")
        .map((e) => JSON.stringify(e["message"]["content"]));
    assert.deepEqual(
      texts(other).map((t) => /first prompt|first answer|second prompt|second answer/.exec(t)?.[0]),
      ["first prompt", "first answer", "second prompt", "second answer"],
    );
    const shellFile = files.find((f) => f !== other)!;
    assert.equal(texts(shellFile).length, 2, "the shell's own session kept only its first exchange");
  } finally {
    await server.close();
  }
});
