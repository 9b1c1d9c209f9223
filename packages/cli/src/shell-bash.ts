/**
 * The shell's `!command` and `!!command` (pi's): the command runs in the workspace through the
 * agent (Agent.userBash: a pi extension's user_bash may take it over, else the bash tool's
 * backend runs it), its output is drawn as it comes, and it is recorded in the session: in the
 * model's context for `!`, kept out of it for `!!`. Ctrl-C kills it (the line's signal). A run
 * an extension's message started goes first, as for a typed prompt: pi records a command typed
 * during a run after the run, and the shell runs one line at a time.
 */
import type { Agent } from "@octet/agent";
import { paint, terminalSafe } from "./output.js";
import { UsageError } from "./usage-error.js";

/** `!cmd` / `!!cmd` as the shell reads it; null for a line that is not one. */
export function parseBang(line: string): { command: string; excludeFromContext: boolean } | null {
  if (!line.startsWith("!")) return null;
  const excludeFromContext = line.startsWith("!!");
  return { command: line.slice(excludeFromContext ? 2 : 1).trim(), excludeFromContext };
}

export async function runBang(
  agent: Agent,
  bang: { command: string; excludeFromContext: boolean },
  signal: AbortSignal,
): Promise<void> {
  if (bang.command === "")
    throw new UsageError(
      "usage: !COMMAND runs COMMAND and adds its output to the model's context; !!COMMAND keeps it out",
    );
  if (!agent.isIdle())
    process.stdout.write(`${paint("dim", "(the command waits for the running prompt)", process.stdout)}\n`);
  while (!agent.isIdle() && !signal.aborted) await new Promise((r) => setTimeout(r, 50));
  if (signal.aborted) {
    process.stdout.write("cancelled before it ran: nothing recorded\n");
    return;
  }
  let drawn = "";
  const result = await agent.userBash(bang.command, {
    excludeFromContext: bang.excludeFromContext,
    signal,
    onOutput: (text) => {
      const safe = terminalSafe(text);
      drawn += safe;
      process.stdout.write(safe);
    },
  });
  // An extension's {result} answer was not streamed: it is drawn now.
  if (drawn === "" && result.output !== "") {
    drawn = terminalSafe(result.output);
    process.stdout.write(drawn);
  }
  if (drawn !== "" && !drawn.endsWith("\n")) process.stdout.write("\n");
  const notes: string[] = [];
  if (result.by !== null) notes.push(`run by extension ${result.by}`);
  if (result.note !== null) notes.push(result.note);
  else if (result.truncated) notes.push("output truncated");
  notes.push(
    result.cancelled ? "cancelled" : result.exitCode !== null ? `exit code ${result.exitCode}` : "no exit code",
  );
  notes.push(bang.excludeFromContext ? "kept out of the model's context" : "added to the model's context");
  process.stdout.write(`${paint("dim", `[${notes.join("; ")}]`, process.stdout)}\n`);
}
