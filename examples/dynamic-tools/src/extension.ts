// dynamic-tools: tools that appear and disappear while the extension runs. `register` adds (or
// replaces) tools that answer a fixed reply; `unregister` removes them. Both answer with the
// host's view of the change: the new catalog epoch and every tool published now.
import { Extension, type DynamicTool } from "@octet/extension";

const ext = new Extension({ apiVersion: "0.2", dynamicTools: true });

interface Wanted {
  name: string;
  reply: string;
  description?: string;
}

ext.tool(
  {
    name: "register",
    description: "Publish tools that answer a fixed reply (replacing ones of the same name)",
    parameters: {
      type: "object",
      properties: {
        tools: {
          type: "array",
          items: {
            type: "object",
            properties: { name: { type: "string" }, reply: { type: "string" }, description: { type: "string" } },
            required: ["name", "reply"],
          },
        },
      },
      required: ["tools"],
    },
  },
  async (args) => {
    const wanted = args["tools"] as Wanted[];
    const tools: DynamicTool[] = wanted.map((w) => ({
      spec: { name: w.name, description: w.description ?? `Answers ${JSON.stringify(w.reply)}` },
      handler: () => w.reply,
    }));
    return JSON.stringify(await ext.registerTools(tools));
  },
);

ext.tool(
  {
    name: "unregister",
    description: "Withdraw tools published by register",
    parameters: {
      type: "object",
      properties: { names: { type: "array", items: { type: "string" } } },
      required: ["names"],
    },
  },
  async (args) => JSON.stringify(await ext.unregisterTools(args["names"] as string[])),
);

ext.run();
