// Candidate (a), the raw floor: a minimal parent with a Map of pending ids over a child's stdio.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./raw-child.mjs", import.meta.url));

export const name = "raw";
export const description = "minimal Node JSONL parent + child (the floor)";

export async function connect({ childCpu }) {
  const child = spawn("taskset", ["-c", String(childCpu), process.execPath, CHILD], { stdio: ["pipe", "pipe", "inherit"] });
  const pending = new Map();
  let nextId = 1;
  let buf = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf("\n")) !== -1) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const msg = JSON.parse(line);
      const p = pending.get(msg.id);
      if (p) {
        pending.delete(msg.id);
        p(msg.result);
      }
    }
  });
  const exited = new Promise((r) => child.once("exit", r));
  return {
    call(args) {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method: "tool/call", params: { name: "echo", arguments: args } }) + "\n");
      });
    },
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}
