// The scripted model server and session files for the CLI agent tests (cli-agent*.test.ts).
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./helpers.js";

export interface Server {
  url: string;
  requests: Record<string, unknown>[];
  close(): Promise<void>;
}

export async function scripted(
  script: Record<string, unknown>[],
): Promise<{ server: Server; home: string; ws: string }> {
  const mod = await import(pathToFileURL(join(ROOT, "examples/scripted-model/server.mjs")).href);
  const server = (await mod.startScriptedServer({ script })) as Server;
  const home = mkdtempSync(join(tmpdir(), "octet-cli-agent-home-"));
  writeFileSync(join(home, "models.json"), JSON.stringify(mod.modelsJsonFor(server.url)));
  const ws = mkdtempSync(join(tmpdir(), "octet-cli-agent-ws-"));
  return { server, home, ws };
}

export const MODEL = ["--model", "scripted/scripted-model"];

export function sessionFiles(home: string): string[] {
  const root = join(home, "sessions");
  if (!existsSync(root)) return [];
  return readdirSync(root).flatMap((d) =>
    readdirSync(join(root, d))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => join(root, d, f)),
  );
}

export function entries(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .slice(1);
}
