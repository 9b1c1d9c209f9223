// bench-echo: one tool that returns its text argument, with a full parameters schema so the host
// validates arguments and results as it would for any extension.
import { Extension } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.4", maxConcurrentRequests: 64 });
// `--suffix _N` appends _N to every tool name: the scale scenario starts many copies in one host,
// and a host lets only one extension provide a tool name.
const at = process.argv.indexOf("--suffix");
const suffix = at !== -1 ? String(process.argv[at + 1] ?? "") : "";

ext.tool(
  {
    name: `echo${suffix}`,
    description: "Return the text argument unchanged",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
  },
  (args) => String(args["text"]),
);

// blob: returns a text of `bytes` ASCII bytes (the large-result scenario); cached per size so the
// figure measures the wire, not string building. The raw child and the MCP server do the same.
const blobs = new Map();
ext.tool(
  {
    name: `blob${suffix}`,
    description: "Return a text of the requested number of bytes",
    parameters: {
      type: "object",
      properties: { bytes: { type: "integer", minimum: 0 } },
      required: ["bytes"],
      additionalProperties: false,
    },
  },
  (args) => {
    const n = Number(args["bytes"]);
    let text = blobs.get(n);
    if (text === undefined) blobs.set(n, (text = "x".repeat(n)));
    return text;
  },
);

// wait: runs until cancelled, checking ctx.throwIfCancelled() every 1 ms (the cancellation storm);
// gives up after `max_ms` (default 30 s) so a lost cancellation cannot hang the run. `live` counts
// the wait handlers still running, so the scenario can tell when the extension holds none.
let live = 0;
const tick = () => new Promise((r) => setTimeout(r, 1));
ext.tool(
  {
    name: `wait${suffix}`,
    description: "Wait until cancelled",
    parameters: {
      type: "object",
      properties: { max_ms: { type: "integer", minimum: 0 } },
      additionalProperties: false,
    },
  },
  async (args, ctx) => {
    live++;
    try {
      const until = Date.now() + Number(args["max_ms"] ?? 30_000);
      while (Date.now() < until) {
        ctx.throwIfCancelled();
        await tick();
      }
      return "not cancelled";
    } finally {
      live--;
    }
  },
);
ext.tool(
  {
    name: `live${suffix}`,
    description: "The number of wait handlers still running",
    parameters: { type: "object", properties: {}, additionalProperties: false },
  },
  () => String(live),
);

ext.run();
