/**
 * Reads one config.toml ($OCTET_HOME/config.toml or <workspace>/.octet/config.toml) into checked
 * values. Every problem is collected, each naming the file, the key, the value and what was
 * expected, and thrown as one usage error: a user fixes them all in one pass. Relative paths
 * resolve against the folder the file belongs to ($OCTET_HOME, or the workspace), "~/" against
 * the user's home.
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { parse as parseToml, TomlError } from "smol-toml";
import { SECRET_NAME_PATTERN, bounds } from "@octet/protocol";
import type { PolicyRules } from "@octet/host";
import { MAX_TURNS_LIMIT, PI_FLAG_NAME } from "../args.js";
import { loadPolicyFile } from "../policy-secrets.js";
import { UsageError } from "../usage-error.js";
import { CONFIG_KEYS, NOT_KEYS, nearestKey } from "./config-keys.js";
import { planExtensionPath, type ExtensionPlan } from "./extension-path.js";

export type ConfigScope = "home" | "workspace";

/** The checked values of one file; a key the file does not set is absent. */
export interface LayerValues {
  extension_dirs?: string[];
  extensions?: ExtensionPlan[];
  pi_extensions?: string[];
  pi_runtime?: "quickjs" | "node";
  /** false unsets a flag a lower layer set. */
  pi_flags?: Record<string, string | boolean>;
  enable?: string[];
  trust?: string[];
  safe_mode?: boolean;
  model?: string;
  policy?: { path: string; rules: PolicyRules };
  /** Secret name -> environment variable. */
  secrets?: Record<string, string>;
  max_turns?: number;
  media_dir?: string;
  verbose?: boolean;
}

export interface ConfigLayer {
  path: string;
  scope: ConfigScope;
  values: LayerValues;
}

/** A config file is a screenful of settings; past this it is a mistake, not a configuration. */
export const MAX_CONFIG_FILE_BYTES = 262_144;
const ENV_VAR_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MODEL_PATTERN = /^[^/\s]+\/\S+$/;

/** The file at `path`, checked; null when there is none. `base` is the folder relative paths start from. */
export function readConfigFile(path: string, scope: ConfigScope, base: string): ConfigLayer | null {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_CONFIG_FILE_BYTES)
      throw new UsageError(`${path} is ${size} bytes, over the ${MAX_CONFIG_FILE_BYTES}-byte limit of a config file`);
    text = readFileSync(path, "utf8");
  } catch (err) {
    if (err instanceof UsageError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw new UsageError(`${path}: cannot read it (${code ?? String(err)})`);
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (err) {
    const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : "";
    const first = (err instanceof Error ? err.message : String(err)).split("\n")[0] ?? "";
    throw new UsageError(`${path} is not valid TOML${where}: ${first.replace(/^Invalid TOML document: /, "")}`);
  }
  const problems: string[] = [];
  const values = checkValues(doc, { path, scope, base, problems });
  if (problems.length === 1) throw new UsageError(problems[0]);
  if (problems.length > 1) throw new UsageError(`${path} has ${problems.length} problems:\n  ${problems.join("\n  ")}`);
  return { path, scope, values };
}

interface Ctx {
  path: string;
  scope: ConfigScope;
  base: string;
  problems: string[];
}

function show(value: unknown): string {
  const text = value instanceof Date ? value.toISOString() : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function checkValues(doc: Record<string, unknown>, c: Ctx): LayerValues {
  const out: LayerValues = {};
  for (const [key, value] of Object.entries(doc)) {
    const spec = CONFIG_KEYS[key];
    const at = `${c.path}: key "${key}"`;
    const notKey = NOT_KEYS[key.replace(/-/g, "_")];
    if (spec === undefined && notKey !== undefined) {
      c.problems.push(`${at}: not a setting: ${notKey}`);
      continue;
    }
    if (spec === undefined) {
      const near = nearestKey(key);
      const hint = near !== null ? `did you mean "${near}"?` : `known keys: ${Object.keys(CONFIG_KEYS).join(", ")}`;
      c.problems.push(`${at}: unknown key; ${hint}`);
      continue;
    }
    if (c.scope === "workspace" && spec.homeOnly !== undefined) {
      c.problems.push(`${at}: a workspace config cannot set it: ${spec.homeOnly}`);
      continue;
    }
    const bad = (why?: string): void =>
      void c.problems.push(`${at} = ${show(value)}: ${why ?? `expected ${spec.expect}`}`);
    checkKey(key, value, c, out, bad);
  }
  return out;
}

function checkKey(key: string, value: unknown, c: Ctx, out: LayerValues, bad: (why?: string) => void): void {
  switch (key) {
    case "extension_dirs":
      return assign(out, key, paths(value, c, bad, "folder"));
    case "pi_extensions":
      return assign(out, key, paths(value, c, bad, "any"));
    case "extensions": {
      const list = paths(value, c, bad, "any");
      if (list === undefined) return;
      const plans: ExtensionPlan[] = [];
      for (const p of list) {
        try {
          plans.push(planExtensionPath(p, `${c.path}: key "extensions" = ${show(p)}`));
        } catch (err) {
          c.problems.push(err instanceof Error ? err.message : String(err));
        }
      }
      return assign(out, key, plans);
    }
    case "enable":
    case "trust":
      return assign(out, key, names(value, bad));
    case "pi_runtime":
      if (value === "quickjs" || value === "node") out.pi_runtime = value;
      else bad();
      return;
    case "safe_mode":
    case "verbose":
      if (typeof value === "boolean") out[key] = value;
      else bad();
      return;
    case "model":
      if (typeof value === "string" && MODEL_PATTERN.test(value)) out.model = value;
      else bad();
      return;
    case "max_turns":
      if (typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= MAX_TURNS_LIMIT)
        out.max_turns = value;
      else bad();
      return;
    case "media_dir":
      return assign(out, key, mediaDir(value, c, bad));
    case "policy":
      return assign(out, key, policy(value, c, bad));
    case "secrets":
      return assign(out, key, secrets(value, c));
    case "pi_flags":
      return assign(out, key, piFlags(value, c, bad));
  }
}

function assign<K extends keyof LayerValues>(out: LayerValues, key: K, value: LayerValues[K] | undefined): void {
  if (value !== undefined) out[key] = value;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/** "~/x" is under the user's home; a relative path is under the file's folder. */
function expandPath(text: string, base: string): string {
  if (text === "~" || text.startsWith("~/")) return join(homedir(), text.slice(1));
  return resolve(base, text);
}

function paths(value: unknown, c: Ctx, bad: (why?: string) => void, want: "folder" | "any"): string[] | undefined {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v.trim() === "")) return void bad();
  const out: string[] = [];
  for (const item of value as string[]) {
    const path = expandPath(item, c.base);
    const st = (() => {
      try {
        return statSync(path);
      } catch {
        return null;
      }
    })();
    if (st === null) bad(`${show(item)} does not exist (${path})`);
    else if (want === "folder" && !st.isDirectory()) bad(`${show(item)} is a file, not a folder (${path})`);
    else out.push(path);
  }
  return out;
}

function names(value: unknown, bad: (why?: string) => void): string[] | undefined {
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string" || v.trim() === "")) return void bad();
  return value as string[];
}

function mediaDir(value: unknown, c: Ctx, bad: (why?: string) => void): string | undefined {
  if (typeof value !== "string" || value.trim() === "") return void bad();
  const path = expandPath(value, c.base);
  const rel = relative(c.base, path);
  // A project may choose where its media go, not write them into the user's other folders.
  if (c.scope === "workspace" && (rel.startsWith("..") || isAbsolute(rel)))
    return void bad(`a workspace config's media_dir must be inside the workspace (${c.base}); it is ${path}`);
  return path;
}

function policy(value: unknown, c: Ctx, bad: (why?: string) => void): LayerValues["policy"] {
  if (typeof value !== "string" || value.trim() === "") return void bad();
  const path = expandPath(value, c.base);
  try {
    return { path, rules: loadPolicyFile(path) };
  } catch (err) {
    // loadPolicyFile speaks of the flag; here the file and key are what the user must find.
    return void bad((err instanceof Error ? err.message : String(err)).replace(/^--policy \S+: /, `${path}: `));
  }
}

/** [secrets] NAME = "ENV_VAR"; an unquoted dotted name (guarded.api_token) arrives as nested tables. */
function secrets(value: unknown, c: Ctx): Record<string, string> | undefined {
  if (!isTable(value)) {
    c.problems.push(`${c.path}: key "secrets" = ${show(value)}: expected ${CONFIG_KEYS["secrets"]!.expect}`);
    return undefined;
  }
  const out: Record<string, string> = {};
  for (const [name, variable] of flatten(value)) {
    const at = `${c.path}: key "secrets.${name}" = ${show(variable)}`;
    if (name.length > bounds.MAX_SECRET_NAME_BYTES || !SECRET_NAME_PATTERN.test(name))
      c.problems.push(
        `${at}: ${JSON.stringify(name)} is not a secret name (a letter or "_", then letters, digits, "_", "-" or ` +
          `"."; at most ${bounds.MAX_SECRET_NAME_BYTES} bytes)`,
      );
    else if (typeof variable !== "string" || !ENV_VAR_PATTERN.test(variable))
      c.problems.push(`${at}: expected the name of an environment variable, e.g. "GUARDED_TOKEN"`);
    else out[name] = variable;
  }
  return out;
}

function flatten(table: Record<string, unknown>, prefix = ""): [string, unknown][] {
  return Object.entries(table).flatMap(([k, v]) =>
    isTable(v) ? flatten(v, `${prefix}${k}.`) : [[`${prefix}${k}`, v] as [string, unknown]],
  );
}

function piFlags(value: unknown, c: Ctx, bad: (why?: string) => void): Record<string, string | boolean> | undefined {
  if (!isTable(value)) return void bad();
  const out: Record<string, string | boolean> = {};
  for (const [name, v] of Object.entries(value)) {
    const at = `${c.path}: key "pi_flags.${name}" = ${show(v)}`;
    if (!PI_FLAG_NAME.test(name)) c.problems.push(`${at}: a pi flag name is letters, digits, "-" and "_" (at most 64)`);
    else if (typeof v !== "string" && typeof v !== "boolean")
      c.problems.push(`${at}: expected true, false (unset it) or a string`);
    else out[name] = v;
  }
  return out;
}
