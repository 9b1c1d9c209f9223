/**
 * The end of an extension's stdout where the host cannot see it as EOF. Behind the PID-namespace
 * launcher (containment.ts) the launcher waits for the extension with the same stdout pipe still
 * open (unshare --fork keeps its stdio), so when the extension closes its stdout, or points fd 1
 * elsewhere, the host's end of the pipe never reads EOF. This watch compares, once a period, the
 * extension's fd 1 with the launcher's (the pipe the host reads); as soon as they differ the
 * transport has ended. Two readlinks per period per extension; the timer never holds the host up.
 */
import { readlinkSync } from "node:fs";
import { extensionPid } from "../process/containment.js";

export const STDOUT_WATCH_PERIOD_MS = 500;

export function watchNamespacedStdout(launcherPid: number, onEnded: () => void, until: AbortSignal, periodMs: number = STDOUT_WATCH_PERIOD_MS): void {
  if (until.aborted) return;
  const timer = setInterval(() => {
    const pid = extensionPid(launcherPid, "pid-namespace");
    if (pid === launcherPid) return; // not forked yet, or already gone: the exit speaks for itself
    const pipe = target(launcherPid);
    if (pipe === null) return;
    const own = target(pid);
    if (own === pipe) return;
    clearInterval(timer);
    onEnded();
  }, periodMs);
  timer.unref();
  until.addEventListener("abort", () => clearInterval(timer), { once: true });
}

/** What fd 1 of `pid` is open on ("socket:[123]"), or null if it is closed or cannot be read. */
function target(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/fd/1`);
  } catch {
    return null;
  }
}
