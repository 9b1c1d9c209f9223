/**
 * The end of an extension's stdout where the host cannot see it as EOF. Behind the PID-namespace
 * launcher (containment.ts) the launcher waits for the extension with the same stdout pipe still
 * open (unshare --fork keeps its stdio), so when the extension closes its stdout, or points fd 1
 * elsewhere, the host's end of the pipe never reads EOF. This watch compares, once a period, the
 * extension's fd 1 with the launcher's (the pipe the host reads); as soon as they differ the
 * transport has ended. Two readlinks per period per extension; the timer never holds the host up.
 */
import { existsSync, readlinkSync } from "node:fs";
import { extensionPid } from "../process/containment.js";

export const STDOUT_WATCH_PERIOD_MS = 500;

export function watchNamespacedStdout(launcherPid: number, onEnded: () => void, until: AbortSignal, periodMs: number = STDOUT_WATCH_PERIOD_MS): void {
  if (until.aborted) return;
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
    const pipe = target(launcherPid);
    const own = target(pid);
    // Unreadable (a process between fork and exec, or gone): nothing can be concluded yet.
    if (pipe === "closed" || pipe === "unreadable" || own === pipe || own === "unreadable") return;
    clearInterval(timer);
    onEnded();
  }, periodMs);
  timer.unref();
  until.addEventListener("abort", () => clearInterval(timer), { once: true });
}

function exe(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** What fd 1 of `pid` is open on ("socket:[123]"), "closed", or "unreadable" (no access, or no process). */
function target(pid: number): string {
  try {
    return readlinkSync(`/proc/${pid}/fd/1`);
  } catch (err) {
    // /proc/PID/fd/1 is missing when fd 1 is closed; a process that is gone has no /proc/PID/fd.
    return (err as NodeJS.ErrnoException).code === "ENOENT" && existsSync(`/proc/${pid}/fd`) ? "closed" : "unreadable";
  }
}
