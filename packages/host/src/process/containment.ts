/**
 * How far an extension's processes are contained, decided once per host process (reliability
 * 4.6). Every extension runs as the leader of its own process group, and the stop ladder kills
 * the group; but a grandchild that calls setsid() leaves the group, and a host killed with
 * SIGKILL runs no cleanup. Where the machine allows it, each extension is therefore launched as
 *
 *   setpriv --pdeathsig KILL -- unshare --user --map-current-user --pid --fork --kill-child
 *     --mount-proc -- COMMAND ARGS...
 *
 * The extension is PID 1 of its own PID namespace: when it (or the launcher) dies, the kernel
 * kills every process in the namespace, setsid escapees included; and the launcher dies with the
 * host (parent-death signal). --map-current-user keeps the extension's uid as it is.
 *
 * Tiers, strongest first, detected at first use by a real launch: the first extension's own
 * (spawn-contained.ts), or a trial of `sh -c "exit 0"` where that one cannot tell:
 *   "pid-namespace"  as above (needs setpriv and unprivileged user namespaces);
 *   "process-group"  the group only; setsid escapees can outlive a stop, and a SIGKILLed host
 *                    leaves its extensions to the SDK's exit on stdin EOF.
 * OCTET_CONTAINMENT=process-group in the host's environment forces the weaker tier (for
 * machines where namespaces misbehave); the tier in use is shown in status.
 */
import { spawn } from "node:child_process";
import { accessSync, constants, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { OctetError } from "@octet/protocol";
import { readFirstChild } from "./process-group.js";
import type { SpawnSpec } from "./spawn-child.js";

export type ContainmentTier = "pid-namespace" | "process-group";

export interface Containment {
  tier: ContainmentTier;
  /** Why the stronger tier is not used (null when it is). */
  fallbackReason: string | null;
  /**
   * The trial ran to its end and failed: the machine refuses namespaces. Absent when the weaker
   * tier has another cause (no launchers, the override, a trial that timed out or could not start).
   */
  refused?: true;
  /** The launch wrapped for this tier; the command is resolved on PATH first (clear ENOENT). */
  wrap(spec: SpawnSpec): SpawnSpec;
}

const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"];
const UNSHARE = ["/usr/bin/unshare", "/bin/unshare"];
const NAMESPACE_FLAGS = ["--user", "--map-current-user", "--pid", "--fork", "--kill-child", "--mount-proc"];

let detected: Containment | null = null;
let detecting: Promise<Containment> | null = null;

/**
 * The containment of this host process, by a trial launch the first time (4-13 ms, the event
 * loop free meanwhile), then cached. The override is read each time (an embedder may pass its
 * own env per host); the machine's ability is found once. A launch that may never spawn (a
 * foreign runtime's in-process instance) probes alongside its start.
 */
export function containmentAsync(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<Containment> {
  const known = knownContainment(env);
  if (known !== null) return Promise.resolve(known);
  detecting ??= detectAsync().then((found) => (detected ??= found));
  return detecting;
}

/** The containment when no trial is needed (the override, or a detection that has ended), else null. */
export function knownContainment(env: Readonly<Record<string, string | undefined>> = process.env): Containment | null {
  if (env["OCTET_CONTAINMENT"] === "process-group") return groupOnly("OCTET_CONTAINMENT=process-group");
  return detected;
}

/**
 * The namespace tier before any trial, for a first launch that is its own trial
 * (spawn-contained.ts); null where the machine cannot have it (not Linux, no util-linux
 * launchers). Only confirmNamespace() caches it.
 */
export function presumedNamespace(): Containment | null {
  const pre = prerequisites();
  return "tier" in pre ? null : namespaced(pre.setpriv, pre.unshare);
}

/** A launch showed its command running inside its namespaces: the verdict a trial would give. */
export function confirmNamespace(presumed: Containment): void {
  detected ??= presumed;
}

/** The launcher and the trial's arguments, or why the machine has no namespace tier. */
function prerequisites(): { setpriv: string; unshare: string; args: string[] } | Containment {
  if (process.platform !== "linux") return groupOnly(`namespaces are Linux-only (this is ${process.platform})`);
  const setpriv = SETPRIV.find(executable);
  const unshare = UNSHARE.find(executable);
  if (!setpriv || !unshare) return groupOnly(`${!setpriv ? "setpriv" : "unshare"} (util-linux) is not installed`);
  return {
    setpriv,
    unshare,
    args: ["--pdeathsig", "KILL", "--", unshare, ...NAMESPACE_FLAGS, "--", "/bin/sh", "-c", "exit 0"],
  };
}

const TRIAL_TIMEOUT_MS = 5_000;

/** The trial: `sh -c "exit 0"` behind the launchers, as an ordinary child. */
function detectAsync(): Promise<Containment> {
  const pre = prerequisites();
  if ("tier" in pre) return Promise.resolve(pre);
  return new Promise<Containment>((resolve) => {
    let stderr = "";
    let error: Error | undefined;
    const trial = spawn(pre.setpriv, pre.args, { timeout: TRIAL_TIMEOUT_MS, stdio: ["ignore", "ignore", "pipe"] });
    trial.stderr.setEncoding("utf8");
    trial.stderr.on("data", (chunk: string) => {
      if (stderr.length < 4096) stderr += chunk;
    });
    trial.once("error", (err) => {
      error = err;
      // No process was started (ENOENT, EACCES): no close event will come.
      if (trial.pid === undefined) resolve(judged(pre.setpriv, pre.unshare, err, null, null, stderr));
    });
    trial.once("close", (status, signal) => resolve(judged(pre.setpriv, pre.unshare, error, status, signal, stderr)));
  });
}

/** The tier a trial launch showed. */
function judged(
  setpriv: string,
  unshare: string,
  error: Error | undefined,
  status: number | null,
  signal: NodeJS.Signals | null,
  stderr: string,
): Containment {
  if (error || status !== 0) {
    const why = error?.message ?? (stderr.trim().split("\n").pop() || `exit ${status ?? signal}`);
    const group = groupOnly(`a PID namespace could not be created: ${why}`);
    return !error && signal === null ? { ...group, refused: true } : group;
  }
  return namespaced(setpriv, unshare);
}

function namespaced(setpriv: string, unshare: string): Containment {
  return {
    tier: "pid-namespace",
    fallbackReason: null,
    wrap: (spec) => {
      const command = resolveCommand(spec);
      return {
        ...spec,
        command: setpriv,
        args: ["--pdeathsig", "KILL", "--", unshare, ...NAMESPACE_FLAGS, "--", command, ...spec.args],
      };
    },
  };
}

function groupOnly(reason: string): Containment {
  return { tier: "process-group", fallbackReason: reason, wrap: (spec) => spec };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The command as the child's PATH finds it. Behind the launcher a missing command would only
 * show as the launcher's exit status, so it is resolved here, with the same clear error a
 * direct spawn gives.
 */
export function resolveCommand(spec: SpawnSpec): string {
  const { command } = spec;
  if (command.includes("/")) {
    const path = isAbsolute(command) ? command : join(spec.cwd, command);
    if (!executable(path))
      throw new OctetError(
        "spawn_failed",
        `command "${command}" ${existsAsFile(path) ? "is not executable (permission denied)" : "was not found"}`,
      );
    return path;
  }
  const dirs = (spec.env["PATH"] ?? "").split(delimiter).filter((d) => d !== "");
  for (const dir of dirs) {
    const path = join(dir, command);
    if (executable(path)) return path;
  }
  throw new OctetError("spawn_failed", `command "${command}" was not found (PATH=${spec.env["PATH"] ?? ""})`);
}

function existsAsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The extension's own pid: behind the namespace launcher, the launcher's only child (read from
 * /proc/<pid>/task/<pid>/children); else, or while the launcher has not forked yet, the spawned pid.
 */
export function extensionPid(spawnedPid: number, tier: ContainmentTier): number {
  if (tier !== "pid-namespace") return spawnedPid;
  const first = readFirstChild(spawnedPid);
  return typeof first === "number" ? first : spawnedPid;
}
