/**
 * Signalling a process group: the one rule the host, the rpi runtime and the test harnesses share.
 * A child is started as the leader of its own group (detached), so signalling -pgid reaches it and
 * every descendant that stayed in the group. A pgid of 0 or 1 is never signalled: kill(0) is the
 * caller's own group and kill(-1) every process it may signal.
 *
 * Pure: the caller passes the platform (Node's `process`), so this package needs no Node API.
 */

/** What signals a process; Node's `process` is one. */
export interface SignalPlatform {
  kill(pid: number, signal: string): unknown;
}

/** The smallest pgid that names one group; 0 and 1 would hit the caller's group or everyone. */
const MIN_GROUP_ID = 2;

/**
 * Sends `signal` to the whole group `pgid` leads: "sent", or "gone" when no such group is left.
 * Throws a RangeError for a pgid that is not a safe integer of at least 2 (before signalling
 * anything) and rethrows any other failure of the kill (EPERM).
 */
export function signalProcessGroup(platform: SignalPlatform, pgid: number, signal: string): "sent" | "gone" {
  if (!Number.isSafeInteger(pgid) || pgid < MIN_GROUP_ID) {
    throw new RangeError(
      `refusing to signal process group ${pgid}: a group id is an integer of at least ${MIN_GROUP_ID}`,
    );
  }
  try {
    platform.kill(-pgid, signal);
    return "sent";
  } catch (err) {
    if ((err as { code?: unknown } | null)?.code === "ESRCH") return "gone";
    throw err;
  }
}

/**
 * SIGKILLs the group `pgid` leads, for teardown paths that must not throw: true when it was
 * signalled, false when there is no group to kill (undefined or refused pgid, gone, not ours).
 */
export function killProcessGroup(platform: SignalPlatform, pgid: number | undefined): boolean {
  if (pgid === undefined || !Number.isSafeInteger(pgid) || pgid < MIN_GROUP_ID) return false;
  try {
    return signalProcessGroup(platform, pgid, "SIGKILL") === "sent";
  } catch {
    return false;
  }
}
