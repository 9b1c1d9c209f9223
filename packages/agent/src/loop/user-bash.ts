/**
 * pi's `!command` and `!!command`: a command the user runs in the session's workspace, whose
 * output goes into the model's context (`!`) or only into the session (`!!`). pi extensions may
 * take it over first (user_bash): an answer with a `result` replaces the run; one with
 * `operations` was run inside the extension, which answers with the result it collected (the rpi
 * prelude). Otherwise it runs as the bash tool runs a command: /bin/bash -c in its own process
 * group, output merged and kept to its last 50 KiB, killed whole by the signal or the timeout.
 * The run is recorded as a bash_execution entry, as pi records a bashExecution message; while a
 * prompt runs, the entry waits until it ends (pi defers it to agent_end, so it never falls between
 * a tool call and its result).
 */
import { realpath } from "node:fs/promises";
import type { SessionFile } from "../session/index.js";
import { BASH_MAX_OUTPUT_BYTES, BASH_MAX_TIMEOUT_S, runCommand } from "../tools/bash.js";
import type { PiEvents } from "./pi-events.js";

/** What a user command came to: pi's BashResult. */
export interface UserBashResult {
  output: string;
  /** null when cancelled, timed out or killed by a signal. */
  exitCode: number | null;
  cancelled: boolean;
  /** Output was dropped before `output`. */
  truncated: boolean;
  /** The extension whose user_bash answer gave the result, or null when octet ran it. */
  by: string | null;
  /** A note on how it ended that `output` does not say (a timeout), or null. */
  note: string | null;
}

export interface UserBashOptions {
  /** `!!`: recorded, never sent to the model. */
  excludeFromContext?: boolean;
  /** Aborting kills the command (Ctrl-C). */
  signal?: AbortSignal;
  /** Output as it comes, as text. */
  onOutput?: (text: string) => void;
}

export interface UserBashDeps {
  session: SessionFile;
  pi: PiEvents;
  /** Resolves when no prompt runs: the entry is appended then. */
  whenIdle: () => Promise<void>;
  closed: () => boolean;
}

/** A user command is not the model's: the longest timeout the bash tool allows, as a backstop to Ctrl-C. */
export const USER_BASH_TIMEOUT_S = BASH_MAX_TIMEOUT_S;

export async function runUserBash(
  command: string,
  deps: UserBashDeps,
  options: UserBashOptions = {},
): Promise<UserBashResult> {
  const excludeFromContext = options.excludeFromContext === true;
  const signal = options.signal ?? new AbortController().signal;
  const cwd = await realpath(deps.session.workspace);
  const result =
    (await fromExtensions(command, excludeFromContext, cwd, deps.pi, options)) ??
    (await local(command, cwd, signal, options));
  await deps.whenIdle();
  if (!deps.closed())
    await deps.session.append({
      type: "bash_execution",
      command,
      output: result.output,
      exit_code: result.exitCode,
      cancelled: result.cancelled,
      truncated: result.truncated,
      exclude_from_context: excludeFromContext,
    });
  return result;
}

async function fromExtensions(
  command: string,
  excludeFromContext: boolean,
  cwd: string,
  pi: PiEvents,
  options: UserBashOptions,
): Promise<UserBashResult | null> {
  if (!pi.takes("user_bash")) return null;
  const answer = await pi.userBash({ command, excludeFromContext, cwd }, options.signal, options.onOutput);
  if (answer === null) return null;
  const exitCode = answer["exitCode"];
  return {
    output: typeof answer["output"] === "string" ? answer["output"] : "",
    exitCode: typeof exitCode === "number" && Number.isSafeInteger(exitCode) ? exitCode : null,
    cancelled: answer["cancelled"] === true,
    truncated: answer["truncated"] === true,
    by: answer.extension,
    note: null,
  };
}

async function local(command: string, cwd: string, signal: AbortSignal, options: UserBashOptions) {
  // Cancelled while an extension had it (its user_bash was cancelled too): nothing more runs.
  if (signal.aborted) return { output: "", exitCode: null, cancelled: true, truncated: false, by: null, note: null };
  const decoder = new TextDecoder();
  const onOutput = options.onOutput;
  const done = await runCommand(command, {
    cwd,
    timeoutS: USER_BASH_TIMEOUT_S,
    signal,
    ...(onOutput ? { onData: (chunk: Buffer) => onOutput(decoder.decode(chunk, { stream: true })) } : {}),
  });
  const note =
    done.ending === "timeout"
      ? `timed out after ${USER_BASH_TIMEOUT_S} s: the command and everything it started were killed`
      : done.ending === "spawn-error"
        ? `bash cannot run: ${done.error}`
        : done.ending === "held"
          ? "background processes it started still hold its output, which is no longer read"
          : null;
  const result: UserBashResult = {
    // pi's text of a run ends without the last newline (bashExecutionToText adds the fence's).
    output: done.text.endsWith("\n") ? done.text.slice(0, -1) : done.text,
    exitCode: done.ending === "cancelled" || done.ending === "timeout" ? null : done.exitCode,
    cancelled: done.ending === "cancelled",
    truncated: done.dropped > 0,
    by: null,
    note:
      note ??
      (done.dropped > 0
        ? `the first ${done.dropped} bytes were dropped (${BASH_MAX_OUTPUT_BYTES / 1024} KiB kept)`
        : null),
  };
  return result;
}
