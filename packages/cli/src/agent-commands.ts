/**
 * The agent's one-shot commands: `octet run PROMPT` (one prompt, headless: the final answer on
 * stdout, or with --json one event per line), `octet sessions list [all]` and `octet models
 * [all]`. Exit status of run: 0 answered, 1 denied or stopped at the turn limit, 2 usage or
 * configuration (no model, unknown model, missing key), 3 the run failed (the provider, or the
 * session could not be written), 130 interrupted. With --json a failure is one {"type":"error"} line.
 */
import { ExtensionHost } from "@octet/host";
import type { Agent, AgentEvent, RunResult } from "@octet/agent";
import type { GlobalOptions } from "./args.js";
import { UsageError } from "./usage-error.js";
import { PI_SESSION_EVENTS } from "@octet/agent/pi-events";
import { EXIT_INTERRUPTED, EXIT_OK, EXIT_TOOL_ERROR, EXIT_UNAVAILABLE, EXIT_USAGE } from "./exit-codes.js";
import { agentConfig, loadAgentLib, noModelHelp, openAgent, PiProviders } from "./agent-setup.js";
import { sessionDialogs } from "./prompts.js";
import { AgentView } from "./agent-view.js";
import { reportFailure } from "./commands.js";
import { table, terminalSafe } from "./output.js";
import { createUi, hostOptions, withHost } from "./session.js";

/** A configuration problem found while opening the agent (model, key, session): exit 2 with it. */
class SetupError extends Error {}

export async function runCommand(options: GlobalOptions, positionals: string[]): Promise<number> {
  const prompt = positionals.length > 0 ? positionals.join(" ") : await readStdinPrompt();
  if (prompt.trim() === "") throw new UsageError('run needs a PROMPT: octet run "what does this project do?"');
  const config = agentConfig(options);
  if (config.model === null) throw new UsageError(noModelHelp(config.home));
  const modelRef = config.model;
  const lib = await loadAgentLib();
  const ui = createUi(options);
  const piProviders = new PiProviders();
  // The session services of API 0.4 act on the agent once it is open (the host starts first):
  // entries, messages and user messages (W 2.21-2.23), the active tools, and session control.
  let agent: Agent | null = null;
  let view: AgentView | null = null;
  // The answer is the last run's: a user message an extension queued (session/send_user_message)
  // runs after the prompt, before octet run exits, as it would in the shell.
  let last: RunResult | null = null;
  const route = (e: AgentEvent): void => {
    if (e.type === "run_end") last = { ...e };
    if (view) view.handle(e);
    else process.stdout.write(`${JSON.stringify(e)}\n`);
  };
  const replace = (next: Agent): void => {
    agent = next;
    next.subscribe(route);
  };
  const services = {
    sessionEntries: lib.sessionEntriesService(() => agent),
    messageInjection: lib.messageInjectionService(() => agent),
    activeTools: lib.activeToolsService(() => agent),
    sessionControl: lib.sessionControlService({
      agent: () => agent,
      replace,
      home: config.home,
    }),
  };
  const outcome = await withHost(
    (signal) => {
      const started = hostOptions(
        options,
        {
          signal,
          sessionLayer: {
            events: PI_SESSION_EVENTS,
            state: () => agent?.piState() ?? null,
            registerProvider: piProviders.register,
            control: lib.piSessionControl({ agent: () => agent, replace }),
            dialogs: sessionDialogs(ui.services),
            setModel: async (extension, provider, id) =>
              agent ? agent.piModels.setModel(extension, provider, id) : false,
            setThinkingLevel: async (_extension, level) => {
              if (!agent) throw new Error("pi.setThinkingLevel: the session is not open yet");
              return agent.piModels.setThinkingLevel(level, { fromExtension: true });
            },
          },
        },
        ui,
      );
      return ExtensionHost.start({ ...started, services: { ...started.services, ...services } });
    },
    async (host, signal): Promise<RunResult> => {
      view = options.json
        ? null
        : new AgentView({ host, line: ui.line, streamText: process.stdout.isTTY === true, verbose: options.verbose });
      let opened: Agent;
      try {
        opened = await openAgent(lib, options, { ...config, model: modelRef, piProviders }, host, ui, async () =>
          view?.flush(),
        );
      } catch (err) {
        throw new SetupError(err instanceof Error ? err.message : String(err));
      }
      agent = opened;
      opened.subscribe(route);
      try {
        const first = await opened.prompt(prompt, { signal });
        for (let current = agent; !current.closed && !current.isIdle(); current = agent as Agent)
          await current.whenIdle(signal);
        // An extension's compaction asked for during the run (pi's ctx.compact) runs now, not after close.
        if (!signal.aborted) await services.sessionControl.settled();
        await view?.flush();
        return (last as RunResult | null) ?? first;
      } finally {
        const current = agent as Agent;
        await current.close(signal.aborted ? "interrupted" : "completed");
        if (options.verbose) ui.line.print(`session ${current.session.id}: ${current.session.path}\n`);
      }
    },
    ui.line,
  );
  if (outcome.error !== undefined) {
    const setup = outcome.error instanceof SetupError;
    // --json stays one object per line, a failure included.
    if (options.json) {
      const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
      process.stdout.write(
        `${JSON.stringify({ type: "error", kind: setup ? "configuration" : "failure", message })}\n`,
      );
    } else if (setup) process.stderr.write(`octet: ${terminalSafe((outcome.error as Error).message)}\n`);
    else return reportFailure(options, outcome.error, outcome.interrupted);
    return setup ? EXIT_USAGE : outcome.interrupted ? EXIT_INTERRUPTED : EXIT_UNAVAILABLE;
  }
  const r = outcome.value!;
  // stdout is the answer: only a completed run has one (a failed run's earlier text is not it).
  if (!options.json && process.stdout.isTTY !== true && r.outcome === "completed" && r.text !== "")
    process.stdout.write(r.text.endsWith("\n") ? r.text : `${r.text}\n`);
  if (!options.json && r.outcome === "failed") process.stderr.write(`octet: ${terminalSafe(r.error ?? "failed")}\n`);
  switch (r.outcome) {
    case "completed":
      return EXIT_OK;
    case "cancelled":
      return EXIT_INTERRUPTED;
    case "failed":
      return EXIT_UNAVAILABLE;
    default:
      return EXIT_TOOL_ERROR;
  }
}

/** `echo PROMPT | octet run`: the prompt from piped stdin (never waits on a terminal). */
async function readStdinPrompt(): Promise<string> {
  if (process.stdin.isTTY) return "";
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function sessionsCommand(options: GlobalOptions, rest: string[]): Promise<number> {
  const [sub = "list", ...extra] = rest;
  if (sub !== "list") throw new UsageError(`unknown subcommand "sessions ${sub}"; expected: octet sessions list [all]`);
  if (extra.length > 1 || (extra.length === 1 && extra[0] !== "all"))
    throw new UsageError(`sessions list takes only "all"; got: ${extra.join(" ")}`);
  const all = extra[0] === "all";
  const lib = await loadAgentLib();
  const config = agentConfig(options);
  const list = await lib.listSessions(config.home, all ? undefined : options.workspace);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return EXIT_OK;
  }
  if (list.length === 0) {
    process.stdout.write(
      all ? "No sessions.\n" : `No sessions in ${options.workspace} (octet sessions list all shows every workspace).\n`,
    );
    return EXIT_OK;
  }
  const rows = list.map((s) => [
    s.id.slice(0, 8),
    new Date(s.modified_unix_ms).toISOString().replace("T", " ").slice(0, 16),
    String(s.entries),
    terminalSafe(s.name ?? s.first_prompt ?? ""),
    ...(all ? [s.workspace] : []),
  ]);
  process.stdout.write(
    table(["ID", "MODIFIED", "ENTRIES", "NAME OR FIRST PROMPT", ...(all ? ["WORKSPACE"] : [])], rows),
  );
  process.stdout.write("(octet --resume ID continues one; octet --continue the latest here)\n");
  return EXIT_OK;
}

export async function modelsCommand(options: GlobalOptions, rest: string[]): Promise<number> {
  if (rest.length > 1 || (rest.length === 1 && rest[0] !== "all"))
    throw new UsageError(`models takes only "all"; got: ${rest.join(" ")}`);
  const lib = await loadAgentLib();
  const config = agentConfig(options);
  const modelsFile = lib.loadModelsFile(`${config.home}/models.json`);
  const every = lib.listModels({ modelsFile, env: process.env });
  // Hundreds of built-in models: by default the ones usable now (a key is set) and the custom ones.
  const list = rest[0] === "all" ? every : every.filter((m) => m.hasKey || m.source === "models.json");
  if (options.json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return EXIT_OK;
  }
  if (list.length === 0)
    process.stdout.write(
      "No model has a key set. Set one (e.g. ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY), add a local " +
        `server to ${config.home}/models.json, or see every model with: octet models all\n`,
    );
  else
    process.stdout.write(
      table(
        ["MODEL", "NAME", "CONTEXT", "SOURCE", "KEY"],
        list.map((m) => [`${m.provider}/${m.id}`, m.name, String(m.contextWindow), m.source, m.hasKey ? "set" : "-"]),
      ),
    );
  if (config.model !== null) process.stdout.write(`current: ${config.model} (from ${config.source})\n`);
  return EXIT_OK;
}
