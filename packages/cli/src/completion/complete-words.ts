/**
 * What `octet __complete` answers: given the words after `octet` and which of them is being
 * typed, the candidates for it. One place for the logic, so the bash, zsh and fish scripts are
 * thin and agree. The answer is a mode ("words", or "files" / "dirs" for the shell's own path
 * completion) and, for words, each candidate with a short description. Extension, tool and
 * command names come from `names`, which reads manifests and starts nothing.
 */
import { FLAGS } from "../args.js";
import { COMMAND_HELP, MAIN_HELP } from "../help.js";

export interface Candidate {
  word: string;
  description: string;
}

export interface Completion {
  mode: "words" | "files" | "dirs";
  candidates: Candidate[];
}

/** The names completion offers, read from the manifests the command line so far would discover. */
export interface NameSource {
  extensions(): Promise<Candidate[]>;
  tools(): Promise<Candidate[]>;
  commands(): Promise<Candidate[]>;
}

const COMMANDS: Record<string, string> = {
  run: "run one prompt with the model",
  sessions: "list the sessions",
  models: "list the models",
  extensions: "list, start, reload or validate extensions",
  tools: "show the enabled extensions' tools",
  call: "call a tool",
  command: "run an extension's slash command",
  config: "show the effective configuration and where each value came from",
  completion: "print a shell completion script",
  check: "check an extension against the protocol (the conformance kit)",
  trace: "show a --trace file readably",
  help: "help on a command",
};

const SUBCOMMANDS: Record<string, Record<string, string>> = {
  extensions: {
    list: "every discovered extension",
    status: "start the enabled extensions and show their state",
    reload: "replace an extension with a new generation",
    validate: "check manifests without starting anything",
  },
  sessions: { list: "the sessions of this workspace" },
  models: { all: "every model octet knows" },
  completion: { bash: "the bash script", zsh: "the zsh script", fish: "the fish script" },
};

/** What a flag's value is: a path (the shell completes it), a name, or one of a few words. */
const FLAG_VALUES: Record<string, "files" | "dirs" | "extensions" | string[]> = {
  "extension-dir": "dirs",
  workspace: "dirs",
  "media-dir": "dirs",
  extension: "files",
  "pi-extension": "files",
  policy: "files",
  trace: "files",
  "enable-extension": "extensions",
  "trust-extension": "extensions",
  "pi-runtime": ["quickjs", "node"],
};

type FlagName = keyof typeof FLAGS;
const SHORT: Record<string, FlagName> = Object.fromEntries(
  Object.entries(FLAGS).flatMap(([long, spec]) => ("short" in spec ? [[spec.short, long as FlagName]] : [])),
);

function takesValue(long: string): boolean {
  return (FLAGS as Record<string, { type: string }>)[long]?.type === "string";
}

/** The words before the current one, split into flag words (with their values) and positionals. */
export function splitWords(words: readonly string[]): {
  flagWords: string[];
  positionals: string[];
  pending: string | null;
} {
  const flagWords: string[] = [];
  const positionals: string[] = [];
  let pending: string | null = null;
  let rest = false;
  for (const w of words) {
    if (pending !== null) {
      flagWords.push(w);
      pending = null;
    } else if (rest || w === "-" || !w.startsWith("-")) positionals.push(w);
    else if (w === "--") rest = true;
    else {
      flagWords.push(w);
      if (w.startsWith("--")) {
        if (!w.includes("=") && takesValue(w.slice(2))) pending = w.slice(2);
      } else {
        // A cluster of short flags (-vy); a value-taking one takes the rest, or the next word.
        const last = SHORT[w.slice(-1)];
        if (last !== undefined && takesValue(last) && w.length === 2) pending = last;
      }
    }
  }
  return { flagWords, positionals, pending };
}

/** The candidates for words[cword] (words are those after `octet`). */
export async function completeWords(words: readonly string[], cword: number, names: NameSource): Promise<Completion> {
  const current = words[cword] ?? "";
  const { positionals, pending } = splitWords(words.slice(0, cword));
  const filter = (list: Candidate[]): Completion => ({
    mode: "words",
    candidates: list.filter((c) => c.word.startsWith(current) && !/[\t\n]/.test(c.word)),
  });
  if (pending !== null) {
    const values = FLAG_VALUES[pending];
    if (values === "files" || values === "dirs") return { mode: values, candidates: [] };
    if (values === "extensions") return filter(await names.extensions());
    return filter((values ?? []).map((word) => ({ word, description: "" })));
  }
  if (current.startsWith("-") && !words.slice(0, cword).includes("--")) return filter(flagCandidates());
  const [verb, ...args] = positionals;
  if (verb === undefined) return filter(commandCandidates());
  const subs = SUBCOMMANDS[verb];
  if (subs !== undefined && args.length === 0)
    return filter(Object.entries(subs).map(([word, description]) => ({ word, description })));
  switch (verb) {
    case "help":
      return args.length === 0 ? filter(commandCandidates()) : filter([]);
    case "extensions":
      if (args[0] === "validate" || (args[0] === "reload" && args.length === 1))
        return filter(await names.extensions());
      return filter([]);
    case "tools":
      return filter(await names.tools());
    case "call":
      return args.length === 0 ? filter(await names.tools()) : filter([]);
    case "command":
      return args.length === 0 ? filter(await names.commands()) : filter([]);
    default:
      return filter([]);
  }
}

/** Every command: the known ones, and any other that has a help text (commands added later). */
function commandCandidates(): Candidate[] {
  const all = new Map(Object.entries(COMMANDS));
  for (const key of Object.keys(COMMAND_HELP)) {
    const verb = key.split(" ")[0]!;
    if (!all.has(verb)) all.set(verb, "");
  }
  return [...all].map(([word, description]) => ({ word, description }));
}

/** Each flag with the first line of its description in the main help. */
function flagCandidates(): Candidate[] {
  const described = new Map<string, string>();
  // The line's first clause: the help wraps mid-sentence, a menu wants a phrase.
  for (const m of MAIN_HELP.matchAll(/^ {2}(?:-\w, )?--([a-z-]+)(?: \S+)? {2,}(\S.*)$/gm))
    described.set(m[1]!, m[2]!.split(/ \(|[;:,]/)[0]!);
  return Object.keys(FLAGS).map((long) => ({ word: `--${long}`, description: described.get(long) ?? "" }));
}

/** The wire format of `octet __complete`: the mode line, then one "word<TAB>description" per line. */
export function formatCompletion(c: Completion): string {
  const lines = c.candidates.map((x) => (x.description === "" ? x.word : `${x.word}\t${x.description}`));
  return `${[c.mode, ...lines].join("\n")}\n`;
}
