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
import assert from "node:assert/strict";
import type { ExtensionHost } from "@octet/host";
import type { SessionEntry } from "../../src/session/index.js";
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

/** The JSON lines of `file` so far; none when it does not exist yet. */
export function readJsonl<T>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as T);
}

/** A session file's entries as they are on disk (its header line left out). */
export function entriesOnDisk(path: string): SessionEntry[] {
  return readJsonl<SessionEntry>(path).slice(1);
}

/**
 * The fixture extension tests/fixtures/<fixture> copied into a folder of its own (an
 * --extension-dir), so each test reads its own log: a TypeScript one with @octet/extension linked
 * in so it resolves, a Python one (`python`) pointed at this checkout's SDK by absolute path.
 * `log` is the file (relative to the copied extension) its log() reads.
 */
export function fixtureExtension<T>(
  fixture: string,
  log: string,
  o: { python?: boolean } = {},
): { dir: string; ext: string; log(): T[] } {
  const dir = mkdtempSync(join(tmpdir(), `octet-${fixture}-`));
  const ext = join(dir, fixture);
  cpSync(join(ROOT, "tests/fixtures", fixture), ext, { recursive: true });
  if (o.python === true) {
    const toml = join(ext, "extension.toml");
    writeFileSync(toml, readFileSync(toml, "utf8").replace("../../../sdk/python", join(ROOT, "sdk/python")));
  } else {
    mkdirSync(join(ext, "node_modules/@octet"), { recursive: true });
    symlinkSync(join(ROOT, "sdk/typescript"), join(ext, "node_modules/@octet/extension"));
  }
  const file = join(ext, log);
  return { dir, ext, log: () => readJsonl<T>(file) };
}

/** The agent-probe extension (tests/fixtures/agent-probe); log() reads what it recorded so far. */
export function probeExtension(): { dir: string; log(): ProbeRecord[] } {
  return fixtureExtension<ProbeRecord>("agent-probe", "probe.log");
}

/** Fails the test (after `cleanup`) unless extension `name` of `host` is ready, saying why not. */
export async function expectReady(host: ExtensionHost, name: string, cleanup: () => Promise<unknown>): Promise<void> {
  const status = host.status().find((s) => s.name === name);
  if (status?.state === "ready") return;
  await host.shutdown();
  await cleanup();
  assert.fail(`${name} not ready: ${status?.state} ${status?.parkedReason ?? ""}`);
}

/** Resolves when `test` holds, polling every 20 ms; rejects after `ms` with `what`. */
export async function until(test: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!test()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
