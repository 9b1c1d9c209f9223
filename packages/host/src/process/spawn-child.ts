/**
 * Starting one extension process: shell false, cwd = workspace, its own process group, the given
 * environment, and stdio pipes with error listeners attached before anything is written. Resolves
 * only after Node reports 'spawn', so ENOENT/EACCES become a clear spawn_failed error instead of
 * an EPIPE on the first write.
 */
import { spawn, type ChildProcessWithoutNullStreams, type SpawnOptions } from "node:child_process";
import { stat } from "node:fs/promises";
import { OctetError } from "@octet/protocol";
import { nullInheritedFds } from "./inherited-fds.js";

export interface SpawnSpec {
  command: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
}

export async function spawnChild(spec: SpawnSpec): Promise<ChildProcessWithoutNullStreams> {
  // Node reports a missing cwd as "spawn <command> ENOENT", blaming the command; check it first.
  try {
    const st = await stat(spec.cwd);
    if (!st.isDirectory()) throw new OctetError("spawn_failed", `workspace ${spec.cwd} is not a directory`);
  } catch (err) {
    if (err instanceof OctetError) throw err;
    throw new OctetError("spawn_failed", `workspace ${spec.cwd} does not exist`);
  }
  // Only stdin, stdout and stderr reach the child, not what the host itself inherited.
  const nulled = nullInheritedFds();
  // Null prototype: a polluted Object.prototype must not add spawn options (reliability M2).
  const options: SpawnOptions = Object.assign(Object.create(null) as SpawnOptions, {
    cwd: spec.cwd,
    env: spec.env,
    detached: true,
    shell: false,
    stdio: ["pipe", "pipe", "pipe", ...nulled.extraStdio],
    windowsHide: true,
  });
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(spec.command, [...spec.args], options) as ChildProcessWithoutNullStreams;
  } finally {
    nulled.release();
  }
  // Listeners first: a pipe error must never become an uncaught exception.
  child.stdin?.on("error", () => {});
  child.stdout?.on("error", () => {});
  child.stderr?.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    const onSpawn = (): void => {
      child.off("error", onError);
      resolve();
    };
    const onError = (err: NodeJS.ErrnoException): void => {
      child.off("spawn", onSpawn);
      reject(new OctetError("spawn_failed", describeSpawnError(spec, err), { cause: err }));
    };
    child.once("spawn", onSpawn);
    child.once("error", onError);
  });
  return child;
}

function describeSpawnError(spec: SpawnSpec, err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case "ENOENT":
      return `command "${spec.command}" was not found (PATH=${spec.env["PATH"] ?? ""})`;
    case "EACCES":
      return `command "${spec.command}" is not executable (permission denied)`;
    default:
      return `command "${spec.command}" could not be started: ${err.message}`;
  }
}
