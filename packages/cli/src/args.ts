/**
 * Command-line parsing: the global flags and the command words, with usage errors that say
 * what was wrong and what to type instead. No host logic here.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { PolicyRules } from "@octet/host";
import { loadPolicyFile, parseSecretFlags, type SecretMapping } from "./policy-secrets.js";
import { UsageError } from "./usage-error.js";
import { statForUsage } from "./path-check.js";
import { loadMcpConfig, type McpServerConfig } from "./mcp/server-config.js";

export interface GlobalOptions {
  extensionDirs: string[];
  /** --pi-extension PATH, repeatable: pi extension files or folders loaded with no pi-extension.json (absolute). */
  piExtensions: string[];
  /** --pi-runtime quickjs|node: where the --pi-extension paths run (default quickjs). */
  piRuntime: "quickjs" | "node";
  /** --pi-flag NAME[=VALUE], repeatable: pi's extension flags (`pi --plan`); a bare NAME is true. */
  piFlags: Record<string, string | true>;
  /** --mcp-config FILE, repeatable: the MCP servers of Claude Code/Desktop config files, read at parse time. */
  mcpServers: { file: string; server: McpServerConfig }[];
  enable: string[];
  trust: string[];
  safeMode: boolean;
  workspace: string;
  json: boolean;
  verbose: boolean;
  /** Accept every confirmation without asking (still noted on stderr). */
  yes: boolean;
  /** Never ask: confirmations denied, input requests cancelled. */
  noInput: boolean;
  /** Where `call` saves a result's images and audio (default ./octet-media). */
  mediaDir: string;
  help: boolean;
  version: boolean;
  /** --policy FILE, read and checked at parse time (a bad file is a usage error): the rules, or null. */
  policy: PolicyRules | null;
  /** --secret NAME=ENV_VAR, repeatable: the secret broker's names and where their values are. */
  secrets: SecretMapping[];
  /** --model provider/id (checked when the agent starts); null: settings.json's, or none. */
  model: string | null;
  /** --continue: the latest session of this workspace (a new one when there is none). */
  continueSession: boolean;
  /** --resume ID: that session (an id or a unique prefix). */
  resume: string | null;
  /** --max-turns N: model requests per prompt before the run stops (default 50). */
  maxTurns: number | null;
  /** The config file that set `model`; absent when --model did, or nothing did (`octet models` says it). */
  modelSource?: string;
  /** --trace FILE, else $OCTET_TRACE: where every extension frame is traced (absolute), or null. */
  trace: string | null;
  /** `octet trace --follow`: keep reading the file as it grows. */
  follow: boolean;
  /** `octet trace --only-extension NAME` / `--only-method METHOD`, repeatable: the frames shown. */
  onlyExtensions: string[];
  onlyMethods: string[];
}

export interface ParsedArgs {
  options: GlobalOptions;
  /** The command words and their arguments, e.g. ["call", "hello_world", "{}"]. */
  positionals: string[];
  /** The long names of the flags given on the command line: they beat the config files. */
  given: ReadonlySet<string>;
  /** -e PATH values (absolute): resolved with the config files (config/extension-path.ts). */
  extensionPaths: string[];
}

export { UsageError };

export const FLAGS = {
  extension: { type: "string", short: "e", multiple: true },
  "no-config": { type: "boolean" },
  "extension-dir": { type: "string", multiple: true },
  "pi-extension": { type: "string", multiple: true },
  "pi-runtime": { type: "string" },
  "pi-flag": { type: "string", multiple: true },
  "mcp-config": { type: "string", multiple: true },
  "enable-extension": { type: "string", multiple: true },
  "trust-extension": { type: "string", multiple: true },
  "safe-mode": { type: "boolean" },
  workspace: { type: "string" },
  json: { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  yes: { type: "boolean", short: "y" },
  "no-input": { type: "boolean" },
  "media-dir": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
  policy: { type: "string" },
  secret: { type: "string", multiple: true },
  model: { type: "string", short: "m" },
  continue: { type: "boolean", short: "c" },
  resume: { type: "string", short: "r" },
  "max-turns": { type: "string" },
  trace: { type: "string" },
  follow: { type: "boolean", short: "f" },
  "only-extension": { type: "string", multiple: true },
  "only-method": { type: "string", multiple: true },
} as const;

/** Upper bound of --max-turns: past it a run is a runaway, not a task. */
export const MAX_TURNS_LIMIT = 1000;

/**
 * parseArgs' complaint, made useful: an unknown flag close to a real one is a typo ("did you mean
 * --enable-extension?"); only one that looks like nothing we know may be a tool argument, so
 * only then is "--" suggested (issue 13.11).
 */
function flagProblem(message: string): string {
  const text = message.replace(/\. To specify a positional argument.*$/s, "");
  const unknown = /^Unknown option '(-{1,2}[^'=]+)/.exec(message)?.[1];
  if (unknown === undefined) return text;
  const nearest = nearestFlag(unknown);
  return nearest !== null
    ? `unknown flag ${unknown}; did you mean ${nearest}?`
    : `unknown flag ${unknown}\n(put "--" before arguments that start with "-", e.g. octet command NAME -- ${unknown})`;
}

/** The known flag nearest to `typed` by edit distance, when it is close enough to be a typo. */
export function nearestFlag(typed: string): string | null {
  const bare = typed.replace(/^-+/, "").toLowerCase();
  let best: { flag: string; d: number } | null = null;
  for (const name of Object.keys(FLAGS)) {
    const d = name.startsWith(bare) && bare.length >= 3 ? 0 : editDistance(bare, name);
    if (best === null || d < best.d) best = { flag: `--${name}`, d };
  }
  // At most a third of the name wrong (2 edits for "--verbos", 4 for "--enable-extensions").
  return best !== null && best.d <= Math.max(1, Math.floor(bare.length / 3)) ? best.flag : null;
}

export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}

/** A directory named on the command line must exist: say which flag and which folder (13.11). */
function existingDir(flag: string, value: string): string {
  const path = resolve(value);
  const st = statForUsage(path, `${flag} ${value}`, "folder");
  if (!st.isDirectory()) throw new UsageError(`${flag} ${value}: ${path} is a file, not a folder`);
  return path;
}

/** A --pi-extension value: a file or folder that exists (what it holds is checked when it loads). */
function existingPath(value: string): string {
  const path = resolve(value);
  statForUsage(path, `--pi-extension ${value}`, "file or folder");
  return path;
}

/** pi's flag names: what pi's own parser takes after "--" (letters, digits, "-", "_"). */
export const PI_FLAG_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** --pi-flag NAME[=VALUE] values: NAME=VALUE is the string VALUE, a bare NAME true; the last one given wins. */
function piFlags(values: readonly string[]): Record<string, string | true> {
  const flags: Record<string, string | true> = {};
  for (const item of values) {
    const eq = item.indexOf("=");
    const name = eq < 0 ? item : item.slice(0, eq);
    if (!PI_FLAG_NAME.test(name))
      throw new UsageError(
        `--pi-flag ${item}: expected NAME or NAME=VALUE, NAME of letters, digits, "-" and "_" (at most 64), ` +
          "e.g. --pi-flag plan or --pi-flag preset=fast",
      );
    flags[name] = eq < 0 ? true : item.slice(eq + 1);
  }
  return flags;
}

/** --mcp-config FILE values: every server of each file; a bad file is a usage error naming the key. */
function mcpServers(files: readonly string[]): { file: string; server: McpServerConfig }[] {
  return files.flatMap((f) => {
    const file = resolve(f);
    const parsed = loadMcpConfig(file);
    if (!parsed.ok) throw new UsageError(`--mcp-config ${f}: ${parsed.errors.join("; ")}`);
    return parsed.value.map((server) => ({ file, server }));
  });
}

export function parseCommandLine(argv: string[]): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: FLAGS });
  } catch (err) {
    throw new UsageError(flagProblem(err instanceof Error ? err.message : String(err)));
  }
  const v = parsed.values;
  for (const [flag, list] of [
    ["--enable-extension", v["enable-extension"]],
    ["--trust-extension", v["trust-extension"]],
    ["--extension-dir", v["extension-dir"]],
    ["--pi-extension", v["pi-extension"]],
    ["-e", v.extension],
    ["--mcp-config", v["mcp-config"]],
  ] as const) {
    for (const item of list ?? []) if (item.trim() === "") throw new UsageError(`${flag} needs a non-empty value`);
  }
  if (v.workspace !== undefined && v.workspace.trim() === "") throw new UsageError("--workspace needs a directory");
  if (v["media-dir"] !== undefined && v["media-dir"].trim() === "")
    throw new UsageError("--media-dir needs a directory");
  if (v.policy !== undefined && v.policy.trim() === "") throw new UsageError("--policy needs a file (.json or .toml)");
  if (v.model !== undefined && !/^[^/\s]+\/\S+$/.test(v.model))
    throw new UsageError(
      `--model ${JSON.stringify(v.model)}: expected PROVIDER/MODEL_ID, e.g. --model anthropic/claude-sonnet-4-5 ` +
        "or --model ollama/llama3.1:8b (octet models lists them)",
    );
  if (v.continue && v.resume !== undefined) throw new UsageError("--continue and --resume ID cannot be used together");
  if (v.resume !== undefined && v.resume.trim() === "")
    throw new UsageError("--resume needs a session id (octet sessions list shows them)");
  const piRuntime = v["pi-runtime"] ?? "quickjs";
  if (piRuntime !== "quickjs" && piRuntime !== "node")
    throw new UsageError(`--pi-runtime ${JSON.stringify(piRuntime)}: expected quickjs or node`);
  if (v.trace !== undefined && v.trace.trim() === "")
    throw new UsageError("--trace needs a file, e.g. --trace frames.jsonl (octet trace frames.jsonl shows it)");
  const traceFile = v.trace ?? (process.env["OCTET_TRACE"]?.trim() || undefined);
  let maxTurns: number | null = null;
  if (v["max-turns"] !== undefined) {
    maxTurns = Number(v["max-turns"]);
    if (!Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > MAX_TURNS_LIMIT)
      throw new UsageError(`--max-turns ${v["max-turns"]}: expected a whole number from 1 to ${MAX_TURNS_LIMIT}`);
  }
  return {
    options: {
      // Paths on the command line are relative to where the user typed them, not to --workspace.
      extensionDirs: (v["extension-dir"] ?? []).map((d) => existingDir("--extension-dir", d)),
      // Checked when the host loads it (a file, or a folder as pi loads one): the message names the rule.
      piExtensions: (v["pi-extension"] ?? []).map(existingPath),
      piRuntime,
      piFlags: piFlags(v["pi-flag"] ?? []),
      mcpServers: mcpServers(v["mcp-config"] ?? []),
      enable: v["enable-extension"] ?? [],
      trust: v["trust-extension"] ?? [],
      safeMode: v["safe-mode"] ?? false,
      workspace: v.workspace === undefined ? resolve(".") : existingDir("--workspace", v.workspace),
      json: v.json ?? false,
      verbose: v.verbose ?? false,
      yes: v.yes ?? false,
      noInput: v["no-input"] ?? false,
      mediaDir: resolve(v["media-dir"] ?? "octet-media"),
      help: v.help ?? false,
      version: v.version ?? false,
      policy: v.policy === undefined ? null : loadPolicyFile(resolve(v.policy)),
      secrets: parseSecretFlags(v.secret ?? []),
      model: v.model ?? null,
      continueSession: v.continue ?? false,
      resume: v.resume?.trim() ?? null,
      maxTurns,
      trace: traceFile === undefined ? null : resolve(traceFile),
      follow: v.follow ?? false,
      onlyExtensions: v["only-extension"] ?? [],
      onlyMethods: v["only-method"] ?? [],
    },
    positionals: parsed.positionals,
    given: new Set(Object.keys(v)),
    extensionPaths: (v.extension ?? []).map((p) => resolve(p)),
  };
}
