/**
 * The interactive session: starts the enabled extensions once and reads slash commands until
 * /quit or end of input. Ctrl-C cancels a running call; at the prompt it leaves. Works on a
 * terminal and on piped input (one command per line). Calls show their progress on stderr
 * (progress-view.ts), results go through the extension's renderer when it has one
 * (render-view.ts), and /menu shows and runs extension menus (shell-menu.ts).
 */
import { createInterface } from "node:readline";
import { ExtensionHost, notReadyReasons } from "@octet/host";
import { OctetError } from "@octet/protocol";
import type { GlobalOptions } from "./args.js";
import { UsageError } from "./args.js";
import { errorText, parseToolArgs, withProgress } from "./commands.js";
import { EXIT_INTERRUPTED, EXIT_OK } from "./exit-codes.js";
import { SHELL_HELP } from "./help.js";
import { listTable, statusTable, table, terminalSafe } from "./output.js";
import { resultText } from "./render-view.js";
import { createUi, hostOptions, type CliUi } from "./session.js";
import { menuCommand } from "./shell-menu.js";
import { showCommand } from "./shell-presentation.js";
import { rebuildHost } from "./shell-reload.js";
import { toolsText } from "./inspect-commands.js";
import { AGENT_COMMANDS, ShellAgent } from "./shell-agent.js";
import { ShellTerminal } from "./terminal-handoff.js";
import { ShellFrontend } from "./shell-frontend.js";
import { parseBang } from "./shell-bash.js";
import { PI_SESSION_EVENTS } from "@octet/agent/pi-events";
import { ShellChrome } from "./shell-chrome.js";
import { sessionDialogs } from "./prompts.js";

export async function runShell(options: GlobalOptions): Promise<number> {
  // Confirmations and input are asked by prompts.ts, which takes the keys from readline while it asks.
  const ui = createUi(options);
  // Reads settings.json: a broken one is a usage error before anything starts.
  const agent = new ShellAgent(options, ui);
  // Until the session is up, Ctrl-C (or SIGTERM/SIGHUP) abandons the start-up and stops what started.
  const starting = new AbortController();
  const abandon = (): void => starting.abort(new Error("interrupted"));
  const startSignals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const sig of startSignals) process.on(sig, abandon);
  // Extensions may borrow the terminal inside their calls (terminal/acquire, W 2.24).
  const terminal = new ShellTerminal(ui.line);
  // The prompt line as the extensions' composer, their shortcuts and Tab (shell-frontend.ts).
  const frontend = new ShellFrontend(process.stdin.isTTY === true);
  // Extensions' header and footer text around the prompt, and their displayed messages (shell-chrome.ts).
  const chrome = new ShellChrome({ out: process.stdout, idle: () => !busy && !closing });
  agent.onDisplay = (extension, entryType, data) => chrome.showMessage(extension, entryType, data);
  // The shell is an explicit view of presentation snapshots (/extensions show), so it binds the service.
  const startHost = (signal: AbortSignal): Promise<ExtensionHost> => {
    // With a model configured the agent delivers pi extensions their session events itself
    // (pi-events.ts); an extension tool of a built-in tool's name replaces it (openAgent).
    const layer = agent.configured
      ? {
          sessionLayer: {
            events: PI_SESSION_EVENTS,
            state: () => agent.piState(),
            registerProvider: agent.piProviders.register,
            control: agent.piControl(),
            dialogs: sessionDialogs(ui.services),
            ...agent.piModelLayer(),
          },
        }
      : {};
    const started = hostOptions(options, { signal, ...layer, ...terminal.hostEnv() }, ui);
    const printEvent = started.onEvent;
    started.onEvent = (event) => {
      printEvent?.(event);
      chrome.observe(event);
    };
    // With a model, extensions may write their own session entries (session_entries, W 2.21).
    const entries = agent.configured
      ? { sessionEntries: agent.sessionEntries(), sessionControl: agent.sessionControl(), ...agent.injection() }
      : {};
    return ExtensionHost.start({
      ...started,
      services: { ...started.services, presentation: true, ...entries, terminal, frontend },
    });
  };
  let host = await startHost(starting.signal);
  agent.useHost(host);
  // Created after start-up: stdin stays paused (and buffers piped input) until readline reads it.
  const rl = createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: process.stdin.isTTY === true,
    prompt: "octet> ",
  });
  // Held until the line handler is attached: piped lines read while --continue opens the session
  // would otherwise be emitted to no listener and lost.
  rl.pause();
  for (const sig of startSignals) process.off(sig, abandon);
  terminal.use(rl, () => !busy);
  if (starting.signal.aborted) {
    rl.close();
    await host.shutdown({ fast: true });
    process.stderr.write("octet: interrupted while the extensions were starting\n");
    return EXIT_INTERRUPTED;
  }
  const ready = host
    .status()
    .filter((s) => s.state === "ready")
    .map((s) => s.name);
  const notReady = notReadyReasons(host.status(), options.enable);
  const idle =
    ready.length > 0
      ? `running ${ready.join(", ")}`
      : notReady.length > 0
        ? "no extension running"
        : "no extension running (enable one with --enable-extension NAME)";
  process.stdout.write(
    `octet shell: ${idle}. Type /help.\n${notReady.map((r) => `not ready: ${terminalSafe(r)}\n`).join("")}`,
  );
  if (agent.configured) process.stdout.write(`model ${agent.modelRef}: type a prompt, or a /command\n`);
  try {
    const opened = await agent.openEarly();
    if (opened !== null) process.stdout.write(`${terminalSafe(opened)}\n`);
  } catch (err) {
    // --continue / --resume that cannot open: say why and leave, nothing else has happened yet.
    // readline goes first: it holds stdin (raw on a terminal), which would keep the process alive.
    rl.close();
    await host.shutdown({ fast: true });
    throw new UsageError(errorText(err));
  }

  let running: AbortController | null = null;
  let closing = false;
  // Left by Ctrl-C or a signal rather than /quit or the end of input: the session says so.
  let interrupted = false;
  // Lines are queued and run one at a time (a question of a running call reads the keys itself).
  const queue: string[] = [];
  let busy = false;
  let inputEnded = false;
  let finish: () => void = () => {};
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const leave = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    queue.length = 0;
    running?.abort(new Error("leaving"));
    rl.close();
    maybeFinish();
  };
  // Ctrl-C: cancel the running call, or leave when idle. On a terminal readline reports it as a
  // key; on piped input it arrives as a real SIGINT. SIGTERM/SIGHUP always leave.
  const interrupt = (): void => {
    if (running) {
      process.stdout.write("\ncancelling the running call\n");
      running.abort(new Error("interrupted"));
    } else if (agent.busy) {
      // A run an extension's message started (W 2.22): Ctrl-C cancels it like a typed prompt.
      process.stdout.write("\ncancelling the running call\n");
      agent.abortRun();
    } else {
      interrupted = true;
      void leave();
    }
  };
  const terminate = (): void => {
    interrupted = true;
    void leave();
  };
  rl.on("SIGINT", interrupt);
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", terminate);
  process.on("SIGHUP", terminate);

  const pump = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    while (queue.length > 0 && !closing) {
      const line = queue.shift()!;
      if (line === "/quit" || line === "/exit") {
        await leave();
        break;
      }
      if (line !== "") {
        running = new AbortController();
        const signal = running.signal;
        try {
          if (line === "/reload") {
            const rebuilt = await rebuildHost(host, () => startHost(signal), options.enable, signal);
            host = rebuilt.host;
            agent.useHost(host);
            process.stdout.write(rebuilt.message);
          } else await handle(host, line, signal, ui, options.verbose, agent);
        } catch (err) {
          const text = errorText(err);
          // A live reload must keep the catalog; the rebuild is how an edited one is taken.
          const hint =
            err instanceof OctetError && err.code === "reregistration_required"
              ? "\n(type /reload to rebuild the host from the manifests on disk and take the new catalog)"
              : "";
          process.stdout.write(`error: ${terminalSafe(text)}${hint}\n`);
        } finally {
          running = null;
        }
      }
      // The cursor is kept: an extension may have filled the composer meanwhile.
      if (!closing) rl.prompt(true);
    }
    busy = false;
    maybeFinish();
  };
  // Leave once nothing runs and either /quit or Ctrl-C asked for it, or the input ended.
  const maybeFinish = (): void => {
    if (!busy && (closing || (inputEnded && queue.length === 0))) finish();
  };
  rl.on("line", (raw) => {
    queue.push(raw.trim());
    void pump();
  });
  rl.resume();
  rl.on("close", () => {
    inputEnded = true;
    maybeFinish();
  });
  agent.onExtensionRunEnd = () => {
    if (!closing && !busy && !inputEnded) rl.prompt();
  };
  const builtins = ["help", "extensions", "tools", "commands", "call", "menu", "reload", "quit", "exit"];
  chrome.attach(rl);
  frontend.attach(rl, process.stdin, {
    host: () => host,
    builtins: [...builtins, ...AGENT_COMMANDS],
    workspace: options.workspace,
    idle: () => !busy && !closing,
  });
  rl.prompt();
  await finished;
  // A run an extension's message started is drawn to its end before leaving (Ctrl-C cancels it).
  while (!interrupted && agent.busy) await new Promise((r) => setTimeout(r, 50));
  rl.close();
  await agent.close(interrupted ? "interrupted" : "completed");
  await host.shutdown({ fast: true });
  return EXIT_OK;
}

async function handle(
  host: ExtensionHost,
  line: string,
  signal: AbortSignal,
  ui: CliUi,
  verbose: boolean,
  agent: ShellAgent,
): Promise<void> {
  // !cmd and !!cmd run a command into the session (shell-bash.ts), as in pi's editor.
  const bang = parseBang(line);
  if (bang !== null) return agent.bash(bang, signal);
  // A plain line is a prompt for the model (without a model, the answer says how to set one up).
  if (!line.startsWith("/")) return agent.prompt(line, signal);
  const [head = "", ...restWords] = line.slice(1).split(/\s+/);
  const restText = line.slice(1 + head.length).trim();
  if (AGENT_COMMANDS.includes(head)) return agent.command(head, restText, signal);
  switch (head) {
    case "help":
      process.stdout.write(SHELL_HELP);
      return;
    case "extensions": {
      const sub = restWords[0];
      if (sub === "status") process.stdout.write(statusTable(host.status(), verbose));
      else if (sub === "list") process.stdout.write(listTable(host.status()));
      else if (sub === "reload") {
        const names =
          restWords[1] !== undefined
            ? [restWords[1]]
            : host
                .status()
                .filter((x) => x.enabled && x.trusted && x.errors.length === 0)
                .map((x) => x.name);
        for (const name of names) {
          const status = await host.reload(name);
          process.stdout.write(`reloaded ${name}: generation ${status.generation}, ${status.state}\n`);
        }
      } else if (sub === "show")
        return showCommand(host, restWords.slice(1), signal, (label, run) => withProgress(ui, label, run));
      else
        throw new UsageError(
          "usage: /extensions status | /extensions list | /extensions reload [NAME] | /extensions show NAME [ACTION]",
        );
      return;
    }
    case "tools": {
      const tools = host.tools();
      const name = restWords[0];
      if (name !== undefined && name !== "") {
        const tool = tools.find((t) => t.name === name);
        // callTool's answer for an unknown name names every enabled extension that is not ready.
        if (!tool) {
          const available = tools.map((t) => t.name).join(", ") || "none";
          const notReady = notReadyReasons(host.status(), [])
            .map((r) => `\n  ${r}`)
            .join("");
          throw new UsageError(`no ready extension provides tool "${name}" (available: ${available})${notReady}`);
        }
        process.stdout.write(toolsText([tool]));
      } else
        process.stdout.write(
          tools.length === 0
            ? "No tools.\n"
            : `${table(
                ["TOOL", "EXTENSION", "DESCRIPTION"],
                tools.map((t) => [t.name, t.extension, t.description]),
              )}(/tools NAME shows a tool's parameters)\n`,
        );
      return;
    }
    case "commands": {
      const commands = host.commands();
      process.stdout.write(
        commands.length === 0
          ? "No commands.\n"
          : table(
              ["COMMAND", "EXTENSION", "USAGE", "DESCRIPTION"],
              commands.map((c) => [`/${c.name}`, c.extension, c.usage, c.description]),
            ),
      );
      return;
    }
    case "call": {
      const tool = restWords[0];
      if (!tool) throw new UsageError('usage: /call TOOL {json}, e.g. /call hello_world {"name":"you"}');
      const argsText = restText.slice(tool.length).trim();
      const args = parseToolArgs(argsText === "" ? undefined : argsText);
      const result = await withProgress(ui, tool, (onProgress) => host.callTool(tool, args, { signal, onProgress }));
      process.stdout.write(await resultText(host, tool, args, result, signal));
      return;
    }
    case "menu":
      return menuCommand(host, restWords, signal, (label, run) => withProgress(ui, label, run));
    default: {
      const known = host.commands().find((c) => c.name === head);
      if (!known)
        throw new UsageError(
          `unknown command /${head}; type /help (extension commands: ${
            host
              .commands()
              .map((c) => `/${c.name}`)
              .join(", ") || "none"
          })`,
        );
      const result = await withProgress(ui, `/${head}`, (onProgress) =>
        host.runCommand(
          head,
          restWords.filter((w) => w !== ""),
          { signal, onProgress },
        ),
      );
      process.stdout.write(`${terminalSafe(result.text)}\n`);
      for (const n of result.notifications)
        process.stdout.write(
          `[${result.extension}] ${n.level}: ` +
            `${terminalSafe(n.title)}${n.message ? ` — ${terminalSafe(n.message)}` : ""}\n`,
        );
    }
  }
}
