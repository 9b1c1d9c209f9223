/**
 * Command-line parsing: the global flags and the command words, with usage errors that say
 * what was wrong and what to type instead. No host logic here.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import type { PolicyRules } from "@octet/host";
import { loadPolicyFile, parseSecretFlags, type SecretMapping } from "./policy-secrets.js";

export interface GlobalOptions {
  extensionDirs: string[];
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
}

export interface ParsedArgs {
  options: GlobalOptions;
  /** The command words and their arguments, e.g. ["call", "hello_world", "{}"]. */
  positionals: string[];
}

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function parseCommandLine(argv: string[]): ParsedArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        "extension-dir": { type: "string", multiple: true },
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
      },
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new UsageError(`${message.replace(/\. To specify a positional argument.*$/s, "")}\n(put "--" before arguments that start with "-")`);
  }
  const v = parsed.values;
  for (const [flag, list] of [["--enable-extension", v["enable-extension"]], ["--trust-extension", v["trust-extension"]], ["--extension-dir", v["extension-dir"]]] as const) {
    for (const item of list ?? []) if (item.trim() === "") throw new UsageError(`${flag} needs a non-empty value`);
  }
  if (v.workspace !== undefined && v.workspace.trim() === "") throw new UsageError("--workspace needs a directory");
  if (v["media-dir"] !== undefined && v["media-dir"].trim() === "") throw new UsageError("--media-dir needs a directory");
  if (v.policy !== undefined && v.policy.trim() === "") throw new UsageError("--policy needs a file (.json or .toml)");
  return {
    options: {
      // Paths on the command line are relative to where the user typed them, not to --workspace.
      extensionDirs: (v["extension-dir"] ?? []).map((d) => resolve(d)),
      enable: v["enable-extension"] ?? [],
      trust: v["trust-extension"] ?? [],
      safeMode: v["safe-mode"] ?? false,
      workspace: resolve(v.workspace ?? "."),
      json: v.json ?? false,
      verbose: v.verbose ?? false,
      yes: v.yes ?? false,
      noInput: v["no-input"] ?? false,
      mediaDir: resolve(v["media-dir"] ?? "octet-media"),
      help: v.help ?? false,
      version: v.version ?? false,
      policy: v.policy === undefined ? null : loadPolicyFile(resolve(v.policy)),
      secrets: parseSecretFlags(v.secret ?? []),
    },
    positionals: parsed.positionals,
  };
}
