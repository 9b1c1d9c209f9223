/**
 * The launch of a `"runtime": "node"` entry: the Node that runs the host (process.execPath, so
 * the extension gets a Node as new as octet's and no PATH lookup) starts the runner of this
 * package, compiled next to this file. The entry is not an argument: it travels in
 * PI_EXTENSION_ENTRY with the rest of the environment (manifest/environment.ts).
 */
import { fileURLToPath } from "node:url";
import type { ProcessSpec } from "../process/process-transport.js";

/** The compiled runner (dist/src/node/runner.js). */
export const NODE_RUNNER_PATH: string = fileURLToPath(new URL("./runner.js", import.meta.url));

/** What to spawn for a node launch: the process runtime starts it like any rpi process. */
export function nodeProcessSpec(launch: { packageDir: string }, env: Record<string, string>): ProcessSpec {
  return { command: process.execPath, args: ["--enable-source-maps", NODE_RUNNER_PATH], cwd: launch.packageDir, env };
}
