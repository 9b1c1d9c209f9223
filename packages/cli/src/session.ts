/**
 * What every CLI command shares: host options from the flags, the terminal (its live progress
 * line and the confirm and input services), how host events are shown on stderr, and signal
 * handling that always stops the extensions.
 */
import type { ExtensionHost, ExtensionHostOptions, HostEvent } from "@octet/host";
import { frameTrace } from "./trace-file.js";
import { piExtensionId, rpiRuntime } from "@octet/rpi";
import type { GlobalOptions } from "./args.js";
import { paint, terminalSafe } from "./output.js";
import { LiveLine, ProgressView } from "./progress-view.js";
import { promptServices, type CliServices } from "./prompts.js";
import { policySecretServices } from "./policy-secrets.js";
import { mcpRuntime } from "./mcp/mcp-runtime.js";

/** The terminal side of one CLI run: stderr's live line and the services that ask the person. */
export interface CliUi {
  line: LiveLine;
  services: CliServices;
  /** A progress view for one call; finish() it when the call settles. */
  progress(label: string): ProgressView;
}

export function createUi(options: GlobalOptions): CliUi {
  const line = new LiveLine();
  const services = promptServices({
    yes: options.yes,
    noInput: options.noInput,
    interactive: process.stdin.isTTY === true && process.stderr.isTTY === true,
    line,
    // In raw mode Ctrl-C is a key, not a signal: hand it to the SIGINT handlers synchronously, so
    // the call is cancelled before the prompt's cancelled answer can let the tool finish (a
    // real kill() is delivered a loop turn later, after which the tool may already have answered).
    onInterrupt: () => {
      if (process.listenerCount("SIGINT") > 0) process.emit("SIGINT", "SIGINT");
      else process.kill(process.pid, "SIGINT");
    },
  });
  return { line, services, progress: (label) => new ProgressView(line, label) };
}

/** The load timeout of rpi entries when --pi-runtime node is given (the rpi default is 10 s). */
const PI_NODE_LOAD_MS = 30_000;
/** The rpi runtime of the last hostOptions (one host per CLI command): asked for unclaimed --pi-flag values. */
let piRuntime: ReturnType<typeof rpiRuntime> | null = null;

export function hostOptions(
  options: GlobalOptions,
  extra: Partial<ExtensionHostOptions> = {},
  ui?: CliUi,
): ExtensionHostOptions {
  return {
    workspace: options.workspace,
    extensionDirs: options.extensionDirs,
    // Naming a pi extension on the command line enables it (and trusts it: the "explicit" source).
    enable: [
      ...options.enable,
      ...options.piExtensions.map(piExtensionId),
      ...options.mcpServers.map((s) => s.server.name),
    ],
    trust: options.trust,
    safeMode: options.safeMode,
    // pi-extension.json manifests are found beside extension.toml ones and served the same way.
    // The hello's mode tells pi extensions whether a person can answer dialogs (ctx.hasUI).
    runtimes: [
      (piRuntime = rpiRuntime({
        mode: process.stdin.isTTY === true && process.stderr.isTTY === true && !options.noInput ? "rpc" : "print",
        piExtensions: options.piExtensions,
        piRuntime: options.piRuntime,
        // A node entry imports pi's real packages (pi-coding-agent alone is seconds of module
        // loading on a busy machine), inside the load phase: 10 s is too tight for that.
        ...(options.piRuntime === "node" ? { timeouts: { loadMs: PI_NODE_LOAD_MS } } : {}),
        ...(Object.keys(options.piFlags).length > 0 ? { piFlags: options.piFlags } : {}),
      })),
      // mcp-server.json folders and --mcp-config servers: MCP stdio servers as extensions (mcp/).
      mcpRuntime({ servers: options.mcpServers }),
    ],
    onEvent: eventPrinter(options, ui?.line),
    ...(options.trace !== null ? { trace: frameTrace(options.trace) } : {}),
    // The CLI binds dynamic tools (every /call in the shell uses the catalog published at that
    // moment) and artifacts (`call` saves verified media to files, media-files.ts).
    services: {
      ...(ui ? { confirm: ui.services.confirm, input: ui.services.input } : {}),
      dynamicTools: true,
      artifacts: true,
      // --policy and --secret: without a terminal to ask, a policy "ask" is denied.
      ...policySecretServices({
        rules: options.policy,
        secrets: options.secrets,
        approve: ui ? ui.services.approve : async () => false,
        unavailable: (message) =>
          ui ? ui.line.print(`octet: ${message}\n`) : void process.stderr.write(`octet: ${message}\n`),
      }),
    },
    ...extra,
  };
}

/** Shows events on stderr: notifications and warnings always, stderr lines and info with --verbose. */
export function eventPrinter(options: GlobalOptions, line?: LiveLine): (event: HostEvent) => void {
  const print = (text: string): void => (line ? line.print(`${text}\n`) : void process.stderr.write(`${text}\n`));
  return (event) => {
    switch (event.type) {
      case "notification": {
        const n = event.notification;
        print(
          `${paint(levelColor(n.level), `[${event.extension}] ${n.level}`)}: ` +
            `${terminalSafe(n.title)}${n.message ? ` — ${terminalSafe(n.message)}` : ""}`,
        );
        return;
      }
      case "diagnostic":
        if (event.level !== "info" || options.verbose)
          print(
            `${paint(event.level === "error" ? "red" : "yellow", `[${event.extension}] ${event.level}`)}: ` +
              `${terminalSafe(event.message)}`,
          );
        return;
      case "stderr":
        if (options.verbose) print(`${paint("dim", `[${event.extension} stderr]`)} ${terminalSafe(event.line)}`);
        return;
      case "supervision":
        // Scheduled restarts and parking arrive as diagnostics too; say when it is back.
        if (event.action === "restarted")
          print(`${paint("green", `[${event.extension}] restarted`)}: generation ${event.generation} is ready`);
        else if (options.verbose && event.action === "restart_failed") {
          const line = `[${event.extension}] restart ${event.attempt + 1} failed: ${terminalSafe(event.reason)}`;
          print(`${paint("dim", line)}`);
        }
        return;
      case "state":
        if (options.verbose) {
          const reason = event.reason ? ` (${terminalSafe(event.reason)})` : "";
          print(`${paint("dim", `[${event.extension}] generation ${event.generation}: ${event.state}${reason}`)}`);
        }
        return;
      default:
        return;
    }
  };
}

function levelColor(level: string): "red" | "yellow" | "green" | "cyan" {
  return level === "error" ? "red" : level === "warning" ? "yellow" : level === "success" ? "green" : "cyan";
}

/**
 * Starts the host and runs `work` with it. Signal handling is installed before the extensions
 * start, so a Ctrl-C at any moment is handled: the first one (or SIGTERM/SIGHUP) cancels the work
 * (or the start-up), a second one stops the extensions at once and leaves. The extensions are
 * always stopped before this returns.
 */
export async function withHost<T>(
  start: (signal: AbortSignal) => Promise<ExtensionHost>,
  work: (host: ExtensionHost, signal: AbortSignal) => Promise<T>,
  line?: LiveLine,
): Promise<{ value?: T; error?: unknown; interrupted: boolean }> {
  const controller = new AbortController();
  let host: ExtensionHost | null = null;
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts === 1) {
      const text = "\ncancelling (press Ctrl-C again to leave now)\n";
      if (line) line.print(text);
      else process.stderr.write(text);
      controller.abort(new Error("interrupted"));
    } else {
      // Leave now: the host's exit hook SIGKILLs every extension process group still registered.
      process.exit(130);
    }
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const s of signals) process.on(s, onSignal);
  try {
    host = await start(controller.signal);
    if (controller.signal.aborted) throw new Error("interrupted while the extensions were starting");
    // pi's rule: a flag no loaded extension registered is said, and ignored.
    for (const flag of piRuntime?.unclaimedFlags() ?? []) {
      const text = `octet: --pi-flag ${flag}: no pi extension registered it (pi.registerFlag); ignored\n`;
      if (line) line.print(text);
      else process.stderr.write(text);
    }
    const value = await work(host, controller.signal);
    return { value, interrupted: controller.signal.aborted };
  } catch (error) {
    return { error, interrupted: controller.signal.aborted };
  } finally {
    await host?.shutdown({ fast: controller.signal.aborted });
    for (const s of signals) process.off(s, onSignal);
  }
}
