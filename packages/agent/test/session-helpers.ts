// Shared by the session tests: a fresh OCTET_HOME and workspace per test, and a child node
// process running a script against the compiled session module.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";

/** The compiled session module, for scripts run in child processes. */
export const SESSION_MODULE = new URL("../src/session/index.js", import.meta.url).href;

export function tempDirs(): { home: string; workspace: string; root: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "octet-session-")));
  after(() => rmSync(root, { recursive: true, force: true }));
  return { root, home: join(root, "home"), workspace: join(root, "ws") };
}

/** Starts `node script.mjs` where the script's text may use SESSION (the module's URL). */
export function spawnScript(root: string, name: string, body: string, args: string[] = []): ChildProcess {
  const file = join(root, `${name}.mjs`);
  writeFileSync(file, `const SESSION = await import(${JSON.stringify(SESSION_MODULE)});\n${body}\n`);
  return spawn(process.execPath, [file, ...args], { stdio: ["ignore", "pipe", "pipe"] });
}

/** Resolves with the first stdout line matching `re` (or rejects when the child exits first). */
export function waitForLine(child: ChildProcess, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = "";
    let err = "";
    const onData = (d: Buffer): void => {
      buf += d.toString("utf8");
      for (const line of buf.split("\n")) {
        if (re.test(line)) {
          child.stdout?.off("data", onData);
          resolve(line);
          return;
        }
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (d: Buffer) => {
      err += d.toString("utf8");
    });
    child.once("exit", (code, signal) => reject(new Error(`child exited (${code ?? signal}) first: ${err}`)));
  });
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}

export function userMessage(text: string) {
  return { type: "message" as const, message: { role: "user" as const, content: text, timestamp: 1 } };
}
