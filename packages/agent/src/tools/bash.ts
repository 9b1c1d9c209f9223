/**
 * The bash tool: `/bin/bash -c COMMAND` in the workspace, as the leader of its own process group so
 * that a timeout or a cancellation reaches everything the command started (SIGTERM to the group,
 * SIGKILL 2 s later). stdin is closed; stdout and stderr are one pipe, so the output keeps its
 * order. The answer keeps the last 50 KiB of output, notes what was dropped and ends with the exit
 * code; a non-zero exit, a timeout and a cancellation are errors.
 */
import { spawn } from "node:child_process";
import { realpath } from "node:fs/promises";
import { killProcessGroup, signalProcessGroup } from "@octet/protocol";
import { checkArgs } from "./args.js";
import { OutputTail } from "./output-tail.js";
import {
  argText,
  type BuiltinContext,
  type BuiltinResult,
  type BuiltinTool,
  cancelledResult,
  describeFsError,
  displayLine,
  errorResult,
} from "./types.js";

export const BASH_DEFAULT_TIMEOUT_S = 120;
export const BASH_MAX_TIMEOUT_S = 600;
export const BASH_MAX_OUTPUT_BYTES = 50 * 1024;
/** Between SIGTERM to the group and SIGKILL: time for a clean exit, short enough for Ctrl-C. */
const KILL_GRACE_MS = 2000;
const UPDATE_INTERVAL_MS = 100;
/**
 * After the shell exits, how long its output pipe may stay open. A background process (`server &`)
 * inherits the pipe; waiting for it would hold the call until the timeout.
 */
const DRAIN_AFTER_EXIT_MS = 500;
/**
 * The outer shell makes stderr a copy of stdout and execs the command's shell in its place (same
 * pid, so the group leader stays): one pipe keeps the two streams' order, which two pipes lose.
 */
const MERGE_STREAMS = 'exec /bin/bash -c "$1" 2>&1';

const SPEC = {
  command: { type: "string", required: true, nonEmpty: true },
  timeout: { type: "number", min: 0, minExclusive: true, max: BASH_MAX_TIMEOUT_S },
} as const;

export const bashTool: BuiltinTool = {
  name: "bash",
  description:
    "Run a command with /bin/bash -c in the workspace folder. stdin is closed; stdout and stderr come back " +
    `merged. timeout is in seconds (default ${BASH_DEFAULT_TIMEOUT_S}, at most ${BASH_MAX_TIMEOUT_S}); on timeout ` +
    `the command and everything it started are killed. Only the last ${BASH_MAX_OUTPUT_BYTES / 1024} KiB of ` +
    "output are kept (a note says how much was dropped), so filter large output (grep, head, tail). The answer " +
    "ends with the exit code; a non-zero exit is an error. Give a background process its own output file " +
    "(cmd > log 2>&1 &): its output is not waited for.",
  parameters: {
    type: "object",
    properties: {
      command: { type: "string", description: "The bash command line" },
      timeout: {
        type: "number",
        exclusiveMinimum: 0,
        maximum: BASH_MAX_TIMEOUT_S,
        description: `Seconds before the command is killed (default ${BASH_DEFAULT_TIMEOUT_S})`,
      },
    },
    required: ["command"],
  },
  mutates: true,
  summary(args) {
    const timeout = args?.["timeout"];
    const limit = typeof timeout === "number" ? ` (timeout ${timeout} s)` : "";
    // Long: the person approving should see the whole command, escaped so nothing in it can hide.
    return `bash: ${displayLine(argText(args, "command"), 1000)}${limit}`;
  },
  execute: (args, ctx) => runBash(args, ctx),
};

async function runBash(args: Record<string, unknown>, ctx: BuiltinContext): Promise<BuiltinResult> {
  const checked = checkArgs("bash", args, SPEC);
  if (!checked.ok) return errorResult(checked.error);
  const command = checked.values["command"] as string;
  const timeoutS = (checked.values["timeout"] as number | undefined) ?? BASH_DEFAULT_TIMEOUT_S;
  if (ctx.signal.aborted) return cancelledResult("bash");
  let cwd: string;
  try {
    cwd = await realpath(ctx.workspace);
  } catch (err) {
    return errorResult(`bash cannot run: the workspace ${ctx.workspace} cannot be used: ${describeFsError(err)}`);
  }
  if (ctx.signal.aborted) return cancelledResult("bash");
  const outcome = await runCommand(command, { cwd, timeoutS, signal: ctx.signal, onUpdate: ctx.onUpdate });
  return bashResult(outcome, timeoutS);
}

/** How a command run ended, before it is put as a tool answer (bashResult) or a user `!` result. */
export interface CommandOutcome {
  /** "held": exited, but a background process kept the output pipe open. */
  ending: "closed" | "held" | "timeout" | "cancelled" | "spawn-error";
  /** The kept tail of the merged output and how many bytes before it were dropped. */
  text: string;
  dropped: number;
  total: number;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why it could not start (spawn-error). */
  error?: string;
}

export interface CommandOptions {
  /** An existing directory (the workspace's real path). */
  cwd: string;
  timeoutS: number;
  signal: AbortSignal;
  /** The output so far, at most every 100 ms. */
  onUpdate?: ((text: string) => void) | undefined;
  /** Each chunk of output as it comes (the shell's `!` streams it). */
  onData?: ((chunk: Buffer) => void) | undefined;
}

/**
 * Runs `/bin/bash -c command` as the bash tool does (own process group, merged output, its tail,
 * the timeout, the signal kills the group); the shell's `!command` runs through it too.
 */
export function runCommand(command: string, options: CommandOptions): Promise<CommandOutcome> {
  return new Promise<CommandOutcome>((resolve) => new BashRun(command, options, resolve).start());
}

type Ending = CommandOutcome["ending"];

/**
 * Groups of runs still going, or being killed: when octet itself exits (a second Ctrl-C exits at
 * once), they are killed whole, so no command outlives it unasked. A run that ended by itself
 * leaves the set, and whatever it started in the background (`server &`) is left running.
 */
const liveGroups = new Set<number>();
let exitHook = false;

function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHook) return;
  exitHook = true;
  process.on("exit", () => {
    for (const g of liveGroups) {
      try {
        killProcessGroup(process, g);
      } catch {
        // Already gone.
      }
    }
  });
}

/** One command's run: the child, its timers and how it ended. */
class BashRun {
  private readonly tail = new OutputTail(BASH_MAX_OUTPUT_BYTES);
  private child: ReturnType<typeof spawn> | undefined;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  private settled = false;
  /** Set when the timeout fired: whatever way the run then ends, it ends as a timeout. */
  private timedOut = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private updateTimer: NodeJS.Timeout | undefined;
  private lastUpdate = 0;
  private readonly onAbort = () => this.kill("cancelled");

  constructor(
    private readonly command: string,
    private readonly ctx: CommandOptions,
    private readonly resolve: (r: CommandOutcome) => void,
  ) {}

  start(): void {
    const child = spawn("/bin/bash", ["-c", MERGE_STREAMS, "bash", this.command], {
      cwd: this.ctx.cwd,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    this.child = child;
    if (child.pid !== undefined) trackGroup(child.pid);
    child.on("error", (err) => this.finish("spawn-error", err));
    // stderr carries only the outer shell's own complaints (the command's stderr is merged into stdout).
    for (const stream of [child.stdout, child.stderr]) stream?.on("data", (chunk: Buffer) => this.output(chunk));
    child.on("exit", (code, signal) => {
      this.exit = { code, signal };
      this.later(DRAIN_AFTER_EXIT_MS, () => this.finish("held"));
    });
    child.on("close", () => this.finish("closed"));
    this.later(this.ctx.timeoutS * 1000, () => this.kill("timeout"));
    this.ctx.signal.addEventListener("abort", this.onAbort, { once: true });
    // Aborted before the listener was added: no event will come.
    if (this.ctx.signal.aborted) this.kill("cancelled");
  }

  private output(chunk: Buffer): void {
    this.tail.push(chunk);
    if (!this.settled) this.ctx.onData?.(chunk);
    const onUpdate = this.ctx.onUpdate;
    if (onUpdate === undefined || this.updateTimer !== undefined || this.settled) return;
    const wait = Math.max(0, this.lastUpdate + UPDATE_INTERVAL_MS - Date.now());
    this.updateTimer = setTimeout(() => {
      this.updateTimer = undefined;
      if (this.settled) return;
      this.lastUpdate = Date.now();
      onUpdate(this.tail.text().text);
    }, wait);
  }

  /** Ends the group: SIGTERM now, SIGKILL after the grace. A cancellation answers at once. */
  private kill(why: "timeout" | "cancelled"): void {
    if (this.settled) return;
    const pgid = this.child?.pid;
    if (pgid !== undefined) {
      try {
        signalProcessGroup(process, pgid, "SIGTERM");
      } catch {
        // EPERM cannot happen for our own child's group; the SIGKILL below is the backstop anyway.
      }
      // Not cleared by finish(): whatever ignored SIGTERM must still go, after the answer too.
      setTimeout(() => {
        killProcessGroup(process, pgid);
        liveGroups.delete(pgid);
      }, KILL_GRACE_MS);
    }
    if (why === "cancelled") {
      this.finish("cancelled");
      return;
    }
    // The pipe closes when the group is gone; if something left the group and holds it, stop waiting.
    this.timedOut = true;
    this.later(KILL_GRACE_MS + DRAIN_AFTER_EXIT_MS, () => this.finish("timeout"));
  }

  private finish(ending: Ending, err?: Error): void {
    if (this.settled) return;
    this.settled = true;
    // Ended by itself: what it left in the background is the user's. Killed: the SIGKILL timer removes it.
    if ((ending === "closed" || ending === "held" || ending === "spawn-error") && this.child?.pid !== undefined)
      liveGroups.delete(this.child.pid);
    for (const t of this.timers) clearTimeout(t);
    if (this.updateTimer !== undefined) clearTimeout(this.updateTimer);
    this.ctx.signal.removeEventListener("abort", this.onAbort);
    // Our ends of the pipes: a process still holding the other end no longer keeps this one alive.
    this.child?.stdout?.destroy();
    this.child?.stderr?.destroy();
    this.resolve(this.result(this.timedOut && ending !== "cancelled" ? "timeout" : ending, err));
  }

  private result(ending: Ending, err?: Error): CommandOutcome {
    const { text, dropped } = this.tail.text();
    return {
      ending,
      text,
      dropped,
      total: this.tail.total,
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      ...(ending === "spawn-error" ? { error: describeFsError(err) } : {}),
    };
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }
}

/** A run as the bash tool answers it: the output tail, notes on what happened, the exit code. */
function bashResult(outcome: CommandOutcome, timeoutS: number): BuiltinResult {
  const { ending, text, dropped } = outcome;
  if (ending === "spawn-error") return errorResult(`bash cannot run: ${outcome.error}`);
  const details: Record<string, unknown> = {
    exitCode: outcome.exitCode,
    signal: outcome.signal,
    outputBytes: outcome.total,
    droppedBytes: dropped,
  };
  const notes: string[] = [];
  if (dropped > 0) {
    notes.push(
      `the first ${dropped} bytes of output were dropped; the last ${BASH_MAX_OUTPUT_BYTES / 1024} KiB are shown`,
    );
  }
  let isError = true;
  if (ending === "cancelled") {
    details["cancelled"] = true;
    notes.push("cancelled: the command and everything it started were killed");
  } else if (ending === "timeout") {
    details["timedOut"] = true;
    notes.push(`timed out after ${timeoutS} s: the command and everything it started were killed`);
  } else {
    if (ending === "held") {
      notes.push(
        "the command exited, but processes it started in the background still hold its output, which is no " +
          "longer read; redirect their output to a file (cmd > log 2>&1 &)",
      );
    }
    const code = outcome.exitCode;
    const signal = outcome.signal;
    notes.push(code !== null ? `exit code ${code}` : `killed by ${signal ?? "a signal"}`);
    isError = code !== 0;
  }
  const body = text === "" ? "(no output)" : text.endsWith("\n") ? text.slice(0, -1) : text;
  const answer = `${body}\n\n[${notes.join("; ")}]`;
  return isError ? errorResult(answer, details) : { content: [{ type: "text", text: answer }], isError, details };
}
