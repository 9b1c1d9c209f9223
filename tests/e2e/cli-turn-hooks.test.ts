// `octet run` binds session_entries to the agent's session (W 2.21, W 1.4b): a real API 0.4
// extension (tests/fixtures/turn-probe) gets model_turn_start / model_turn_end and its entries
// land in the session file the CLI wrote, with the extension named.
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

test("TURN-08, WAVE1-27: octet run: the probe's hook entries are in the session file the CLI wrote", async () => {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = await mod.startScriptedServer({ script: [{ text: "Hello there." }] });
  const home = mkdtempSync(join(tmpdir(), "octet-cli-turn-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-cli-turn-ws-"));
  const dir = mkdtempSync(join(tmpdir(), "octet-cli-turn-ext-"));
  const ext = join(dir, "turn-probe");
  cpSync(join(ROOT, "tests/fixtures/turn-probe"), ext, { recursive: true });
  writeFileSync(join(ext, "mode.json"), JSON.stringify({ append: ["model_turn_start", "model_turn_end"] }));
  mkdirSync(join(ext, "node_modules/@octet"), { recursive: true });
  symlinkSync(join(ROOT, "sdk/typescript"), join(ext, "node_modules/@octet/extension"));
  try {
    const r = await runCli(
      [
        "--model",
        "scripted/scripted-model",
        "--workspace",
        ws,
        "--extension-dir",
        dir,
        "--enable-extension",
        "turn-probe",
        "run",
        "hello",
      ],
      { env: { OCTET_HOME: home }, timeoutMs: 60_000 },
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, "Hello there.\n");
    const root = join(home, "sessions");
    assert.ok(existsSync(root));
    const files = readdirSync(root).flatMap((d) => readdirSync(join(root, d)).map((f) => join(root, d, f)));
    const lines = readFileSync(files.find((f) => f.endsWith(".jsonl"))!, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .slice(1)
      .map((l) => JSON.parse(l) as Record<string, any>);
    const custom = lines.filter((e) => e["type"] === "custom");
    assert.deepEqual(
      custom.map((e) => [e["extension"], e["entry_type"], e["data"]["hook"]]),
      [
        ["turn-probe", "turn-note", "model_turn_start"],
        ["turn-probe", "turn-note", "model_turn_end"],
      ],
    );
    const log = readFileSync(join(dir, "turn.log"), "utf8");
    for (const e of custom) assert.ok(log.includes(e["id"]), `the hook got the real id ${e["id"]}`);
  } finally {
    await server.close();
  }
});
