#!/usr/bin/env node
/**
 * The `octet` binary: parses the command line and hands it to one command. Usage errors exit 2
 * with a hint; everything else is the commands' business.
 */
import { OCTET_VERSION } from "@octet/protocol";
import { UsageError, parseCommandLine } from "./args.js";
import { EXIT_USAGE } from "./exit-codes.js";
import { COMMAND_HELP, MAIN_HELP } from "./help.js";
import { applyConfig } from "./config/config-resolve.js";

// Each command's module is imported when that command runs: a start loads only what its command
// needs (every test, script and Tab starts one; the shell alone pulls in the agent's views).
const commands = () => import("./commands.js");
const inspect = () => import("./inspect-commands.js");
const agentCommands = () => import("./agent-commands.js");

/**
 * Node's runtime warnings (MaxListenersExceededWarning and the like) are for octet's developers,
 * not its user: none is printed unless -v asks for detail (issue 13). Node's own printer is the
 * default "warning" listener; it is replaced before anything can warn.
 */
let showWarnings = false;
process.removeAllListeners("warning");
process.on("warning", (warning) => {
  if (showWarnings) process.stderr.write(`octet: node warning: ${warning.name}: ${warning.message}\n`);
});

async function main(argv: string[]): Promise<number> {
  // The completion scripts' call: its words are a half-typed command line, not octet's own flags.
  if (argv[0] === "__complete")
    return (await import("./completion/completion-command.js")).completeCommand(argv.slice(1));
  // init takes its own flags (--ts, --python, --pi) and none of the global ones.
  if (argv[0] === "init") return (await import("./init.js")).initCommand(argv.slice(1));
  const parsed = parseCommandLine(argv);
  showWarnings = parsed.options.verbose;
  const [verb, ...rest] = parsed.positionals;
  if (parsed.options.version) {
    process.stdout.write(`${OCTET_VERSION}\n`);
    return 0;
  }
  if (parsed.options.help) {
    process.stdout.write(helpFor(verb, rest[0]));
    return 0;
  }
  // The script needs no config file: it must print even when one is broken.
  if (verb === "completion") return (await import("./completion/completion-command.js")).completionCommand(rest);
  // The config files under the flags: command line > workspace > home > defaults.
  const { options } = applyConfig(parsed);
  showWarnings = options.verbose;
  switch (verb) {
    case undefined:
      return (await import("./shell.js")).runShell(options);
    case "help":
      process.stdout.write(helpFor(rest[0], rest[1]));
      return 0;
    case "extensions": {
      const [sub, ...extra] = rest;
      if (sub === "reload") {
        if (extra.length > 1) throw new UsageError(`extensions reload takes at most one NAME; got: ${extra.join(" ")}`);
        return (await commands()).extensionsReload(options, extra[0]);
      }
      if (sub === "validate") return (await inspect()).extensionsValidate(options, extra);
      if (extra.length > 0)
        throw new UsageError(`extensions ${sub ?? ""} takes no further arguments; got: ${extra.join(" ")}`);
      if (sub === "list") return (await commands()).extensionsList(options);
      if (sub === "status") return (await commands()).extensionsStatus(options);
      throw new UsageError(
        sub === undefined
          ? "extensions needs a subcommand: list, status, validate or reload"
          : `unknown subcommand "extensions ${sub}"; expected list, status, validate or reload`,
      );
    }
    case "tools":
      return (await inspect()).tools(options, rest);
    case "call":
      return (await commands()).call(options, rest);
    case "command":
      return (await commands()).command(options, rest);
    case "run":
      return (await agentCommands()).runCommand(options, rest);
    case "sessions":
      return (await agentCommands()).sessionsCommand(options, rest);
    case "models":
      return (await agentCommands()).modelsCommand(options, rest);
    case "config":
      return (await import("./config/config-command.js")).configCommand(parsed, rest);
    case "mcp": {
      const [sub, ...extra] = rest;
      if (sub !== "serve")
        throw new UsageError(
          sub === undefined ? "mcp needs a subcommand: serve" : `unknown subcommand "mcp ${sub}"; expected serve`,
        );
      // Loaded here only: the MCP SDK costs nothing to the other commands.
      return (await import("./mcp/serve.js")).mcpServe(options, extra);
    }
    case "trace":
      return (await import("./trace.js")).traceCommand(options, rest);
    case "check":
      return (await import("./check.js")).checkCommand(options, rest);
    default:
      throw new UsageError(
        `unknown command "${verb}"; expected run, sessions, models, extensions, tools, call, command, config, ` +
          "completion, mcp, check, trace or init " +
          "(see octet --help)",
      );
  }
}

function helpFor(verb: string | undefined, sub?: string): string {
  if (verb === undefined) return MAIN_HELP;
  return COMMAND_HELP[sub !== undefined ? `${verb} ${sub}` : verb] ?? COMMAND_HELP[verb] ?? MAIN_HELP;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      // --json promises one JSON document on stdout, also when the command line is wrong.
      if (process.argv.includes("--json"))
        process.stdout.write(JSON.stringify({ error: { code: "usage", message: err.message } }, null, 2) + "\n");
      process.stderr.write(`octet: ${err.message}\nRun "octet --help" for usage.\n`);
      process.exitCode = EXIT_USAGE;
      return;
    }
    process.stderr.write(`octet: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 70;
  },
);
