/**
 * Every process group this host started and has not yet reaped. When the host's own process
 * exits for any reason the embedder did not clean up after (process.exit on a second Ctrl-C, an
 * uncaught exception), the groups still registered are killed synchronously from the 'exit'
 * hook, so no extension outlives its host by accident. A host killed with SIGKILL cannot run
 * this; there the SDK's exit on stdin EOF is the fallback (FRAME-12).
 */
import { signalGroup } from "./process-group.js";

const groups = new Set<number>();
let hooked = false;

export function registerGroup(pgid: number): void {
  groups.add(pgid);
  if (!hooked) {
    hooked = true;
    process.on("exit", killRegisteredGroups);
  }
}

export function unregisterGroup(pgid: number): void {
  groups.delete(pgid);
}

/** SIGKILLs every registered group; returns how many were signalled. Never throws. */
export function killRegisteredGroups(): number {
  let n = 0;
  for (const pgid of groups) {
    try {
      if (signalGroup(pgid, "SIGKILL") === "sent") n++;
    } catch {
      // EPERM or a refused pgid: nothing more can be done from an exit hook.
    }
  }
  groups.clear();
  return n;
}
