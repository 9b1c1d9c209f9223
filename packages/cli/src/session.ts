/**
 * What every CLI command shares: host options from the flags, how host events are shown on
 * stderr, the confirmation prompt, and signal handling that always stops the extensions.
 */
import { createInterface } from "node:readline/promises";
import type { ConfirmService, ExtensionHost, ExtensionHostOptions, HostEvent } from "@octet/host";
import type { GlobalOptions } from "./args.js";
import { paint } from "./output.js";

export function hostOptions(options: GlobalOptions, extra: Partial<ExtensionHostOptions> = {}): ExtensionHostOptions {
  return {
    workspace: options.workspace,
    extensionDirs: options.extensionDirs,
    enable: options.enable,
    trust: options.trust,
    safeMode: options.safeMode,
    onEvent: eventPrinter(options),
    ...extra,
  };
}

/** Shows events on stderr: notifications and warnings always, stderr lines and info with --verbose. */
export function eventPrinter(options: GlobalOptions): (event: HostEvent) => void {
  return (event) => {
    switch (event.type) {
      case "notification": {
        const n = event.notification;
        process.stderr.write(`${paint(levelColor(n.level), `[${event.extension}] ${n.level}`)}: ${n.title}${n.message ? ` — ${n.message}` : ""}\n`);
        return;
      }
      case "diagnostic":
        if (event.level !== "info" || options.verbose) process.stderr.write(`${paint(event.level === "error" ? "red" : "yellow", `[${event.extension}] ${event.level}`)}: ${event.message}\n`);
        return;
      case "stderr":
        if (options.verbose) process.stderr.write(`${paint("dim", `[${event.extension} stderr]`)} ${event.line}\n`);
        return;
      case "state":
        if (options.verbose) process.stderr.write(`${paint("dim", `[${event.extension}] generation ${event.generation}: ${event.state}${event.reason ? ` (${event.reason})` : ""}`)}\n`);
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
 * Confirmations: asked on the terminal when there is one; without a terminal nobody can answer,
 * so the request is denied (CONF-04).
 */
export function terminalConfirm(): ConfirmService | undefined {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return undefined;
  return async (request) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    // In raw mode Ctrl-C is a key, not a signal: turn it back into SIGINT so it cancels the call.
    rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
    try {
      const hint = request.default ? "[Y/n]" : "[y/N]";
      const detail = request.detail ? `\n  ${request.detail}` : "";
      const warn = request.destructive ? paint("red", " (destructive)") : "";
      const answer = (await rl.question(`[${request.extension}] ${request.prompt}${warn}${detail}\n${hint} `, { signal: request.signal })).trim().toLowerCase();
      if (answer === "") return request.default;
      return answer === "y" || answer === "yes";
    } catch {
      // Aborted: the call was cancelled or the extension went away; nobody needs the answer.
      return false;
    } finally {
      rl.close();
    }
  };
}

/**
 * Starts the host and runs `work` with it. Signal handling is installed before the extensions
 * start, so a Ctrl-C at any moment is handled: the first one (or SIGTERM/SIGHUP) cancels the work
 * (or the start-up), a second one stops the extensions at once and leaves. The extensions are
 * always stopped before this returns.
 */
export async function withHost<T>(start: (signal: AbortSignal) => Promise<ExtensionHost>, work: (host: ExtensionHost, signal: AbortSignal) => Promise<T>): Promise<{ value?: T; error?: unknown; interrupted: boolean }> {
  const controller = new AbortController();
  let host: ExtensionHost | null = null;
  let interrupts = 0;
  const onSignal = (): void => {
    interrupts++;
    if (interrupts === 1) {
      process.stderr.write("\ncancelling (press Ctrl-C again to leave now)\n");
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
    const value = await work(host, controller.signal);
    return { value, interrupted: controller.signal.aborted };
  } catch (error) {
    return { error, interrupted: controller.signal.aborted };
  } finally {
    await host?.shutdown({ fast: controller.signal.aborted });
    for (const s of signals) process.off(s, onSignal);
  }
}
