// bench-echo: one tool that returns its text argument, with a full parameters schema so the host
// validates arguments and results as it would for any extension.
import { Extension } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.4", maxConcurrentRequests: 64 });

ext.tool(
  {
    name: "echo",
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
    name: "blob",
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

ext.run();
