/**
 * One writer per session: `<session>.lock`, created with O_EXCL and holding {pid, hostname,
 * started}. A lock whose pid is dead on this host is stale (the writer crashed or was killed)
 * and is taken over, with a warning. Held locks are also removed by a synchronous exit hook,
 * since a process that exits without close() still runs 'exit' handlers.
 */
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { hostname } from "node:os";

export interface LockInfo {
  pid: number;
  hostname: string;
  started: number;
}

/** Thrown when another live process holds the session's lock. */
export class SessionLockedError extends Error {
  override readonly name = "SessionLockedError";
  constructor(
    readonly lockPath: string,
    readonly holder: LockInfo | null,
  ) {
    const who = holder
      ? `process ${holder.pid} on ${holder.hostname} (since ${new Date(holder.started).toISOString()})`
      : "another process (its lock file is unreadable; delete it if no other octet uses this session)";
    super(
      `session is in use by ${who}: ${lockPath}; close the other octet, or start a new session ` +
        "(if no octet uses it, delete that lock file)",
    );
  }
}

const held = new Set<string>();
let hooked = false;

function releaseAllSync(): void {
  for (const p of held) {
    try {
      unlinkSync(p);
    } catch {
      // Already gone: nothing to release.
    }
  }
  held.clear();
}

function readLock(path: string): { text: string; info: LockInfo | null } | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
  try {
    const v = JSON.parse(text) as Partial<LockInfo>;
    if (Number.isSafeInteger(v.pid) && typeof v.hostname === "string" && typeof v.started === "number") {
      return { text, info: v as LockInfo };
    }
  } catch {
    // Unreadable: reported as held by an unknown process.
  }
  return { text, info: null };
}

/** Whether `pid` is a live process on this host. EPERM means it lives under another user. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function tryCreate(path: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  try {
    const info: LockInfo = { pid: process.pid, hostname: hostname(), started: Date.now() };
    writeSync(fd, `${JSON.stringify(info)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

/**
 * Takes the lock at `path` or throws SessionLockedError. Returns warnings (a stale lock taken
 * over). A stale lock is moved aside by rename before it is deleted: if two openers race for it,
 * only one rename finds the stale file, and a later rename that moved a fresh lock puts it back.
 */
export function acquireLock(path: string): string[] {
  const warnings: string[] = [];
  for (let attempt = 0; attempt < 3; attempt++) {
    if (tryCreate(path)) {
      held.add(path);
      if (!hooked) {
        hooked = true;
        process.on("exit", releaseAllSync);
      }
      return warnings;
    }
    const current = readLock(path);
    if (current === null) continue; // Released between our create and our read: try again.
    const info = current.info;
    // Our own pid holds it only if this process took it: a second SessionFile here must not share
    // the file; but a lock with our pid that we never took was left by an earlier process that got
    // the same pid (containers start octet as pid 1 every time), and is stale.
    const ours = info !== null && info.pid === process.pid;
    if (info === null || info.hostname !== hostname() || (ours && held.has(path)) || (!ours && alive(info.pid))) {
      throw new SessionLockedError(path, info);
    }
    const aside = `${path}.stale-${process.pid}-${Date.now()}`;
    try {
      renameSync(path, aside);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw e;
    }
    const moved = readLock(aside);
    if (moved?.text !== current.text) {
      // We moved a lock someone took after our read: give it back and report it as held.
      try {
        linkSync(aside, path);
      } finally {
        unlinkSync(aside);
      }
      throw new SessionLockedError(path, moved?.info ?? null);
    }
    unlinkSync(aside);
    warnings.push(
      `took over a stale lock ${path}: process ${info.pid} on ${info.hostname} is gone ` +
        "(it ended without closing the session)",
    );
  }
  throw new SessionLockedError(path, readLock(path)?.info ?? null);
}

/** Releases a lock this process holds; idempotent. */
export function releaseLock(path: string): void {
  if (!held.delete(path)) return;
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}
