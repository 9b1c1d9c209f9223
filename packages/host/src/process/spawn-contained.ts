/**
 * Spawning an extension the host's way, contained as the machine allows (containment.ts).
 *
 * Which tier the machine allows is known only from a real launch, once per host process. A
 * separate trial (setpriv, unshare and sh) costs 8-13 ms of CPU depending on the machine, and it
 * used to run before the first extension's start, so every fresh host (each `octet` command, a
 * cold start) paid it in full on the critical path. The first launch is now its own trial: it
 * starts wrapped for the namespace tier, and /proc shows when unshare's child has executed the
 * extension's command. unshare executes it only after the user and PID namespaces exist and
 * /proc is mounted in them, so seeing it is the verdict the trial would give, and it is cached.
 *
 * Where that cannot be seen (the launcher exited first, or nothing showed within a grace) the
 * separate trial decides after all:
 *   - namespaces allowed: the early child is the extension's (it exited on its own, or /proc
 *     could not tell); it is kept, exit included, and the generation sees it as always;
 *   - refused (the trial ran and failed) while the early launch ended unseen: it failed inside
 *     setpriv or unshare, before the extension's command ran. Its group is killed, its output
 *     dropped unread, and the extension is launched in its own group.
 * Anything else (a trial that timed out or could not start, an early launch still running) keeps
 * the early child: it may be running the extension already, and an extension is started once.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import {
  confirmNamespace,
  containmentAsync,
  knownContainment,
  presumedNamespace,
  type ContainmentTier,
} from "./containment.js";
import { readFirstChild, readProcExe, readProcStat, signalGroup } from "./process-group.js";
import { registerGroup, unregisterGroup } from "./registry.js";
import { spawnChild, type SpawnSpec } from "./spawn-child.js";

export interface ContainedChild {
  child: ChildProcessWithoutNullStreams;
  tier: ContainmentTier;
}

/**
 * How long a first launch is watched for its command before the separate trial is asked. The
 * launchers take milliseconds; the bound is for a command /proc cannot tell from unshare's fork
 * (one named unshare) on a machine too busy to run the chain sooner.
 */
const EXEC_SEEN_GRACE_MS = 2_000;
/** The longest pause between two looks at /proc while watching (the first are 1 ms apart). */
const MAX_POLL_MS = 16;

/** `stop` aborted (a stop began) ends the watch of a first launch at once: its caller discards the child. */
export async function spawnContained(
  spec: SpawnSpec,
  env: Readonly<Record<string, string | undefined>>,
  stop?: AbortSignal,
): Promise<ContainedChild> {
  const known = knownContainment(env);
  const presumed = known ? null : presumedNamespace();
  if (!presumed) {
    const contained = known ?? (await containmentAsync(env));
    return { child: await spawnChild(contained.wrap(spec)), tier: contained.tier };
  }
  // A command not found throws here, as it would behind the trial's verdict.
  const early = await spawnChild(presumed.wrap(spec));
  // Registered at once, as adoptChild does: an exiting host kills it even while it is watched.
  if ((early.pid ?? 0) > 1) registerGroup(early.pid!);
  const release = holdOutput(early);
  const seen = await commandSeen(early, EXEC_SEEN_GRACE_MS, stop);
  if (seen) confirmNamespace(presumed);
  const verdict = seen || stop?.aborted ? presumed : await containmentAsync(env);
  release();
  const endedUnseen = early.exitCode !== null || early.signalCode !== null;
  if (verdict.tier === presumed.tier || !verdict.refused || !endedUnseen || stop?.aborted)
    return { child: early, tier: presumed.tier };
  discard(early);
  return { child: await spawnChild(verdict.wrap(spec)), tier: verdict.tier };
}

/**
 * Whether the launcher's child (unshare's fork) shows another executable than unshare before the
 * launcher exits, `graceMs` pass or `stop` aborts. Needs /proc/<pid>/task/<pid>/children
 * (CONFIG_PROC_CHILDREN); without it this is false at once and the trial decides.
 */
function commandSeen(
  launcher: ChildProcessWithoutNullStreams,
  graceMs: number,
  stop: AbortSignal | undefined,
): Promise<boolean> {
  const pid = launcher.pid ?? 0;
  if (pid <= 1 || launcher.exitCode !== null || launcher.signalCode !== null || stop?.aborted)
    return Promise.resolve(false);
  return new Promise((resolve) => {
    const since = performance.now();
    let looks = 0;
    let timer: NodeJS.Timeout | undefined;
    const finish = (seen: boolean): void => {
      clearTimeout(timer);
      launcher.off("exit", onExit);
      stop?.removeEventListener("abort", onExit);
      resolve(seen);
    };
    const onExit = (): void => finish(false);
    const look = (): void => {
      const seen = execedBeyondUnshare(pid);
      if (seen !== "not yet") return finish(seen === "seen");
      const waited = performance.now() - since;
      if (waited >= graceMs) return finish(false);
      looks++;
      // 1 ms apart four times, then 2 ms four times, 4, 8, and 16 ms from then on.
      timer = setTimeout(look, Math.min(MAX_POLL_MS, 2 ** (looks >> 2), graceMs - waited));
    };
    launcher.once("exit", onExit);
    stop?.addEventListener("abort", onExit, { once: true });
    look();
  });
}

/** "cannot tell" without the children file (or once the launcher is gone): the trial decides at once. */
function execedBeyondUnshare(launcher: number): "seen" | "not yet" | "cannot tell" {
  const child = readFirstChild(launcher);
  if (child === "unreadable") return "cannot tell";
  if (child === null) return "not yet";
  // The program the fork runs, against the launcher's (unshare's by then: setpriv executes it in
  // place and does not fork); where /proc keeps programs to itself, the process names (a command
  // named unshare is then never seen, and the grace and the trial decide).
  const launcherExe = readProcExe(launcher);
  const childExe = readProcExe(child);
  if (launcherExe !== null && childExe !== null) return childExe !== launcherExe ? "seen" : "not yet";
  const comm = readProcStat(child)?.comm;
  return comm !== undefined && comm !== "unshare" ? "seen" : "not yet";
}

/**
 * Keeps a watched child's output for whoever adopts it. At a child's exit Node resumes its unread
 * stdout and stderr, dropping what they hold (child_process flushStdio), unless a 'readable'
 * listener keeps them paused; the caller's 'data' listeners take over once it is removed.
 */
function holdOutput(child: ChildProcessWithoutNullStreams): () => void {
  const hold = (): void => {};
  child.stdout.on("readable", hold);
  child.stderr.on("readable", hold);
  return () => {
    child.stdout.off("readable", hold);
    child.stderr.off("readable", hold);
  };
}

/** A refused first launch: its group killed, its pipes closed unread. */
function discard(child: ChildProcessWithoutNullStreams): void {
  if ((child.pid ?? 0) > 1) {
    try {
      signalGroup(child.pid!, "SIGKILL");
    } catch {
      // Already gone: setpriv or unshare exited at the refusal.
    }
    unregisterGroup(child.pid!);
  }
  child.stdin.destroy();
  child.stdout.destroy();
  child.stderr.destroy();
}
