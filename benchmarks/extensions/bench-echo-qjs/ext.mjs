// bench-echo for the QuickJS runtime: the same echo and blob tools as bench-echo, written against
// the pi API (a default-exported factory), run in octet's embedded QuickJS sandbox.
export default function (pi) {
  pi.registerTool({
    name: "echo",
    label: "Echo",
    description: "Return the text argument unchanged",
    parameters: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    execute: async (_id, params) => ({ content: [{ type: "text", text: String(params.text) }] }),
  });
  // blob: a text of `bytes` ASCII bytes, cached per size so the figure measures the path, not string building.
  const blobs = new Map();
  pi.registerTool({
    name: "blob",
    label: "Blob",
    description: "Return a text of the requested number of bytes",
    parameters: {
      type: "object",
      properties: { bytes: { type: "integer", minimum: 0 } },
      required: ["bytes"],
      additionalProperties: false,
    },
    execute: async (_id, params) => {
      const n = Number(params.bytes);
      let text = blobs.get(n);
      if (text === undefined) blobs.set(n, (text = "x".repeat(n)));
      return { content: [{ type: "text", text }] };
    },
  });
}
