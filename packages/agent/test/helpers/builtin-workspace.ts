/**
 * A real temp workspace for the built-in tool tests, the context the tools run with, and waits with
 * deadlines (no test sleeps for a fixed time).
 */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { BuiltinContext, BuiltinResult } from "../../src/tools/types.js";

export interface Workspace {
  /** The workspace folder (its realpath). */
  dir: string;
  /** A folder beside the workspace, outside it, removed with it. */
  outside: string;
  ctx(extra?: Partial<BuiltinContext>): BuiltinContext;
  file(rel: string): string;
  cleanup(): void;
}

export function makeWorkspace(): Workspace {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "octet-builtin-")));
  const dir = path.join(base, "ws");
  const outside = path.join(base, "outside");
  mkdirSync(dir);
  mkdirSync(outside);
  return {
    dir,
    outside,
    ctx: (extra) => ({ workspace: dir, signal: new AbortController().signal, ...extra }),
    file: (rel) => path.join(dir, rel),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** The text of a tool result (all its text parts). */
export function textOf(r: BuiltinResult): string {
  return r.content.map((c) => c.text).join("");
}

export function readText(file: string): string {
  return readFileSync(file, "utf8");
}

/** Polls `cond` until it holds, failing after `ms` naming `what`. */
export async function waitUntil(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Whether process `pid` is gone: no such process, or a zombie no one has reaped yet (it runs nothing). */
export function processGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as { code?: unknown }).code === "ESRCH") return true;
    throw err;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true;
  }
}
