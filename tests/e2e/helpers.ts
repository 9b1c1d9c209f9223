/**
 * Shared pieces of the end-to-end tests: temporary extension folders around the fault fixture,
 * running the real CLI, and checks that no process of an extension is left alive.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(new URL("../../..", import.meta.url).pathname);
export const FAKE_EXT = join(ROOT, "tests", "fixtures", "fake-ext.mjs");
export const CLI = join(ROOT, "packages", "cli", "dist", "src", "main.js");
export const EXAMPLES = join(ROOT, "examples");

export interface FakeSpec {
  name: string;
  behaviour: string;
  api?: "0.1" | "0.2" | "0.4";
  tools?: string[];
  extraToml?: string;
}

/** Creates a folder with one extension.toml per spec (each running fake-ext.mjs). */
export async function makeExtensions(specs: FakeSpec[]): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "octet-e2e-"));
  for (const s of specs) {
    const extDir = join(dir, s.name);
    await mkdir(extDir);
    const api = s.api ?? "0.1";
    const tools = s.tools ?? ["echo", "slow"];
    await writeFile(
      join(extDir, "extension.toml"),
      `name = "${s.name}"
version = "0.0.1"
api_version = "${api}"

[entrypoint]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(FAKE_EXT)}, "${s.behaviour}", "${api}", "${tools.join(",")}"]

[capabilities]
filesystem = "none"
process = false
network = false

[contributes]
tools = [${tools.map((t) => JSON.stringify(t)).join(", ")}]
${s.extraToml ?? ""}
`,
    );
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Live, non-zombie members of a process group, read from /proc. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") out.push(pid);
  }
  return out;
}

/**
 * The scratch folder the host gave the extension process `pid` (OCTET_EXTENSION_SCRATCH): unique
 * to one generation and inherited by everything it starts, so processesMentioning(scratch) finds
 * that extension's processes and not those of another test running the same example at once.
 */
export function scratchOf(pid: number): string {
  const entry = readFileSync(`/proc/${pid}/environ`, "utf8")
    .split("\0")
    .find((e) => e.startsWith("OCTET_EXTENSION_SCRATCH="));
  if (!entry) throw new Error(`process ${pid} has no OCTET_EXTENSION_SCRATCH`);
  return entry.slice("OCTET_EXTENSION_SCRATCH=".length);
}

/**
 * Live processes whose command line or environment mentions `needle`. Extension processes carry
 * OCTET_EXTENSION_DIR=<their folder> (and their children inherit it), so passing an extension's
 * folder finds every process it started, grandchildren included.
 */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
      if (state === "Z" || state === "X") continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      let environ = "";
      try {
        environ = readFileSync(`/proc/${pid}/environ`, "utf8");
      } catch {
        // Another user's process: its environment is not ours to read.
      }
      if (cmd.includes(needle) || environ.includes(needle)) out.push(pid);
    } catch {
      // The process ended while we looked.
    }
  }
  return out;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `octet` binary with a deadline; stdin is closed unless `input` is given. */
export function runCli(
  args: string[],
  options: { input?: string; cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: "1", OCTET_HOME: join(tmpdir(), "octet-e2e-no-home"), ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(
        new Error(
          `octet ${args.join(" ")} did not finish within ${options.timeoutMs ?? 20_000} ` +
            `ms\nstdout: ${stdout}\nstderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 20_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** Polls `check` until it returns true or the deadline passes. */
export async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Starts tests/fixtures/host-runner.mjs (a host over every extension in `dir`, in a process of its
 * own that a test may kill) and waits for the status line it prints once the host started.
 */
export async function startHostRunner(
  dir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ runner: ChildProcess; line: string }> {
  const runner = spawn(process.execPath, [join(ROOT, "tests", "fixtures", "host-runner.mjs"), dir], {
    stdio: ["ignore", "pipe", "inherit"],
    env,
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    runner.stdout!.setEncoding("utf8").on("data", (d: string) => {
      out += d;
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    runner.once("exit", (code) => reject(new Error(`host-runner exited early (${code})`)));
  });
  return { runner, line };
}
