// Candidate (a), the raw floor: a minimal parent with a Map of pending ids over a child's stdio.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./raw-child.mjs", import.meta.url));

export const name = "raw";
export const description = "minimal Node JSONL parent + child (the floor)";
/** What the import-time scenario imports in a fresh process: the floor's only "library". */
export const importModules = ["node:child_process"];

export function connect({ childCpu }) {
  return connectChild([process.execPath, CHILD], childCpu);
}

/** The floor's parent over any child command (argv): the Python floor reuses it. */
export async function connectChild(argv, childCpu) {
  const child = spawn("taskset", ["-c", String(childCpu), ...argv], { stdio: ["pipe", "pipe", "inherit"] });
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
  const request = (name, args, signal) => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, resolve);
      child.stdin.write(
        JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name, arguments: args } }) + "\n",
      );
      // Cancelling settles the caller at once and tells the child; its late reply finds no pending id.
      signal?.addEventListener(
        "abort",
        () => {
          if (!pending.delete(id)) return;
          child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "$/cancelRequest", params: { id } }) + "\n");
          reject(signal.reason);
        },
        { once: true },
      );
    });
  };
  return {
    call(args) {
      return request("echo", args);
    },
    /** Calls any tool of the child; resolves with the result text. `signal` cancels the call. */
    async callTool(name, args, { signal } = {}) {
      return (await request(name, args, signal)).text;
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

/** The scale scenario: `count` children spawned at once, each ready after its first echo reply. */
export async function startMany({ childCpu }, count) {
  const conns = await Promise.all(
    Array.from({ length: count }, async () => {
      const conn = await connect({ childCpu });
      await conn.call({ text: "ready" });
      return conn;
    }),
  );
  return {
    ready: conns.length,
    pids: () => conns.map((c) => c.pids().extension),
    close: () => Promise.all(conns.map((c) => c.close())),
  };
}
