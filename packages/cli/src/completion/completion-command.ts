/**
 * `octet completion bash|zsh|fish` prints a completion script; the scripts ask the hidden
 * `octet __complete CWORD WORD...` for candidates. __complete reads the config files and the
 * manifests the command line typed so far would discover, and starts nothing: no extension
 * process, no network, no file written. It never fails loudly: a broken config or an unreadable
 * folder only means fewer candidates.
 */
import { discoverExtensions, type DiscoveredExtension } from "@octet/host";
import { rpiRuntime } from "@octet/rpi";
import { parseCommandLine, type ParsedArgs } from "../args.js";
import { applyConfig } from "../config/config-resolve.js";
import { EXIT_OK } from "../exit-codes.js";
import { UsageError } from "../usage-error.js";
import { completeWords, formatCompletion, splitWords, type Candidate, type NameSource } from "./complete-words.js";
import { COMPLETION_SCRIPTS } from "./completion-scripts.js";

export function completionCommand(rest: string[]): number {
  const [shell, ...extra] = rest;
  const script = shell === undefined ? undefined : COMPLETION_SCRIPTS[shell];
  if (script === undefined || extra.length > 0)
    throw new UsageError(
      `completion needs one shell: bash, zsh or fish; got: ${rest.length === 0 ? "nothing" : rest.join(" ")} ` +
        "(e.g. source <(octet completion bash))",
    );
  process.stdout.write(script);
  return EXIT_OK;
}

/** `octet __complete CWORD WORD...`: CWORD indexes WORDs (the words after `octet`). */
export async function completeCommand(rest: string[]): Promise<number> {
  const [index, ...words] = rest;
  const cword = Number(index);
  let out = "words\n";
  if (Number.isInteger(cword) && cword >= 0 && cword <= words.length) {
    try {
      out = formatCompletion(await completeWords(words, cword, manifestNames(words.slice(0, cword))));
    } catch {
      // Completion offers what it can; an error here must not print into the user's prompt.
    }
  }
  process.stdout.write(out);
  return EXIT_OK;
}

/** Names from the manifests the flags typed so far (and the config files) would discover. */
function manifestNames(before: string[]): NameSource {
  let found: Promise<DiscoveredExtension[]> | null = null;
  const discover = (): Promise<DiscoveredExtension[]> => (found ??= discoverFor(before));
  const usable = async (): Promise<DiscoveredExtension[]> =>
    (await discover()).filter((d) => d.name !== "" && d.shadowedBy === null);
  return {
    extensions: async () =>
      (await usable()).map((d) => ({
        word: d.name,
        description: `${d.source} extension${d.manifest === null ? " (invalid manifest)" : ""}`,
      })),
    tools: async () => contributed(await usable(), "tools", (ext) => `tool of ${ext}`),
    commands: async () => contributed(await usable(), "commands", (ext) => `command of ${ext}`),
  };
}

function contributed(list: DiscoveredExtension[], kind: "tools" | "commands", say: (ext: string) => string) {
  const out: Candidate[] = [];
  for (const d of list)
    for (const word of d.manifest?.contributes[kind] ?? []) out.push({ word, description: say(d.name) });
  return out;
}

async function discoverFor(before: string[]): Promise<DiscoveredExtension[]> {
  const { flagWords, pending } = splitWords(before);
  // A flag still waiting for its value (the word being completed) is left out of the parse.
  const flags = pending !== null ? flagWords.slice(0, -1) : flagWords;
  let parsed: ParsedArgs;
  try {
    parsed = parseCommandLine(flags);
  } catch {
    parsed = parseCommandLine([]);
  }
  let options = parsed.options;
  try {
    options = applyConfig(parsed).options;
  } catch {
    // A broken config file: the flags alone (the command itself will name the problem).
  }
  return discoverExtensions({
    workspace: options.workspace,
    extensionDirs: options.extensionDirs,
    runtimes: [rpiRuntime({ piExtensions: options.piExtensions, piRuntime: options.piRuntime })],
  });
}
