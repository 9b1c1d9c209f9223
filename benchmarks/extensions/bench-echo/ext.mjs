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

ext.run();
