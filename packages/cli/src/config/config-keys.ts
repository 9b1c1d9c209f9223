/**
 * The keys of config.toml: one per command-line flag that is a setting rather than an action,
 * which flag it stands for, and whether a workspace file (a project file, arriving with a cloned
 * repository) may set it. What a project may not set is what would hand its own code more than
 * the host already gives project extensions: trust, secrets, the policy, paths loaded as trusted,
 * and the pi runtime outside the sandbox.
 */
import { MAX_TURNS_LIMIT, editDistance } from "../args.js";

export interface ConfigKey {
  /** The flag this key stands for, as the user types it. */
  flag: string;
  /** What the value must be, for error messages. */
  expect: string;
  /** Why a workspace file may not set it; undefined when it may. */
  homeOnly?: string;
}

const LOADED_AS_TRUSTED =
  "an extension loaded by path is trusted, so a cloned repository would trust its own code; put the project's " +
  "extensions in <workspace>/.octet/extensions/ (project extensions: they start only when trusted by name) or " +
  "set this key in $OCTET_HOME/config.toml";

export const CONFIG_KEYS: Readonly<Record<string, ConfigKey>> = {
  extension_dirs: {
    flag: "--extension-dir",
    expect: 'a list of folders, e.g. extension_dirs = ["~/octet-extensions"]',
    homeOnly: LOADED_AS_TRUSTED,
  },
  extensions: {
    flag: "-e",
    expect: 'a list of extension folders or pi extension files, e.g. extensions = ["~/src/my-ext"]',
    homeOnly: LOADED_AS_TRUSTED,
  },
  pi_extensions: {
    flag: "--pi-extension",
    expect: 'a list of pi extension files or folders, e.g. pi_extensions = ["~/pi/plan-mode.ts"]',
    homeOnly: LOADED_AS_TRUSTED,
  },
  pi_runtime: {
    flag: "--pi-runtime",
    expect: '"quickjs" or "node"',
    homeOnly:
      "node takes pi extensions out of the QuickJS sandbox (fs, child_process); set it in $OCTET_HOME/config.toml " +
      "or pass --pi-runtime node",
  },
  pi_flags: {
    flag: "--pi-flag",
    expect:
      'a table of pi flags, each true, false (unset) or a string, e.g. pi_flags = { plan = true, preset = "fast" }',
  },
  enable: {
    flag: "--enable-extension",
    expect: 'a list of extension names, e.g. enable = ["hello-world"]',
  },
  trust: {
    flag: "--trust-extension",
    expect: 'a list of extension names, e.g. trust = ["my-project-ext"]',
    homeOnly:
      "a cloned repository would trust its own extensions; trust them by name in $OCTET_HOME/config.toml or " +
      "with --trust-extension NAME",
  },
  safe_mode: { flag: "--safe-mode", expect: "true or false" },
  model: {
    flag: "--model",
    expect: 'PROVIDER/MODEL_ID, e.g. model = "anthropic/claude-sonnet-4-5" (octet models lists them)',
  },
  policy: {
    flag: "--policy",
    expect: 'a policy file ending in .toml or .json, e.g. policy = "~/.octet/policy.toml"',
    homeOnly:
      "a cloned repository would choose which of its extensions' operations are allowed; set it in " +
      "$OCTET_HOME/config.toml or pass --policy FILE",
  },
  secrets: {
    flag: "--secret",
    expect: 'a table of secret names and environment variables, e.g. [secrets] "guarded.api_token" = "GUARDED_TOKEN"',
    homeOnly:
      "a cloned repository would choose which of your environment variables its extensions read; map secrets in " +
      "$OCTET_HOME/config.toml or with --secret NAME=ENV_VAR",
  },
  max_turns: { flag: "--max-turns", expect: `a whole number from 1 to ${MAX_TURNS_LIMIT}` },
  media_dir: { flag: "--media-dir", expect: "a folder (in a workspace file: one inside the workspace)" },
  verbose: { flag: "--verbose", expect: "true or false" },
};

/**
 * Flags that are deliberately not keys, with why: each is a decision for one run (or the place it
 * runs in), and a file would make it for every later run without asking.
 */
export const NOT_KEYS: Readonly<Record<string, string>> = {
  yes: "accepting every confirmation is decided per run: pass --yes",
  no_input: "never asking is the run's environment (a script, CI): pass --no-input",
  json: "the output format is the caller's: pass --json",
  workspace: "the workspace is where the workspace file is found: pass --workspace DIR or cd there",
  continue: "which session to continue is decided per run: pass --continue or --resume ID",
  resume: "which session to continue is decided per run: pass --continue or --resume ID",
};

/** The config key nearest to `typed`: by name, or by the flag it would be on the command line. */
export function nearestKey(typed: string): string | null {
  const bare = typed.toLowerCase().replace(/^-+/, "").replace(/-/g, "_");
  let best: { key: string; d: number } | null = null;
  for (const [key, spec] of Object.entries(CONFIG_KEYS)) {
    const flag = spec.flag.replace(/^-+/, "").replace(/-/g, "_");
    const d = Math.min(editDistance(bare, key), editDistance(bare, flag));
    if (best === null || d < best.d) best = { key, d };
  }
  return best !== null && best.d <= Math.max(1, Math.floor(bare.length / 3)) ? best.key : null;
}
