/**
 * A child gets stdin, stdout and stderr, and nothing else (issue 13). Node's spawn passes every
 * descriptor of the host that is open without close-on-exec: descriptors Node opens itself are
 * close-on-exec, but those the host process inherited are not (a shell's `exec 77<secret`
 * before `octet ...` leaves fd 77 open in every extension, PID namespace or not). Node cannot
 * set close-on-exec, and closing them in the host would take them from an embedder that may own
 * them; so they are closed in the child, between fork and the extension: the launch is wrapped
 * in `bash --norc --posix -c 'exec N<&- ... "$@"'` when (and only when) such descriptors exist. Without bash,
 * each is replaced by /dev/null in the child instead (open, but holding nothing).
 */
import { accessSync, closeSync, constants, openSync, readFileSync, readdirSync, statSync } from "node:fs";
import { resolveCommand } from "./containment.js";
import type { SpawnSpec } from "./spawn-child.js";

/** O_CLOEXEC as /proc/<pid>/fdinfo reports it in "flags" (octal; x86, ARM, RISC-V, PowerPC). */
const O_CLOEXEC = 0o2000000;
const BASH = ["/bin/bash", "/usr/bin/bash"];

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

export interface ClosedLaunch {
  spec: SpawnSpec;
  /** Extra stdio entries past 0-2 (the /dev/null fallback), and what to release after spawning. */
  extraStdio: ("ignore" | number)[];
  release: () => void;
}

/** The launch of `spec` with every inheritable descriptor above 2 closed (or nulled) in the child. */
export function withoutInheritedFds(spec: SpawnSpec, fds: readonly number[] = inheritableFds()): ClosedLaunch {
  if (fds.length === 0) return { spec, extraStdio: [], release: () => undefined };
  const bash = BASH.find(isFile);
  if (bash) {
    // The command is resolved first: behind bash, a missing one would only be exit status 127.
    const command = resolveCommand(spec);
    const script = `exec ${fds.map((fd) => `${fd}<&-`).join(" ")} "$@"`;
    // No startup file may run: --posix keeps $BASH_ENV out, --norc the ~/.bashrc that bash
    // reads when its stdin is a socket (Node's stdio pipes are socket pairs).
    return { spec: { ...spec, command: bash, args: ["--norc", "--noprofile", "--posix", "-c", script, "octet-close-fds", command, ...spec.args] }, extraStdio: [], release: () => undefined };
  }
  const devNull = openSync("/dev/null", "r");
  const extraStdio: ("ignore" | number)[] = Array.from({ length: Math.max(...fds) - 2 }, () => "ignore");
  for (const fd of fds) extraStdio[fd - 3] = devNull;
  return { spec, extraStdio, release: () => closeSync(devNull) };
}

function isFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
