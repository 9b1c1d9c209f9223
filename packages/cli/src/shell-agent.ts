/**
 * The agent inside the interactive session: a line that is not a /command is a prompt, and
 * /session, /name, /model, /compact act on the session. The session is opened on the first
 * prompt (or at start with --continue / --resume), so a shell used only for /call leaves no
 * session file behind. Without a model, the first prompt says how to configure one.
 */
import type { Agent } from "@octet/agent";
import type { ExtensionHost, ForeignSessionState, SessionControlService, SessionEntriesService } from "@octet/host";
import type { ForeignSessionControl } from "@octet/host";
import { treeCommand } from "./shell-tree.js";
import type { ForeignSessionLayer } from "@octet/host";
import type { GlobalOptions } from "./args.js";
import {
  agentConfig,
  loadAgentLib,
  noModelHelp,
  openAgent,
  PiProviders,
  type AgentConfig,
  type AgentLib,
} from "./agent-setup.js";
import { AgentView } from "./agent-view.js";
import { paint, table, terminalSafe } from "./output.js";
import type { CliUi } from "./session.js";
import { ShellRuns } from "./shell-runs.js";
import { runBang } from "./shell-bash.js";
import type { ActiveToolsService, MessageInjectionService } from "@octet/host";
import { UsageError } from "./usage-error.js";

export const AGENT_COMMANDS = ["session", "name", "model", "compact", "thinking", "new", "fork", "tree"];

export class ShellAgent {
  readonly #options: GlobalOptions;
  readonly #ui: CliUi;
  readonly #config: AgentConfig;
  /** What pi extensions registered with registerProvider: the agent resolves --model with them. */
  readonly piProviders = new PiProviders();
  /** Shows an entry an extension appended (the shell shows those with display:true, shell-chrome.ts). */
  onDisplay: (extension: string, entryType: string, data: unknown) => void = () => {};
  #host: ExtensionHost | null = null;
  #agent: Agent | null = null;
  /** Compactions asked for through sessionControl and not yet settled: close() waits for them. */
  readonly #compactions = new Set<Promise<unknown>>();
  #lib: AgentLib | null = null;
  /** The view of the running prompt: a question waits until it has drawn what came before. */
  #view: AgentView | null = null;
  /** Routes the agent's events: to the typed prompt's view, or to the view of a run an extension started. */
  readonly #runs: ShellRuns;

  constructor(options: GlobalOptions, ui: CliUi) {
    this.#options = options;
    this.#ui = ui;
    this.#config = agentConfig(options);
    this.#runs = new ShellRuns(() => {
      const view = this.#newView();
      this.#view = view;
      return view;
    });
  }

  /** Called when a run an extension's user message started has been drawn (the shell prompts again). */
  set onExtensionRunEnd(fn: () => void) {
    this.#runs.onOtherEnd = () => {
      this.#view = null;
      fn();
    };
  }

  /** True while the agent runs something (a typed prompt, or a message an extension sent). */
  get busy(): boolean {
    return this.#agent !== null && !this.#agent.isIdle();
  }

  /** Ctrl-C while a run an extension started is streaming: cancel it. */
  /** The session as pi extensions read it (the host's sessionLayer.state); null before the first prompt. */
  piState(): ForeignSessionState | null {
    return this.#agent?.piState() ?? null;
  }

  /** pi.setModel / pi.setThinkingLevel on the agent (the session opens as for a first prompt). */
  piModelLayer(): Pick<ForeignSessionLayer, "setModel" | "setThinkingLevel"> {
    return {
      setModel: async (extension, provider, id) => (await this.#ensure()).piModels.setModel(extension, provider, id),
      setThinkingLevel: async (_extension, level) =>
        (await this.#ensure()).piModels.setThinkingLevel(level, { fromExtension: true }),
    };
  }

  abortRun(): void {
    this.#agent?.abort("interrupted");
  }

  #newView(): AgentView {
    return new AgentView({ host: this.#host, line: this.#ui.line, streamText: true, verbose: this.#options.verbose });
  }

  get configured(): boolean {
    return this.#config.model !== null;
  }

  /** The model as configured (PROVIDER/ID), before it is resolved on first use. */
  get modelRef(): string | null {
    return this.#config.model;
  }

  /** The host changes on /reload; the agent follows it from the next prompt on. */
  useHost(host: ExtensionHost): void {
    this.#host = host;
    this.#agent?.setHost(host);
  }

  /** --continue / --resume open the session at start, so its history is there before the first prompt. */
  async openEarly(): Promise<string | null> {
    if (!this.configured || (!this.#options.continueSession && this.#options.resume === null)) return null;
    const agent = await this.#ensure();
    const info = agent.info();
    const name = info.name ? ` "${info.name}"` : "";
    return `session ${info.id.slice(0, 8)}${name}: ${info.entries} entries (${info.file})`;
  }

  async prompt(text: string, signal: AbortSignal): Promise<void> {
    if (!this.configured) throw new UsageError(noModelHelp(this.#config.home));
    const agent = await this.#ensure();
    // A run an extension's message started goes first: the typed prompt waits for the agent.
    while (!agent.isIdle() && !signal.aborted) await new Promise((r) => setTimeout(r, 50));
    const view = this.#newView();
    this.#runs.typed(view);
    this.#view = view;
    try {
      await agent.prompt(text, { signal });
      await view.flush();
    } finally {
      this.#runs.release();
      if (this.#view === view) this.#view = null;
    }
  }

  /** `!command` / `!!command` (shell-bash.ts): recorded in the session, so it needs a model. */
  async bash(bang: { command: string; excludeFromContext: boolean }, signal: AbortSignal): Promise<void> {
    if (!this.configured)
      throw new UsageError(
        `a !command is recorded in the session, which needs a model; ${noModelHelp(this.#config.home)}`,
      );
    await runBang(await this.#ensure(), bang, signal);
  }

  /** Runs /session, /name, /model or /compact. */
  async command(head: string, rest: string, signal: AbortSignal): Promise<void> {
    if (!this.configured) throw new UsageError(noModelHelp(this.#config.home));
    const agent = await this.#ensure();
    switch (head) {
      case "new":
      case "fork":
      case "tree":
        return treeCommand(head, rest, agent, (next) => this.#replace(next));
      case "session": {
        if (rest === "tree") return treeCommand("session", rest, agent, (next) => this.#replace(next));
        const i = agent.info();
        process.stdout.write(
          `${table(
            ["", ""],
            [
              ["id", i.id],
              ["name", i.name ?? "(none: /name NAME sets one)"],
              ["file", i.file],
              ["entries", String(i.entries)],
              ["context", `about ${i.context_tokens} tokens of ${agent.model.model.contextWindow}`],
              ["model", i.model],
            ],
          )}`,
        );
        return;
      }
      case "name":
        if (rest === "")
          throw new UsageError("usage: /name NAME (a name for this session, shown by octet sessions list)");
        await agent.setName(rest);
        process.stdout.write(`session named "${terminalSafe(rest)}"\n`);
        return;
      case "model": {
        if (rest === "") {
          process.stdout.write(`model: ${agent.info().model} (/model PROVIDER/ID switches; octet models lists them)\n`);
          return;
        }
        const lib = await this.#loadLib();
        const modelsFile = lib.loadModelsFile(`${this.#config.home}/models.json`);
        const model = await lib.resolveModel(lib.parseModelRef(rest), { modelsFile, env: process.env });
        await agent.setModel(model);
        process.stdout.write(`model: ${model.model.provider}/${model.model.id}\n`);
        return;
      }
      case "thinking": {
        // pi's thinking levels, clamped to the model (a model that cannot reason stays "off").
        const level = rest === "" ? agent.piState().thinkingLevel : await agent.piModels.setThinkingLevel(rest);
        process.stdout.write(`thinking: ${level} (/thinking off|minimal|low|medium|high|xhigh)\n`);
        return;
      }
      case "compact": {
        const view = new AgentView({ host: this.#host, line: this.#ui.line, streamText: false, verbose: false });
        const unsubscribe = agent.subscribe(view.handle);
        try {
          const done = await agent.compact(rest === "" ? undefined : rest, { signal });
          await view.flush();
          process.stdout.write(
            `${paint("dim", `summary of about ${done.tokens_before} tokens, kept from entry ${done.first_kept}:`)}\n` +
              `${terminalSafe(done.summary)}\n`,
          );
        } finally {
          unsubscribe();
        }
        return;
      }
      default:
        throw new UsageError(`unknown agent command /${head}`);
    }
  }

  async close(outcome: "completed" | "interrupted"): Promise<void> {
    if (outcome === "completed") while (this.#compactions.size > 0) await Promise.allSettled([...this.#compactions]);
    await this.#agent?.close(outcome);
  }

  async #loadLib(): Promise<AgentLib> {
    this.#lib ??= await loadAgentLib();
    return this.#lib;
  }

  /**
   * services.sessionEntries for the host (W 2.21): writes through the agent's session once there
   * is one (the host starts first, so the agent is found late); refused before that.
   */
  sessionEntries(): SessionEntriesService {
    const service = async (): Promise<SessionEntriesService> =>
      (await this.#loadLib()).sessionEntriesService(() => this.#agent);
    return {
      append: async (r) => {
        const appended = await (await service()).append(r);
        this.onDisplay(r.extension, r.entry_type, r.data);
        return appended;
      },
      setName: async (r) => (await service()).setName(r),
      setLabel: async (r) => (await service()).setLabel(r),
    };
  }

  /**
   * services.messageInjection and services.activeTools (W 2.22, W 2.23): through the agent, whose
   * session is opened by the first of them as by a first prompt (a user message starts a run).
   */
  injection(): { messageInjection: MessageInjectionService; activeTools: ActiveToolsService } {
    const lib = async (): Promise<AgentLib> => {
      await this.#ensure();
      return this.#loadLib();
    };
    return {
      messageInjection: {
        sendMessage: async (r) => (await lib()).messageInjectionService(() => this.#agent).sendMessage(r),
        sendUserMessage: async (r) => (await lib()).messageInjectionService(() => this.#agent).sendUserMessage(r),
      },
      activeTools: { setActive: async (r) => (await lib()).activeToolsService(() => this.#agent).setActive(r) },
    };
  }

  /**
   * services.sessionControl for the host (W 2.21b, 2.21c): wait_for_idle, switch and compact on
   * the agent of the moment; a switch replaces it, and the next prompt goes to the new session.
   */
  sessionControl(): SessionControlService {
    const service = async () =>
      (await this.#loadLib()).sessionControlService({
        agent: () => this.#agent,
        replace: (next) => this.#replace(next),
        home: this.#config.home,
      });
    return {
      idle: () => this.#agent?.isIdle() ?? true,
      epoch: () => this.#agent?.session.id ?? null,
      waitForIdle: async (r) => (await service()).waitForIdle(r),
      switchTo: async (r) => (await service()).switchTo(r),
      compact: (r) => {
        const run = (async () => (await service()).compact!(r))();
        // Held until settled: /quit lets a compaction an extension asked for finish (pi's ctx.compact).
        const held: Promise<unknown> = run.then(
          (): unknown => this.#compactions.delete(held),
          (): unknown => this.#compactions.delete(held),
        );
        this.#compactions.add(held);
        return run;
      },
    };
  }

  /**
   * The session layer's control for pi extensions (ctx.newSession, ctx.fork, ctx.navigateTree) on
   * the agent of the moment; a replacement becomes the shell's agent, as /new does.
   */
  piControl(): ForeignSessionControl {
    const service = async () =>
      (await this.#loadLib()).piSessionControl({ agent: () => this.#agent, replace: (next) => this.#replace(next) });
    return {
      newSession: async (r) => (await service()).newSession(r),
      fork: async (r) => (await service()).fork(r),
      navigateTree: async (r) => (await service()).navigateTree(r),
    };
  }

  /** The agent over a new or switched-to session: the next prompt goes to it, its runs are drawn. */
  #replace(next: Agent): void {
    this.#agent = next;
    next.subscribe(this.#runs.route);
  }

  async #ensure(): Promise<Agent> {
    if (this.#agent) return this.#agent;
    const lib = await this.#loadLib();
    const config = { ...this.#config, model: this.#config.model!, piProviders: this.piProviders };
    this.#agent = await openAgent(lib, this.#options, config, this.#host, this.#ui, async () => this.#view?.flush());
    this.#agent.subscribe(this.#runs.route);
    return this.#agent;
  }
}
