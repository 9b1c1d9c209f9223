// Candidate (a), the raw floor: a minimal parent with a Map of pending ids over a child's stdio.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./raw-child.mjs", import.meta.url));

export const name = "raw";
export const description = "minimal Node JSONL parent + child (the floor)";
/** What the import-time scenario imports in a fresh process: the floor's only "library". */
export const importModules = ["node:child_process"];

export async function connect({ childCpu }) {
  const child = spawn("taskset", ["-c", String(childCpu), process.execPath, CHILD], { stdio: ["pipe", "pipe", "inherit"] });
  const pending = new Map();
  let nextId = 1;
  // Partial-line chunks are kept as a list and joined once the line's LF arrives, so a large
  // reply is scanned and copied once rather than once per chunk.
  let parts = [];
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    let start = 0;
    let nl;
    while ((nl = chunk.indexOf("\n", start)) !== -1) {
      parts.push(chunk.slice(start, nl));
      const line = parts.length === 1 ? parts[0] : parts.join("");
      parts = [];
      start = nl + 1;
      const msg = JSON.parse(line);
      const p = pending.get(msg.id);
      if (p) {
        pending.delete(msg.id);
        p(msg.result);
      }
    }
    if (start < chunk.length) parts.push(start === 0 ? chunk : chunk.slice(start));
  });
  const exited = new Promise((r) => child.once("exit", r));
  const request = (name, args) => {
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name, arguments: args } }) + "\n");
    });
  };
  return {
    call(args) {
      return request("echo", args);
    },
    /** Calls any tool of the child; resolves with the result text. */
    async callTool(name, args) {
      return (await request(name, args)).text;
    },
    /** taskset execs node, so the spawned pid is the extension's own. */
    pids() {
      return { host: process.pid, extension: child.pid };
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
