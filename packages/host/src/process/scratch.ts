/**
 * Generation scratch directories: private (mkdtemp, mode 0700, ENV-03), removed when the
 * generation ends, and named after the host process that made them,
 *
 *   <tmp>/octet-scratch-<host pid>.<host start time>-<extension>-<generation>-XXXXXX
 *
 * so that the directories of a host that died without cleaning up (SIGKILL, a crash, power
 * loss) can be told from those of a live host, and removed by the next host to start (issue
 * 13). The start time (clock ticks since boot, /proc/<pid>/stat) tells a reused pid from the
 * host that made the directory; where /proc is missing it is 0, and then only whether the pid is
 * alive is checked (kill 0): a stale directory may then be kept, a live one is never removed.
 */
import { lstat, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readProcStat } from "./process-group.js";

const PREFIX = "octet-scratch-";
const OWNED = /^octet-scratch-(\d+)\.(\d+)-/;

/** A new private directory for one generation, named after this host process. */
export function createScratch(extension: string, generation: number, root: string = tmpdir()): Promise<string> {
  return mkdtemp(join(root, `${PREFIX}${process.pid}.${startTime(process.pid) ?? 0}-${extension}-${generation}-`));
}

/** removeStaleScratch() of the temp folder in the background, as a host starts; never fails. */
export function sweepStaleScratch(): Promise<string[]> {
  return removeStaleScratch().catch(() => []);
}

/**
 * Removes the scratch directories under `root` whose host process is gone, and returns their
 * paths. Only directories of this user are touched (never a symlink, never another user's), and
 * only names in the owned format: older unowned names are left alone, as they cannot be judged.
 */
export async function removeStaleScratch(root: string = tmpdir()): Promise<string[]> {
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of await readdir(root)) {
    const owner = OWNED.exec(name);
    if (!owner || hostAlive(Number(owner[1]), Number(owner[2]))) continue;
    const path = join(root, name);
    try {
      const st = await lstat(path);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      await rm(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // Gone meanwhile, or not ours to remove: either way nothing to do.
    }
  }
  return removed;
}

function hostAlive(pid: number, start: number): boolean {
  if (pid === process.pid) return true;
  // With /proc (ours readable, and a start time in the name): alive, and the same process only
  // if it started at the same tick. Without either, the pid alone decides: a live pid keeps its
  // directories, so a host that cannot read /proc never removes a live host's.
  if (start !== 0 && startTime(process.pid) !== null) {
    const now = startTime(pid);
    return now !== null && now === start;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The start time of a live (non-zombie) process, or null. */
function startTime(pid: number): number | null {
  const stat = readProcStat(pid);
  return stat === null || stat.state === "Z" || stat.state === "X" || !Number.isInteger(stat.start) ? null : stat.start;
}
