// Typed access to examples/scripted-model/server.mjs (plain ESM, no build step) for the tests.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface ScriptStep {
  match?: string;
  text?: string;
  chunks?: string[];
  tool_calls?: { name: string; arguments: Record<string, unknown>; id?: string }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  finish_reason?: string;
  delay_ms?: number;
  error?: { status: number; message: string; type?: string; retry_after_ms?: number };
  disconnect_after_chunks?: number;
  hang?: boolean;
}

export interface ScriptedServer {
  url: string;
  port: number;
  requests: Record<string, unknown>[];
  headers: Record<string, string | string[] | undefined>[];
  push(step: ScriptStep): void;
  pending(): number;
  close(): Promise<void>;
}

interface ServerModule {
  startScriptedServer(o: { script?: ScriptStep[]; port?: number; apiKey?: string }): Promise<ScriptedServer>;
  modelsJsonFor(url: string, apiKey?: string): Record<string, unknown>;
  SCRIPTED_MODEL_ID: string;
}

/** The repository root: the first parent of this file holding examples/scripted-model. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "examples", "scripted-model", "server.mjs"))) {
    const up = dirname(dir);
    if (up === dir) throw new Error("examples/scripted-model/server.mjs not found above the test");
    dir = up;
  }
  return dir;
}

export const SERVER_PATH = join(repoRoot(), "examples", "scripted-model", "server.mjs");

export async function scripted(): Promise<ServerModule> {
  return (await import(pathToFileURL(SERVER_PATH).href)) as ServerModule;
}
