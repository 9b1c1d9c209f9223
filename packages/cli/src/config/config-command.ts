/**
 * `octet config`: the effective configuration of this command line in this workspace, each value
 * with where it came from (a flag, a config file, settings.json or the default). Reads files
 * only; starts nothing.
 */
import { join } from "node:path";
import { agentConfig } from "../agent-setup.js";
import type { ParsedArgs } from "../args.js";
import { EXIT_OK } from "../exit-codes.js";
import { UsageError } from "../usage-error.js";
import { applyConfig, type EffectiveConfig, type Origin } from "./config-resolve.js";

/** The order settings are shown in: the single values, then the lists and tables. */
const SHOWN = [
  "model",
  "max_turns",
  "pi_runtime",
  "media_dir",
  "policy",
  "verbose",
  "safe_mode",
  "extension_dirs",
  "extensions",
  "pi_extensions",
  "enable",
  "trust",
  "secrets",
  "pi_flags",
] as const;

/** What the agent uses when nothing sets max_turns (the agent's own default). */
const DEFAULT_MAX_TURNS = 50;

export function configCommand(parsed: ParsedArgs, rest: string[]): number {
  if (rest.length > 0) throw new UsageError(`config takes no arguments; got: ${rest.join(" ")}`);
  const effective = applyConfig(parsed);
  const settings = shownSettings(effective);
  if (parsed.options.json) {
    const files = {
      home: effective.files.home,
      workspace: effective.files.workspace,
      settings_json: join(effective.files.home.path, "..", "settings.json"),
      ignored: effective.files.ignored,
    };
    process.stdout.write(JSON.stringify({ workspace: parsed.options.workspace, files, settings }, null, 2) + "\n");
    return EXIT_OK;
  }
  process.stdout.write(configText(effective, parsed.options.workspace, settings));
  return EXIT_OK;
}

/** Every setting with its origin(s); the model's default is settings.json's "model" when it has one. */
function shownSettings(effective: EffectiveConfig): Record<string, Origin | Origin[]> {
  const out: Record<string, Origin | Origin[]> = {};
  for (const key of SHOWN) out[key] = effective.origins[key] ?? [];
  const model = out["model"] as Origin;
  if (model.source === "default") {
    // agentConfig is what the agent will ask: --model/config.toml first, else settings.json.
    const agent = agentConfig(effective.options);
    if (agent.model !== null) out["model"] = { value: agent.model, source: join(agent.home, "settings.json") };
  }
  const turns = out["max_turns"] as Origin;
  if (turns.value === null) out["max_turns"] = { value: DEFAULT_MAX_TURNS, source: "default" };
  return out;
}

function configText(effective: EffectiveConfig, workspace: string, settings: Record<string, Origin | Origin[]>) {
  const { files } = effective;
  const found = (f: { path: string; found: boolean }): string => `${f.path}${f.found ? "" : "  (none)"}`;
  const lines = [
    `workspace  ${workspace}`,
    files.ignored
      ? "config files: not read (--no-config)"
      : "config files (the command line wins over the workspace file, which wins over the home file):",
  ];
  if (!files.ignored) {
    lines.push(`  workspace  ${files.workspace ? found(files.workspace) : "(the workspace's .octet is the home)"}`);
    lines.push(`  home       ${found(files.home)}`);
  }
  lines.push("");
  const rows: [string, string, string][] = [];
  for (const key of SHOWN) {
    const origin = settings[key]!;
    if (!Array.isArray(origin)) rows.push([key, showValue(origin.value), origin.source]);
    else if (origin.length === 0) rows.push([key, "(none)", ""]);
    else origin.forEach((o, i) => rows.push([i === 0 ? key : "", showValue(o.value), o.source]));
  }
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.min(48, Math.max(...rows.map((r) => r[1].length)));
  for (const [k, v, s] of rows) lines.push(`${k.padEnd(w0)}  ${v.padEnd(w1)}  ${s}`.trimEnd());
  return `${lines.join("\n")}\n`;
}

function showValue(value: unknown): string {
  if (value === null) return "(none)";
  return typeof value === "string" ? value : JSON.stringify(value);
}
