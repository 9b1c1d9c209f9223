/**
 * What the install tests share: commands run with a clean environment (none of an enclosing
 * `npm test`'s or test runner's variables) and a deadline, and a check that one succeeded.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of every command, without what an enclosing `npm test` or test runner set. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // NODE_TEST_CONTEXT would make a folder's own `node --test` report to this test runner, not print.
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== "NODE_TEST_CONTEXT") env[k] = v;
  return { ...env, NO_COLOR: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1", ...extra };
}

export function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = cleanEnv()): Promise<Run> {
  return new Promise((done) => {
    execFile(cmd, args, { cwd, env, timeout: 100_000, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === "number" ? err.code : null;
      done({ code, stdout, stderr });
    });
  });
}

export async function ok(cmd: string, args: string[], cwd: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const r = await run(cmd, args, cwd, env);
  assert.equal(r.code, 0, `${cmd} ${args.join(" ")} (in ${cwd}) failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
