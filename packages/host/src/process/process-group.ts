/**
 * Process-group signalling and liveness, read from /proc. A child is started as the leader of
 * its own group (detached), so signalling -pgid reaches its descendants that stayed in the group.
 * Liveness never uses kill(pid, 0): a zombie answers it.
 */
import { readFileSync, readdirSync, readlinkSync } from "node:fs";
import { signalProcessGroup } from "@octet/protocol";

/** Sends `signal` to the whole group. Refuses pgid <= 1, which would hit our group or everyone. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): "sent" | "gone" {
  return signalProcessGroup(process, pgid, signal);
}

interface ProcStat {
  pid: number;
  /** The executable's name as the kernel keeps it (at most 15 bytes); an exec changes it. */
  comm: string;
  state: string;
  ppid: number;
  pgid: number;
  /** When the process started, in clock ticks since boot: with the pid, it names one process. */
  start: number;
}

/** Parses /proc/<pid>/stat; the command name may contain spaces and parentheses. */
export function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  const close = text.lastIndexOf(")");
  if (close === -1) return null;
  const fields = text.slice(close + 2).split(" ");
  const [state, ppid, pgid] = [fields[0], Number(fields[1]), Number(fields[2])];
  if (state === undefined) return null;
  const comm = text.slice(text.indexOf("(") + 1, close);
  return { pid, comm, state, ppid, pgid, start: Number(fields[19]) };
}

/**
 * A process's first child from /proc/<pid>/task/<pid>/children: null when it has none, "unreadable"
 * when the file cannot be read (the process is gone, or the kernel lacks CONFIG_PROC_CHILDREN).
 */
export function readFirstChild(pid: number): number | null | "unreadable" {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8");
  } catch {
    return "unreadable";
  }
  const first = Number(text.trim().split(/\s+/)[0]);
  return Number.isInteger(first) && first > 1 ? first : null;
}

/** The program a process runs (/proc/<pid>/exe), or null when /proc does not say (gone, or no access). */
export function readProcExe(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/exe`);
  } catch {
    return null;
  }
}

/** True when the process exists and is not a zombie or dead. */
export function isAlive(pid: number): boolean {
  const stat = readProcStat(pid);
  return stat !== null && stat.state !== "Z" && stat.state !== "X";
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of entries) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const stat = readProcStat(pid);
    if (stat && stat.pgid === pgid && stat.state !== "Z" && stat.state !== "X") out.push(pid);
  }
  return out;
}
