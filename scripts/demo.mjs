#!/usr/bin/env node
// `npm run demo`: octet's main job on a bundled example, with no model service and no key. It
// starts the scripted OpenAI-compatible server of examples/scripted-model (real HTTP on
// 127.0.0.1, so the real provider path runs) with demo.json, points a temporary $OCTET_HOME's
// models.json at it, and runs one prompt: the model calls the hello-world extension's tool and
// answers with what it returned. With a real model, the same command is
//   octet --model anthropic/claude-sonnet-4-5 --extension-dir examples \
//     --enable-extension hello-world run "say hello to octet"
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadScript, modelsJsonFor, startScriptedServer } from "../examples/scripted-model/server.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const server = await startScriptedServer({ script: loadScript(join(root, "examples/scripted-model/demo.json")) });
const home = mkdtempSync(join(tmpdir(), "octet-demo-home-"));
const workspace = mkdtempSync(join(tmpdir(), "octet-demo-ws-"));
writeFileSync(join(home, "models.json"), JSON.stringify(modelsJsonFor(server.url), null, 2));
const args = [
  join(root, "packages/cli/dist/src/main.js"),
  "--model",
  "scripted/scripted-model",
  "--extension-dir",
  join(root, "examples"),
  "--enable-extension",
  "hello-world",
  "--workspace",
  workspace,
  "run",
  "say hello to octet",
];
process.stderr.write(`$ octet ${args.slice(1).join(" ")}\n  (model: the scripted server at ${server.url})\n`);
const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, args, { stdio: "inherit", env: { ...process.env, OCTET_HOME: home } });
  child.on("close", (c) => resolve(c ?? 1));
});
await server.close();
rmSync(home, { recursive: true, force: true });
rmSync(workspace, { recursive: true, force: true });
process.exitCode = code;
