/**
 * Where the CLI meets the agent: which model (--model, else "model" in $OCTET_HOME/settings.json),
 * which session (--continue, --resume ID, else a new one), and the gate of the built-in tools
 * (--yes, --no-input, --policy, else asked at the terminal). @octet/agent and its provider
 * library load only here, on first use, so the host-only commands (call, tools, extensions) pay
 * nothing for them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolveOctetHome, type ExtensionHost } from "@octet/host";
import type { Agent, ModelsFile } from "@octet/agent";
import type { GlobalOptions } from "./args.js";
import type { CliUi } from "./session.js";
import { UsageError } from "./usage-error.js";

export type AgentLib = typeof import("@octet/agent");

export interface AgentConfig {
  home: string;
  /** PROVIDER/ID, or null when none is configured. */
  model: string | null;
  /** Where the model came from, for messages: "--model", a config.toml path, "settings.json". */
  source: string | null;
  /** settings.json "cacheWarming": keep the provider's prompt cache warm while idle (default false). */
  cacheWarming: boolean;
}

/** Settings are a few keys; a large file is a mistake. */
const MAX_SETTINGS_BYTES = 65_536;
const SETTINGS_KEYS = ["model", "cacheWarming"];

/**
 * --model (or config.toml's model, folded into it by config/config-resolve.ts), else
 * $OCTET_HOME/settings.json; a broken settings file is a usage error naming it.
 */
export function agentConfig(options: GlobalOptions, env = process.env): AgentConfig {
  const home = resolveOctetHome({ env });
  const path = join(home, "settings.json");
  const settings = readSettings(path);
  const fromFile = settings["model"];
  if (fromFile !== undefined && fromFile !== null && (typeof fromFile !== "string" || !/^[^/\s]+\/\S+$/.test(fromFile)))
    throw new UsageError(`${path}: "model" is ${JSON.stringify(fromFile)}; expected "PROVIDER/MODEL_ID"`);
  const warming = settings["cacheWarming"] ?? false;
  if (typeof warming !== "boolean")
    throw new UsageError(`${path}: "cacheWarming" is ${JSON.stringify(warming)}; expected true or false`);
  if (options.model !== null)
    return { home, model: options.model, source: options.modelSource ?? "--model", cacheWarming: warming };
  if (typeof fromFile === "string") return { home, model: fromFile, source: "settings.json", cacheWarming: warming };
  return { home, model: null, source: null, cacheWarming: warming };
}

function readSettings(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new UsageError(`${path}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  if (text.length > MAX_SETTINGS_BYTES)
    throw new UsageError(`${path} is ${text.length} characters, over the ${MAX_SETTINGS_BYTES} limit`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${path} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new UsageError(`${path} must be a JSON object such as {"model": "PROVIDER/ID"}`);
  for (const key of Object.keys(doc))
    if (!SETTINGS_KEYS.includes(key))
      throw new UsageError(`${path}: unknown key ${JSON.stringify(key)} (known: ${SETTINGS_KEYS.join(", ")})`);
  return doc as Record<string, unknown>;
}

/** What a prompt says when no model is configured: how to configure one. */
export function noModelHelp(home: string): string {
  return [
    "no model is configured, so a line that is not a /command has nowhere to go. Configure one:",
    "  octet --model anthropic/claude-sonnet-4-5        (with ANTHROPIC_API_KEY set; or openai/..., google/...)",
    `  or put model = "PROVIDER/ID" in ${join(home, "config.toml")} (or .octet/config.toml of this workspace)`,
    `  a local OpenAI-compatible server (Ollama, llama.cpp, vLLM) goes in ${join(home, "models.json")};`,
    "  `octet models` lists the models octet knows and whether their key is set",
  ].join("\n");
}

export function loadAgentLib(): Promise<AgentLib> {
  return import("@octet/agent");
}

/**
 * pi extensions' registerProvider data, gathered while the host starts (the session layer's
 * registerProvider); openAgent checks each as a models.json provider (the agent lib loads later).
 */
export class PiProviders {
  readonly #list: { extension: string; name: string; config: Record<string, unknown> }[] = [];
  readonly register = (extension: string, name: string, config: Record<string, unknown>): string | null => {
    this.#list.push({ extension, name, config });
    return null;
  };
  /** models.json with the providers added; a refused one is said on `say`. */
  merge(lib: AgentLib, file: ModelsFile | null, say: (text: string) => void): ModelsFile | null {
    if (this.#list.length === 0) return file;
    const providers = new lib.ExtensionProviders();
    for (const p of this.#list) {
      const refused = providers.add(p.extension, p.name, p.config);
      if (refused !== null) say(`octet: the provider "${p.name}" of ${p.extension} is not used: ${refused}\n`);
    }
    return providers.merge(file);
  }
}

/** Opens the session the flags ask for and the agent over it. Usage problems throw UsageError. */
export async function openAgent(
  lib: AgentLib,
  options: GlobalOptions,
  config: AgentConfig & { model: string; piProviders?: PiProviders },
  host: ExtensionHost | null,
  ui: CliUi,
  /** Awaited before a question is asked: the view draws what came before it (the tool call) first. */
  beforeAsk: () => Promise<void> = async () => {},
): Promise<Agent> {
  const file = lib.loadModelsFile(join(config.home, "models.json"));
  // Providers pi extensions registered (pi's registerProvider) join models.json's for --model.
  const modelsFile = config.piProviders ? config.piProviders.merge(lib, file, (t) => ui.line.print(t)) : file;
  const model = await lib.resolveModel(lib.parseModelRef(config.model), { modelsFile, env: process.env });
  let session;
  if (options.resume !== null) {
    const path = await lib.findSession(config.home, options.workspace, options.resume);
    session = await lib.SessionFile.open(path);
  } else if (options.continueSession) {
    const latest = await lib.latestSession(config.home, options.workspace);
    session = latest
      ? await lib.SessionFile.open(latest)
      : await lib.SessionFile.create({ home: config.home, workspace: options.workspace });
  } else session = await lib.SessionFile.create({ home: config.home, workspace: options.workspace });
  for (const w of session.warnings) ui.line.print(`octet: ${w}\n`);
  // Asked only where a person can answer; otherwise the model is told how to get it allowed.
  const interactive = process.stdin.isTTY === true && process.stderr.isTTY === true && !options.noInput;
  const approval = new lib.ToolApproval({
    yes: options.yes,
    noInput: options.noInput,
    rules: options.policy,
    ...(interactive
      ? {
          ask: async (q: Parameters<CliUi["services"]["approveTool"]>[0]) => {
            await beforeAsk();
            return ui.services.approveTool(q);
          },
        }
      : {}),
    onNote: (text) => ui.line.print(`${text}\n`),
  });
  return new lib.Agent({
    session,
    model,
    host,
    approval,
    // pi's rule: an enabled extension's tool of a built-in's name replaces it, with a warning
    // (pi's tool-override.ts, ssh.ts and minimal-mode.ts replace read, bash and the others).
    replaceBuiltins: true,
    ...(options.maxTurns !== null ? { maxTurns: options.maxTurns } : {}),
    ...(config.cacheWarming ? { cacheWarming: { enabled: true } } : {}),
    // What pi extensions see as ctx.modelRegistry and may switch to with pi.setModel.
    models: lib.modelCatalog({ modelsFile, env: process.env }),
  });
}
