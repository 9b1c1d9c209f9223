// The session of pi-examples*.test.ts: a home with models.json for the scripted OpenAI-compatible
// server, a workspace, and `octet` with one of pi's shipped examples loaded by --pi-extension (as
// shipped, never edited); the session file read back as pi's entries.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, runCli } from "./helpers.js";

export const EXAMPLES = join(ROOT, "node_modules", "@mariozechner", "pi-coding-agent", "examples", "extensions");

interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

type Entry = Record<string, unknown>;
export interface ToolResult {
  role: "toolResult";
  toolName: string;
  isError: boolean;
  content: { type: string; text: string }[];
  details?: unknown;
}

/** A home with models.json for the scripted server, a workspace, and `octet` with one pi example (or a path) loaded. */
export async function session(example: string, script: Record<string, unknown>[], o: { runtime?: "node" } = {}) {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-pi-examples-home-"));
  const models = mod.modelsJsonFor(server.url);
  // A window far beyond what the scripts report: octet's own compaction never runs unasked.
  models.providers.scripted.models[0].contextWindow = 1_000_000;
  writeFileSync(join(home, "models.json"), JSON.stringify(models));
  const ws = mkdtempSync(join(tmpdir(), "octet-pi-examples-ws-"));
  const flags = [
    ...["--model", "scripted/scripted-model", "--workspace", ws],
    ...["--pi-extension", isAbsolute(example) ? example : join(EXAMPLES, example)],
    ...(o.runtime === "node" ? ["--pi-runtime", "node"] : []),
  ];
  const octet = (args: string[], input?: string) =>
    runCli([...flags, ...args], {
      env: { OCTET_HOME: home },
      timeoutMs: 60_000,
      ...(input !== undefined ? { input } : {}),
    });
  const entries = (): Entry[] => {
    const dir = join(home, "sessions", readdirSync(join(home, "sessions"))[0]!);
    return readFileSync(join(dir, readdirSync(dir)[0]!), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Entry);
  };
  const toolResults = (): ToolResult[] =>
    entries()
      .map((e) => e["message"] as { role?: string } | undefined)
      .filter((m): m is ToolResult => m?.role === "toolResult");
  return { server, octet, entries, toolResults, ws, home };
}
