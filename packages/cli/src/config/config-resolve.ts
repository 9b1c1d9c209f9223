/**
 * The effective settings of one run: the command line over <workspace>/.octet/config.toml over
 * $OCTET_HOME/config.toml over the defaults, each value with where it came from (`octet config`
 * shows them). A single value is taken from the first of those that sets it. Lists (extension
 * folders, -e paths, enable, trust) and tables (secrets, pi_flags) merge: the command line and
 * the workspace add to the user's standing setup, and a table key set higher wins. safe_mode is
 * on when any of them turns it on: a project may make a run safer, never less safe.
 */
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { resolveOctetHome } from "@octet/host";
import type { GlobalOptions, ParsedArgs } from "../args.js";
import { readConfigFile, type ConfigLayer, type LayerValues } from "./config-file.js";
import { planExtensionPath, type ExtensionPlan } from "./extension-path.js";

/** A value and where it came from: a flag ("--model", "-e"), a config file's path, or "default". */
export interface Origin {
  value: unknown;
  source: string;
}

export interface ConfigFiles {
  home: { path: string; found: boolean };
  /** null when the workspace's .octet is the octet home (one file, read as the home's). */
  workspace: { path: string; found: boolean } | null;
  /** --no-config: neither file was read. */
  ignored: boolean;
}

export interface EffectiveConfig {
  options: GlobalOptions;
  files: ConfigFiles;
  /** Per setting: its origin, or for a list or table one origin per item. */
  origins: Record<string, Origin | Origin[]>;
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Reads the config files the command line allows and folds them under the flags. */
export function applyConfig(parsed: ParsedArgs, env: Readonly<Record<string, string | undefined>> = process.env) {
  const flags = parsed.options;
  const home = resolveOctetHome({ env });
  const homeFile = join(home, "config.toml");
  const wsFile = join(flags.workspace, ".octet", "config.toml");
  const sameFile = realOrSelf(wsFile) === realOrSelf(homeFile);
  const ignored = parsed.given.has("no-config");
  const homeLayer = ignored ? null : readConfigFile(homeFile, "home", home);
  const wsLayer = ignored || sameFile ? null : readConfigFile(wsFile, "workspace", flags.workspace);
  const files: ConfigFiles = {
    home: { path: homeFile, found: homeLayer !== null },
    workspace: sameFile ? null : { path: wsFile, found: wsLayer !== null },
    ignored,
  };
  return merge(
    parsed,
    [wsLayer, homeLayer].filter((l): l is ConfigLayer => l !== null),
    files,
  );
}

function merge(parsed: ParsedArgs, layers: ConfigLayer[], files: ConfigFiles): EffectiveConfig {
  const flags = parsed.options;
  const given = (flag: string): boolean => parsed.given.has(flag);
  const origins: Record<string, Origin | Origin[]> = {};
  const o: GlobalOptions = { ...flags };

  /** The first layer (workspace, then home) that sets `key`. */
  const fromLayers = <K extends keyof LayerValues>(key: K): { value: LayerValues[K]; source: string } | null => {
    for (const l of layers) if (l.values[key] !== undefined) return { value: l.values[key], source: l.path };
    return null;
  };
  const single = <K extends keyof LayerValues, V>(
    key: K,
    flag: string,
    flagValue: V,
    fallback: V,
    convert: (v: NonNullable<LayerValues[K]>) => V,
  ): V => {
    const hit = fromLayers(key);
    const origin: Origin = given(flag.replace(/^-+/, ""))
      ? { value: flagValue, source: flag }
      : hit !== null
        ? { value: convert(hit.value!), source: hit.source }
        : { value: fallback, source: "default" };
    origins[key] = origin;
    return origin.value as V;
  };

  o.model = single("model", "--model", flags.model, null, (v): string | null => v);
  const modelOrigin = origins["model"] as Origin;
  if (modelOrigin.source !== "--model" && modelOrigin.source !== "default") o.modelSource = modelOrigin.source;
  o.maxTurns = single("max_turns", "--max-turns", flags.maxTurns, null, (v): number | null => v);
  o.piRuntime = single("pi_runtime", "--pi-runtime", flags.piRuntime, "quickjs", (v) => v);
  o.mediaDir = single("media_dir", "--media-dir", flags.mediaDir, flags.mediaDir, (v) => v);
  o.policy = single("policy", "--policy", flags.policy, null, (v) => v.rules);
  // Shown as the file it came from, not as the parsed rules.
  const policyFile = fromLayers("policy");
  if (given("policy")) origins["policy"] = { value: "the --policy file", source: "--policy" };
  else if (policyFile !== null) origins["policy"] = { value: policyFile.value!.path, source: policyFile.source };
  o.verbose = anyOn("verbose", "--verbose", flags.verbose, layers, origins);
  o.safeMode = anyOn("safe_mode", "--safe-mode", flags.safeMode, layers, origins);

  // -e first: what the user named for this run; then each file's `extensions`.
  const plans: { plan: ExtensionPlan; source: string }[] = parsed.extensionPaths.map((p) => ({
    plan: planExtensionPath(p, `-e ${p}`),
    source: "-e",
  }));
  for (const l of layers) for (const plan of l.values.extensions ?? []) plans.push({ plan, source: l.path });
  origins["extensions"] = plans.map(({ plan, source }) => ({ value: plan.path, source }));
  const folders = plans.flatMap(({ plan, source }) => (plan.kind === "folder" ? [{ plan, source }] : []));
  const pis = plans.flatMap(({ plan, source }) => (plan.kind === "pi" ? [{ value: plan.path, source }] : []));

  const dirs = list(
    flags.extensionDirs.map((value) => ({ value, source: "--extension-dir" })),
    folders.map(({ plan, source }) => ({ value: plan.kind === "folder" ? plan.dir : "", source })),
    fromEach(layers, "extension_dirs"),
  );
  o.extensionDirs = record(origins, "extension_dirs", dirs);
  const piPaths = list(
    flags.piExtensions.map((value) => ({ value, source: "--pi-extension" })),
    pis,
    fromEach(layers, "pi_extensions"),
  );
  o.piExtensions = record(origins, "pi_extensions", piPaths);
  const enable = list(
    flags.enable.map((value) => ({ value, source: "--enable-extension" })),
    folders.map(({ plan, source }) => ({ value: plan.kind === "folder" ? plan.name : "", source })),
    fromEach(layers, "enable"),
  );
  o.enable = record(origins, "enable", enable);
  const trust = list(
    flags.trust.map((value) => ({ value, source: "--trust-extension" })),
    fromEach(layers, "trust"),
  );
  o.trust = record(origins, "trust", trust);

  o.secrets = secretsOf(flags, layers, origins);
  o.piFlags = piFlagsOf(flags, given("pi-flag"), layers, origins);
  return { options: o, files, origins };
}

/** A boolean that any layer can turn on and none can turn off (a flag cannot be given as false). */
function anyOn(
  key: "verbose" | "safe_mode",
  flag: string,
  flagValue: boolean,
  layers: ConfigLayer[],
  origins: Record<string, Origin | Origin[]>,
): boolean {
  const layer = layers.find((l) => l.values[key] === true);
  origins[key] = flagValue
    ? { value: true, source: flag }
    : layer
      ? { value: true, source: layer.path }
      : { value: false, source: "default" };
  return (origins[key] as Origin).value as boolean;
}

function fromEach(layers: ConfigLayer[], key: "extension_dirs" | "pi_extensions" | "enable" | "trust") {
  return layers.flatMap((l) => (l.values[key] ?? []).map((value) => ({ value, source: l.path })));
}

/** Items in order, each value once (where it first appears). */
function list(...groups: { value: string; source: string }[][]): { value: string; source: string }[] {
  const seen = new Set<string>();
  const out: { value: string; source: string }[] = [];
  for (const item of groups.flat()) {
    if (seen.has(item.value)) continue;
    seen.add(item.value);
    out.push(item);
  }
  return out;
}

function record(origins: Record<string, Origin | Origin[]>, key: string, items: Origin[]): string[] {
  origins[key] = items;
  return items.map((i) => i.value as string);
}

/** --secret mappings, then the home file's for names not given on the command line. */
function secretsOf(
  flags: GlobalOptions,
  layers: ConfigLayer[],
  origins: Record<string, Origin | Origin[]>,
): GlobalOptions["secrets"] {
  const out = flags.secrets.map((m) => ({ ...m, source: "--secret" }));
  for (const l of layers)
    for (const [name, variable] of Object.entries(l.values.secrets ?? {}))
      if (!out.some((m) => m.name === name)) out.push({ name, variable, source: l.path });
  origins["secrets"] = out.map((m) => ({ value: `${m.name}=${m.variable}`, source: m.source }));
  return out.map(({ name, variable }) => ({ name, variable }));
}

/** pi flags by name: home, then workspace, then --pi-flag; false from a file unsets a lower one. */
function piFlagsOf(
  flags: GlobalOptions,
  given: boolean,
  layers: ConfigLayer[],
  origins: Record<string, Origin | Origin[]>,
): Record<string, string | true> {
  const byName = new Map<string, { value: string | true; source: string }>();
  for (const l of [...layers].reverse())
    for (const [name, value] of Object.entries(l.values.pi_flags ?? {})) {
      if (value === false) byName.delete(name);
      else byName.set(name, { value, source: l.path });
    }
  if (given)
    for (const [name, value] of Object.entries(flags.piFlags)) byName.set(name, { value, source: "--pi-flag" });
  origins["pi_flags"] = [...byName].map(([name, { value, source }]) => ({
    value: value === true ? name : `${name}=${value}`,
    source,
  }));
  return Object.fromEntries([...byName].map(([name, { value }]) => [name, value]));
}
