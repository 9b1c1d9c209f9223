// The rpi reference example, run by octet's embedded QuickJS sandbox: commands, a tool, an event
// hook, session actions and UI actions. No Node, no filesystem, no network: only the pi API.
//
//   octet --extension-dir examples --enable-extension quickjs-example command hello
//   octet --extension-dir examples --enable-extension quickjs-example call word_count '{"text":"a b c"}'

export default function (pi) {
  // A command with a UI action (the document's example).
  pi.registerCommand("hello", {
    description: "Say hello",
    handler: async (_args, ctx) => {
      ctx.ui.notify("Hello from QuickJS", "info");
    },
  });

  // A tool: counts words, reporting progress through onUpdate, honouring cancellation.
  pi.registerTool({
    name: "word_count",
    label: "Word count",
    description: "Count the words of a text",
    parameters: {
      type: "object",
      properties: { text: { type: "string", description: "The text to count" } },
      required: ["text"],
    },
    async execute(_toolCallId, params, signal, onUpdate) {
      const words = String(params.text)
        .split(/\s+/)
        .filter((w) => w.length > 0);
      onUpdate?.({ content: [{ type: "text", text: `counting ${words.length} words` }] });
      if (signal?.aborted) throw new Error("cancelled");
      const longest = words.reduce((a, w) => (w.length > a.length ? w : a), "");
      return {
        content: [{ type: "text", text: `${words.length} words; the longest is "${longest}"` }],
        details: { words: words.length, longest },
      };
    },
  });

  // An event hook: block a destructive shell command before any tool runs it.
  pi.on("tool_call", (event) => {
    const command = String(event.input?.command ?? "");
    if (/\brm\s+-rf\s+\//.test(command)) return { block: true, reason: "refusing rm -rf on an absolute path" };
    return undefined;
  });

  // In-process bus between the extension's own parts.
  let greeted = 0;
  pi.events.on("greeted", () => {
    greeted += 1;
  });

  // Session actions: need the session_actions capability, and a host that has a session.
  pi.registerCommand("name-session", {
    description: "Rename the session: /name-session NAME",
    handler: async (args, ctx) => {
      const name = String(args ?? "").trim() || "quickjs session";
      try {
        await pi.setSessionName(name);
        ctx.ui.setStatus("session", `named ${name}`);
        ctx.ui.notify(`session named ${name}`, "info");
      } catch (err) {
        ctx.ui.notify(`could not rename the session: ${err.message}`, "warning");
      }
      pi.events.emit("greeted", name);
      return `greeted ${greeted} time(s)`;
    },
  });
}
