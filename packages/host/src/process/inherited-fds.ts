/**
 * A child gets stdin, stdout and stderr, and nothing it could use besides (issue 13). Node's
 * spawn passes every descriptor of the host that is open without close-on-exec: those Node opens
 * itself are close-on-exec, but those the host process inherited are not (a shell's
 * `exec 77<secret` before `octet ...` left fd 77 open in every extension, PID namespace or not).
 *
 * Node cannot set close-on-exec or close a descriptor in the child, and closing them in the host
 * would take them from an embedder that may own them. A shell step in the child could close
 * them, but it changes the environment the child gets (bash exports SHLVL and PWD on exec,
 * against ENV-05). So each such descriptor is given /dev/null in the child instead, through
 * spawn's own stdio table: the number stays open, on nothing.
 */
import { closeSync, openSync, readFileSync, readdirSync } from "node:fs";

/** O_CLOEXEC as /proc/<pid>/fdinfo reports it in "flags" (octal; x86, ARM, RISC-V, PowerPC). */
const O_CLOEXEC = 0o2000000;

/** Descriptors above 2 of this process that a spawned child would inherit (Linux; else none). */
export function inheritableFds(): number[] {
  if (process.platform !== "linux") return [];
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd <= 2) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    } catch {
      continue; // the handle readdirSync listed with, closed since
    }
    const flags = /^flags:\s*([0-7]+)/m.exec(info)?.[1];
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}

export interface NulledFds {
  /** stdio entries past 0-2 for spawn: /dev/null at each inheritable descriptor. */
  extraStdio: ("ignore" | number)[];
  /** Closes the host's /dev/null handle; call once spawn() has returned. */
  release: () => void;
}

export function nullInheritedFds(fds: readonly number[] = inheritableFds()): NulledFds {
  if (fds.length === 0) return { extraStdio: [], release: () => undefined };
  const devNull = openSync("/dev/null", "r");
  const extraStdio: ("ignore" | number)[] = Array.from({ length: Math.max(...fds) - 2 }, () => "ignore");
  for (const fd of fds) extraStdio[fd - 3] = devNull;
  return { extraStdio, release: () => closeSync(devNull) };
}
