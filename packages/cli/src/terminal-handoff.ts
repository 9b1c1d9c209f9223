/**
 * The shell's side of terminal handoff (W 2.24): the frontend that owns the foreground tty and
 * lends it to an extension (the host's services.terminal). Ceding stops everything the shell
 * reads and draws: readline is paused, stdin leaves raw mode and stops reading, the live
 * progress line is held (cleared, its messages queued) and the current line is cleared. Taking
 * it back undoes that in reverse and redraws the prompt with the line being typed. While ceded,
 * the shell also stops redrawing on resize (readline would draw over the holder's screen).
 *
 * A holder that was revoked (its call ended, it crashed) may have left the alternate screen, a
 * hidden cursor or colours on: recovery resets those too, and says what happened. The holder
 * reaches the tty through OCTET_TTY, the device the shell names in the host's environment.
 */
import { randomUUID } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import type { Interface } from "node:readline";
import type { TerminalRequester, TerminalService } from "@octet/host";
import type { TerminalGrant } from "@octet/protocol";
import { paint } from "./output.js";
import type { LiveLine } from "./progress-view.js";

const CLEAR_LINE = "\r\u001b[2K";
/**
 * Leave the alternate screen, show the cursor, reset attributes: what a revoked holder may have
 * left. Leaving restores the saved cursor, so ceding saves it (SAVE_CURSOR) on the cleared line:
 * a holder that never entered the alternate screen does not send the shell to a stale position.
 */
const RECOVER_SCREEN = "\u001b[?1049l\u001b[?25h\u001b[0m";
const SAVE_CURSOR = "\u001b7";

export class ShellTerminal implements TerminalService {
  readonly #line: LiveLine;
  #rl: Interface | null = null;
  #closed = false;
  #idle: () => boolean = () => false;
  #ceded: { who: TerminalRequester; releaseLine: () => void; onResize: ((...a: unknown[]) => void)[] } | null = null;

  constructor(line: LiveLine) {
    this.#line = line;
  }

  /** The shell's readline, once it exists; `idle` says whether the prompt is showing (no call runs). */
  use(rl: Interface, idle: () => boolean): void {
    this.#rl = rl;
    this.#closed = false;
    this.#idle = idle;
    rl.once("close", () => {
      this.#closed = true;
    });
  }

  /** The environment the host is given: the parent's, plus OCTET_TTY when stdin is a terminal. */
  hostEnv(): { env?: Record<string, string | undefined> } {
    const tty = interactive() ? ttyPath() : null;
    return tty === null ? {} : { env: { ...process.env, OCTET_TTY: tty } };
  }

  available(): boolean {
    return interactive() && this.#rl !== null && !this.#closed && this.#ceded === null;
  }

  async cede(who: TerminalRequester): Promise<TerminalGrant> {
    const rl = this.#rl;
    if (rl === null || this.#closed) throw new Error("the shell's prompt is not running");
    const releaseLine = this.#line.hold();
    rl.pause();
    const stdin = process.stdin;
    if (stdin.isTTY) stdin.setRawMode(false);
    stdin.pause();
    // readline redraws its line on every resize, paused or not: it must not draw over the holder.
    const onResize = process.stdout.listeners("resize") as ((...a: unknown[]) => void)[];
    process.stdout.removeAllListeners("resize");
    process.stdout.write(CLEAR_LINE + SAVE_CURSOR);
    this.#ceded = { who, releaseLine, onResize };
    return {
      grant_id: `tty-${randomUUID()}`,
      columns: clampU16(process.stdout.columns ?? 80),
      rows: clampU16(process.stdout.rows ?? 24),
    };
  }

  async resume(reason: string): Promise<void> {
    const ceded = this.#ceded;
    if (ceded === null) return;
    this.#ceded = null;
    const out = process.stdout;
    for (const l of ceded.onResize) out.on("resize", l);
    if (reason !== "released") out.write(`${RECOVER_SCREEN}${CLEAR_LINE}`);
    const rl = this.#rl;
    if (rl !== null && !this.#closed) {
      if (process.stdin.isTTY) process.stdin.setRawMode(true);
      rl.resume();
    }
    if (reason !== "released")
      out.write(`${paint("dim", `(the terminal was taken back from ${ceded.who.extension}: ${reason})`, out)}\n`);
    ceded.releaseLine();
    // Redraw the prompt and what was being typed, if the shell is waiting for a line.
    if (rl !== null && !this.#closed && this.#idle()) rl.prompt(true);
  }
}

function interactive(): boolean {
  return process.stdin.isTTY === true && process.stdout.isTTY === true;
}

function clampU16(n: number): number {
  return Math.max(0, Math.min(65_535, Math.floor(n)));
}

/** The device of stdin (/proc on Linux, else tty(1)), or null when it cannot be named. */
function ttyPath(): string | null {
  try {
    const path = readlinkSync("/proc/self/fd/0");
    if (path.startsWith("/dev/")) return path;
  } catch {
    // Not Linux: ask tty(1) below.
  }
  try {
    const out = execFileSync("tty", [], { stdio: [0, "pipe", "ignore"], encoding: "utf8" }).trim();
    return out.startsWith("/") ? out : null;
  } catch {
    return null;
  }
}
