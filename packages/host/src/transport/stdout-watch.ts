/**
 * The end of an extension's stdout where the host cannot see it as EOF. Behind the PID-namespace
 * launcher (containment.ts) the launcher waits for the extension with the same stdout pipe still
 * open (unshare --fork keeps its stdio), so when the extension closes its stdout the host's end
 * of the pipe never reads EOF. This watch asks, once a period, whether the extension process
 * still holds the pipe the host reads on any descriptor: not only fd 1, since an SDK may keep the
 * wire on a private duplicate and point fd 1 at stderr (the Python SDK does, so print() cannot
 * corrupt the wire). The descriptor last seen on the pipe is checked first, so the steady state
 * costs two readlinks per period; the timer never holds the host up. Only the extension process
 * itself is asked (/proc has no cheap list of its descendants here): one that hands its stdout
 * to a child and closes its own is taken as ended, as its frames can no longer be its own.
 */
import { existsSync, readdirSync, readlinkSync } from "node:fs";
import { extensionPid } from "../process/containment.js";
import { readProcExe as exe } from "../process/process-group.js";

export const STDOUT_WATCH_PERIOD_MS = 500;

export function watchNamespacedStdout(
  launcherPid: number,
  onEnded: () => void,
  until: AbortSignal,
  periodMs: number = STDOUT_WATCH_PERIOD_MS,
): void {
  if (until.aborted) return;
  let holder = 1; // the extension's descriptor last seen on the pipe
  const timer = setInterval(() => {
    // Until the launcher is unshare (a wrapper before it may still be running), its first
    // child is not the extension.
    const launcher = exe(launcherPid);
    if (launcher === null || !launcher.endsWith("/unshare")) return;
    const pid = extensionPid(launcherPid, "pid-namespace");
    if (pid === launcherPid) return; // not forked yet, or already gone: the exit speaks for itself
    // Until the child has executed the extension (its program differs from the launcher's), its
    // descriptors say nothing about the extension's.
    const program = exe(pid);
    if (program === null || program === launcher) return;
    const pipe = target(launcherPid, 1);
    // Unreadable (a process between fork and exec, or gone): nothing can be concluded yet.
    if (pipe === "closed" || pipe === "unreadable") return;
    if (target(pid, holder) === pipe) return;
    const found = findHolder(pid, pipe);
    if (found === "unreadable") return;
    if (found !== null) {
      holder = found;
      return;
    }
    clearInterval(timer);
    onEnded();
  }, periodMs);
  timer.unref();
  until.addEventListener("abort", () => clearInterval(timer), { once: true });
}

/** What descriptor `fd` of `pid` is open on ("pipe:[123]"), "closed", or "unreadable" (no access, or no process). */
function target(pid: number, fd: number): string {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch (err) {
    // /proc/PID/fd/N is missing when fd N is closed; a process that is gone has no /proc/PID/fd.
    return (err as NodeJS.ErrnoException).code === "ENOENT" && existsSync(`/proc/${pid}/fd`) ? "closed" : "unreadable";
  }
}

/** The descriptor of `pid` open on `pipe`, null when none is, "unreadable" when /proc says nothing. */
function findHolder(pid: number, pipe: string): number | null | "unreadable" {
  let names: string[];
  try {
    names = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return "unreadable";
  }
  for (const name of names) if (target(pid, Number(name)) === pipe) return Number(name);
  return null;
}
