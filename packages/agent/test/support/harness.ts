/**
 * What the agent's tests share: the scripted OpenAI-compatible server (examples/scripted-model,
 * real HTTP on 127.0.0.1, so pi-ai's real client runs), a temporary $OCTET_HOME with a
 * models.json pointing at it, and the agent-probe extension (tests/fixtures/agent-probe) copied
 * into a temporary folder so each test reads its own log.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadModelsFile, resolveModel, type ResolvedModel } from "../../src/models/index.js";
import { scripted, type ScriptStep, type ScriptedServer } from "../helpers/scripted-server.js";

/** The repository root (this file runs from packages/agent/dist/test/support). */
export const ROOT = resolve(fileURLToPath(import.meta.url), "../../../../../..");

export type { ScriptStep, ScriptedServer };

export async function scriptedServer(script: ScriptStep[]): Promise<ScriptedServer> {
  return (await scripted()).startScriptedServer({ script });
}

/** A fresh $OCTET_HOME whose models.json has provider "scripted" at `url` (pi's format). */
export async function scriptedHome(url: string, model: Record<string, unknown> = {}): Promise<string> {
  const home = mkdtempSync(join(tmpdir(), "octet-agent-home-"));
  const json = (await scripted()).modelsJsonFor(url) as {
    providers: { scripted: { models: Record<string, unknown>[] } };
  };
  Object.assign(json.providers.scripted.models[0]!, model);
  writeFileSync(join(home, "models.json"), JSON.stringify(json, null, 2));
  return home;
}

/** The scripted model, resolved the way the CLI does it: from models.json, through pi-ai's types. */
export async function scriptedModel(home: string): Promise<ResolvedModel> {
  return resolveModel(
    { provider: "scripted", id: "scripted-model" },
    { modelsFile: loadModelsFile(join(home, "models.json")), env: {} },
  );
}

export function tempWorkspace(): string {
  return mkdtempSync(join(tmpdir(), "octet-agent-ws-"));
}

export interface ProbeRecord {
  what: "hook" | "context" | "lifecycle" | "tool" | "tool_cancelled";
  hook?: string;
  event?: string;
  payload?: Record<string, unknown>;
  params?: Record<string, unknown>;
  prompt?: string | null;
  name?: string;
  args?: Record<string, unknown>;
}

/**
 * The agent-probe extension in a folder of its own (an --extension-dir), with @octet/extension
 * linked in so it resolves; log() reads what it recorded so far.
 */
export function probeExtension(): { dir: string; log(): ProbeRecord[] } {
  const dir = mkdtempSync(join(tmpdir(), "octet-agent-ext-"));
  const ext = join(dir, "agent-probe");
  cpSync(join(ROOT, "tests/fixtures/agent-probe"), ext, { recursive: true });
  mkdirSync(join(ext, "node_modules/@octet"), { recursive: true });
  symlinkSync(join(ROOT, "sdk/typescript"), join(ext, "node_modules/@octet/extension"));
  const file = join(ext, "probe.log");
  return {
    dir,
    log: () =>
      existsSync(file)
        ? readFileSync(file, "utf8")
            .split("\n")
            .filter((l) => l !== "")
            .map((l) => JSON.parse(l) as ProbeRecord)
        : [],
  };
}

/** Resolves when `test` holds, polling every 20 ms; rejects after `ms` with `what`. */
export async function until(test: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
