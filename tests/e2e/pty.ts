/**
 * The `octet` CLI on a real pseudo-terminal (tests/fixtures/pty-driver.py), for the tests of
 * what only happens on a terminal: progress bars, prompts, secret input, colours. The test types
 * keys when the output it waits for has appeared; every wait has a deadline, and stop() kills
 * the driver (which kills the CLI's process group).
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, ROOT } from "./helpers.js";

export const PTY_DRIVER = join(ROOT, "tests", "fixtures", "pty-driver.py");
export const CLI_EXT = join(ROOT, "tests", "fixtures", "cli-ext.mjs");

export interface PtyRun {
  /** Everything the CLI wrote to the terminal so far, escape sequences included. */
  readonly output: () => string;
  type(keys: string): void;
  /** Resizes the terminal from 100x30 to 80x24 (the driver's SIGUSR1; the kernel sends SIGWINCH). */
  resize(): void;
  /** Waits until the terminal output (from `from` on) matches. */
  waitFor(pattern: RegExp, what: string, options?: { timeoutMs?: number; from?: number }): Promise<void>;
  /** Resolves with the exit status; rejects after the deadline (and kills everything). */
  exit(timeoutMs?: number): Promise<number | null>;
  /** The CLI's stdout, when it was sent to a file. */
  stdout(): Promise<string>;
  stop(): void;
}

export async function runOnPty(
  args: string[],
  options: { stdoutToFile?: boolean; env?: Record<string, string> } = {},
): Promise<PtyRun> {
  const scratch = options.stdoutToFile ? await mkdtemp(join(tmpdir(), "octet-pty-")) : null;
  const stdoutFile = scratch === null ? null : join(scratch, "stdout.txt");
  const env: Record<string, string | undefined> = {
    ...process.env,
    TERM: "xterm",
    OCTET_HOME: join(tmpdir(), "octet-e2e-no-home"),
    ...options.env,
  };
  if (options.env?.["NO_COLOR"] === undefined) delete env["NO_COLOR"];
  const driverArgs = [
    PTY_DRIVER,
    ...(stdoutFile !== null ? ["--stdout-file", stdoutFile] : []),
    "--",
    process.execPath,
    CLI,
    ...args,
  ];
  const child = spawn("python3", driverArgs, { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let driverErr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (output += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (driverErr += d));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const stop = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  };
  const dump = (): string => `\nterminal output: ${JSON.stringify(output)}\ndriver stderr: ${driverErr}`;
  return {
    output: () => output,
    type: (keys) => void child.stdin.write(keys),
    resize: () => void child.kill("SIGUSR1"),
    async waitFor(pattern, what, o = {}) {
      const until = Date.now() + (o.timeoutMs ?? 10_000);
      while (!pattern.test(output.slice(o.from ?? 0))) {
        if (Date.now() > until) {
          stop();
          throw new Error(`timed out waiting for ${what}${dump()}`);
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async exit(timeoutMs = 15_000) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          stop();
          reject(new Error(`the CLI did not exit within ${timeoutMs} ms${dump()}`));
        }, timeoutMs);
      });
      try {
        return await Promise.race([exited, deadline]);
      } finally {
        clearTimeout(timer);
      }
    },
    async stdout() {
      if (scratch === null || stdoutFile === null) throw new Error("runOnPty: pass stdoutToFile to read stdout");
      try {
        return await readFile(stdoutFile, "utf8");
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
    },
    stop,
  };
}

/** A folder with the cli-ext fixture (API 0.2) as extension "cli-ext". */
export async function makeCliExt(
  mode: "good" | "badmenu" = "good",
): Promise<{ dir: string; base: string[]; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "octet-cli-rt-"));
  await mkdir(join(dir, "cli-ext"));
  await writeFile(
    join(dir, "cli-ext", "extension.toml"),
    `name = "cli-ext"
version = "0.0.1"
api_version = "0.2"

[entrypoint]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(CLI_EXT)}, "${mode}"]

[contributes]
tools = ["progress", "ask", "withdraw", "rendered", "plain"]
commands = ["setup", "wipe", "status"]
menu = true
confirmations = true
tool_renderers = ["rendered"]
`,
  );
  const base = ["--extension-dir", dir, "--workspace", dir, "--enable-extension", "cli-ext"];
  return { dir, base, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Terminal output without escape sequences and carriage returns, for matching text. */
export function plain(text: string): string {
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, "").replace(/\r/g, "");
}
