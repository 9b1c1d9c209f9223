// A pi extension as pi authors write one, run by octet's Node runtime ("runtime": "node" in
// pi-extension.json): Node's fs, pi.exec for a real command, console for diagnostics.
//
//   octet --extension-dir examples --enable-extension pi-node call file_info '{"path":"README.md"}'
//   octet --extension-dir examples --enable-extension pi-node call find_todos '{}'
//   octet --extension-dir examples --enable-extension pi-node command todos

import { readFile, stat } from "node:fs/promises";
import path from "node:path";

const MAX_MATCHES = 50;

export default function (pi) {
  // console goes to the extension's diagnostics: stdout belongs to the protocol.
  console.log(`pi-node loaded (node ${process.version})`);

  // grep through pi.exec: matches of `word` under `cwd`, as "file:line: text" lines.
  async function todos(cwd, word, signal) {
    const args = ["-rnI", "--exclude-dir=node_modules", "--exclude-dir=.git", "--exclude-dir=dist", word, "."];
    const result = await pi.exec("grep", args, { cwd, signal, timeout: 10_000 });
    if (result.killed) throw new Error("grep was stopped (timeout or cancel)");
    // grep exits 1 when nothing matched, 2 on an error.
    if (result.code > 1) throw new Error(`grep failed (${result.code}): ${result.stderr.trim()}`);
    return result.stdout.split("\n").filter((line) => line !== "");
  }

  pi.registerTool({
    name: "file_info",
    label: "File info",
    description: "Size and line count of a file in the project",
    parameters: {
      type: "object",
      properties: { path: { type: "string", description: "A path relative to the project" } },
      required: ["path"],
    },
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const file = path.resolve(ctx.cwd, String(params.path));
      const info = await stat(file);
      if (!info.isFile()) throw new Error(`${params.path} is not a file`);
      const lines = (await readFile(file, "utf8")).split("\n").length - 1;
      return {
        content: [{ type: "text", text: `${params.path}: ${lines} lines, ${info.size} bytes` }],
        details: { lines, bytes: info.size },
      };
    },
  });

  pi.registerTool({
    name: "find_todos",
    label: "Find TODOs",
    description: "Lines of the project that contain a marker word (default TODO), found with grep",
    parameters: {
      type: "object",
      properties: { word: { type: "string", description: "The marker to look for" } },
    },
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      const word = typeof params.word === "string" && params.word !== "" ? params.word : "TODO";
      const found = await todos(ctx.cwd, word, signal);
      const shown = found.slice(0, MAX_MATCHES).join("\n");
      const more = found.length > MAX_MATCHES ? `\n(${found.length - MAX_MATCHES} more)` : "";
      return { content: [{ type: "text", text: found.length === 0 ? `no ${word} found` : shown + more }] };
    },
  });

  pi.registerCommand("todos", {
    description: "Count the TODOs of the project",
    handler: async (_args, ctx) => {
      const found = await todos(ctx.cwd, "TODO", ctx.signal);
      ctx.ui.notify(`${found.length} TODO line(s) in ${ctx.cwd}`, "info");
    },
  });
}
