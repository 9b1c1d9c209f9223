/**
 * Real child processes for host unit tests: read what they print with a deadline, and always kill
 * their whole group afterwards.
 */
import type { ChildProcess } from "node:child_process";
import { killProcessGroup } from "@octet/protocol";
import { withDeadline } from "./wait.js";

/** All of the child's stdout up to its first LF (without it), within `ms`. */
export function firstLine(child: ChildProcess, ms = 5_000): Promise<string> {
  const stdout = child.stdout;
  if (!stdout) return Promise.reject(new Error("child has no stdout pipe"));
  return withDeadline(
    new Promise<string>((resolve, reject) => {
      let text = "";
      const onData = (chunk: Buffer): void => {
        text += chunk.toString("utf8");
        const nl = text.indexOf("\n");
        if (nl !== -1) {
          stdout.off("data", onData);
          resolve(text.slice(0, nl));
        }
      };
      stdout.on("data", onData);
      stdout.once("end", () => reject(new Error(`stdout ended before a line; got ${JSON.stringify(text)}`)));
    }),
    ms,
    "the child's first line",
  );
}

/** Everything the child writes to stdout until it closes, within `ms`. */
export function allStdout(child: ChildProcess, ms = 5_000): Promise<string> {
  const stdout = child.stdout;
  if (!stdout) return Promise.reject(new Error("child has no stdout pipe"));
  let text = "";
  stdout.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
  return withDeadline(
    new Promise<string>((resolve) => stdout.once("end", () => resolve(text))),
    ms,
    "the child's stdout to end",
  );
}

/** Resolves when the child has exited (immediately if it already has), within `ms`. */
export function exited(child: ChildProcess, ms = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return withDeadline(
    new Promise<void>((resolve) => child.once("exit", () => resolve())),
    ms,
    `child ${child.pid} to exit`,
  );
}

/** SIGKILLs the group led by `pgid` (a detached child's pid), ignoring a group already gone. */
export function killGroup(pgid: number | undefined): void {
  killProcessGroup(process, pgid);
}

/** Kills the child's group and waits for the child to exit. */
export async function cleanup(child: ChildProcess | undefined): Promise<void> {
  if (!child) return;
  killGroup(child.pid);
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
  await exited(child);
}
