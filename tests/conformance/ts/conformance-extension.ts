/**
 * The TypeScript SDK's conformance extension: exactly what CONTRACT.md asks of every SDK, written
 * the way an extension author would, with the public API of @octet/extension only. The API version
 * comes from OCTET_CONFORMANCE_API. Diagnostics go to stderr; stdout belongs to the SDK.
 */
import { Extension, WireError, LIFECYCLE_EVENTS, type ToolSpec } from "@octet/extension";

const API_VERSIONS = ["0.1", "0.2", "0.4"] as const;
type Api = (typeof API_VERSIONS)[number];

const requested = process.env["OCTET_CONFORMANCE_API"];
if (!API_VERSIONS.includes(requested as Api)) {
  process.stderr.write(
    `conformance extension: OCTET_CONFORMANCE_API must be one of ${API_VERSIONS.join(", ")}, ` +
      `got ${JSON.stringify(requested)}\n`,
  );
  process.exit(2);
}
const api = requested as Api;
const negotiated = api !== "0.1";

const ext = new Extension({ apiVersion: api, maxConcurrentRequests: 16 });

// FRAME-03: an ordinary print after the SDK object exists must never reach the wire.
console.log("conformance: startup print");
// REV-01: nothing may be sent before initialize; the SDK refuses (or holds) this notification.
try {
  ext.notify({ level: "info", title: "early", message: "sent before initialize" });
} catch (err) {
  console.error(`conformance: early notification refused: ${(err as Error).message}`);
}

const echo: ToolSpec = {
  name: "echo",
  description: "Return the arguments as JSON text",
  parameters: { type: "object", properties: { text: { type: "string" } }, additionalProperties: true },
};
if (api === "0.4") {
  echo.promptSnippet = "Echo the arguments back as JSON";
  echo.promptGuidelines = ["Use echo only in conformance tests"];
}
ext.tool(echo, (args) => JSON.stringify(args));

ext.tool(
  { name: "fail", description: "Throw an ordinary error", parameters: { type: "object", properties: {} } },
  () => {
    throw new Error("boom");
  },
);

ext.tool(
  {
    name: "wire_error",
    description: "Throw an extension error code",
    parameters: { type: "object", properties: { code: { type: "integer" } } },
  },
  (args) => {
    const code = typeof args["code"] === "number" ? args["code"] : -32001;
    throw new WireError(code, "quota_exceeded: the wire_error tool is out of quota", { retry_after_ms: 1000 });
  },
);

ext.tool(
  {
    name: "slow",
    description: "Poll cancellation every 10 ms until cancelled or done",
    parameters: { type: "object", properties: { ms: { type: "integer" } } },
  },
  async (args, ctx) => {
    const ms = Math.min(typeof args["ms"] === "number" ? args["ms"] : 5_000, 5_000);
    ctx.progress.status("started");
    const until = Date.now() + ms;
    for (;;) {
      // The ambient token (CANCEL-13): what it throws, the SDK answers -32800.
      ext.cancellation.throwIfCancelled();
      if (Date.now() >= until) return "finished";
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  },
);

ext.tool(
  {
    name: "progress",
    description: "Report N status progress events",
    parameters: { type: "object", properties: { count: { type: "integer" } } },
  },
  (args, ctx) => {
    const count = typeof args["count"] === "number" ? args["count"] : 3;
    for (let i = 1; i <= count; i++)
      ctx.progress.status(`step ${i} of ${count}`, { current: i, total: count, unit: "steps" });
    return `done ${count}`;
  },
);

ext.tool(
  {
    name: "confirm",
    description: "Ask for confirmation and return the answer",
    parameters: {
      type: "object",
      properties: {
        prompt: { type: "string" },
        detail: { type: "string" },
        destructive: { type: "boolean" },
        default: { type: "boolean" },
      },
    },
  },
  async (args, ctx) => {
    const options: { prompt: string; detail?: string; destructive?: boolean; default?: boolean } = {
      prompt: typeof args["prompt"] === "string" ? args["prompt"] : "Proceed?",
    };
    if (typeof args["detail"] === "string") options.detail = args["detail"];
    if (typeof args["destructive"] === "boolean") options.destructive = args["destructive"];
    if (typeof args["default"] === "boolean") options.default = args["default"];
    return JSON.stringify({ confirmed: await ctx.confirm(options) });
  },
);

ext.tool(
  { name: "contribute", description: "Push context and status", parameters: { type: "object", properties: {} } },
  () => {
    ext.contributeContext({ label: "conformance", content: "pushed context", placement: "system_suffix" });
    ext.contributeStatus({
      surface: "status",
      text: "pushed status",
      styleRole: "extension.conformance.status",
      priority: 1,
    });
    return "contributed";
  },
);

ext.tool(
  { name: "print", description: "Print to stdout the ordinary way", parameters: { type: "object", properties: {} } },
  () => {
    console.log("conformance: print tool");
    process.stdout.write("conformance: print tool (direct write)\n");
    return "printed";
  },
);

if (negotiated) {
  ext.tool(
    {
      name: "input",
      description: "Ask for text input and return it",
      parameters: { type: "object", properties: { prompt: { type: "string" }, secret: { type: "boolean" } } },
    },
    async (args, ctx) => {
      const prompt = typeof args["prompt"] === "string" ? args["prompt"] : "Value?";
      const value = await ctx.input(
        typeof args["secret"] === "boolean" ? { prompt, secret: args["secret"] } : { prompt },
      );
      return JSON.stringify({ value });
    },
  );

  ext.tool(
    {
      name: "structured",
      description: "Return structured content matching the output schema",
      parameters: { type: "object", properties: { items: { type: "array", items: { type: "string" } } } },
      outputSchema: {
        type: "object",
        properties: { count: { type: "integer" }, items: { type: "array", items: { type: "string" } } },
        required: ["count", "items"],
        additionalProperties: false,
      },
    },
    (args) => {
      const items = Array.isArray(args["items"]) ? args["items"].map(String) : ["a", "b"];
      return { content: `${items.length} items`, structuredContent: { count: items.length, items } };
    },
  );

  // Each lifecycle event is echoed as a notification, so transcripts see the delivery on the wire.
  for (const event of LIFECYCLE_EVENTS) {
    ext.on(event, (params) =>
      ext.notify({ level: "info", title: `lifecycle ${event}`, message: JSON.stringify(params) }),
    );
  }
}

if (api === "0.4") registerSessionServices();

ext.command({ name: "greet", description: "Greet someone", usage: "/greet [name]" }, (args, ctx) => {
  const name = args.join(" ") || "world";
  ctx.notify({ level: "success", title: "Greeted", message: `greeted ${name}` });
  return {
    text: `Hello, ${name}!`,
    notifications: [{ level: "info", title: "Greeting", message: `to ${name}` }],
    context: [{ label: "greet", content: `The user greeted ${name}.`, placement: "system_suffix" }],
  };
});

ext.hook("before_prompt", (payload) => {
  const prompt = String(payload["prompt"]);
  if (prompt.includes("#deny")) return { deny: "the prompt asked to be denied" };
  return { context: [{ label: "prompt-length", content: `${[...prompt].length} chars`, placement: "prompt_prefix" }] };
});
ext.hook("after_response", () => undefined);
ext.hook("before_tool_call", (payload) => (payload["name"] === "fail" ? { deny: "fail is blocked" } : undefined));
ext.hook("after_tool_call", (payload) => ({
  notifications: [
    { level: payload["is_error"] === true ? "warning" : "info", title: "Tool ran", message: String(payload["name"]) },
  ],
}));

ext.context((prompt) => [
  { label: "conformance", content: `prompt=${prompt ?? "null"}`, placement: "system_prefix" },
  { label: "default-placement", content: "no placement given" },
]);

ext.status((surface) => {
  if (surface === "status") return { text: "ready", styleRole: "extension.conformance.status", priority: 3 };
  if (surface === "header") return "header";
  return null;
});

ext.renderer("echo", (input) => [
  { text: `echo · ${input.isError ? "failed" : "ok"}`, style_role: "extension.conformance.head" },
  { text: input.output, style_role: null },
]);

void ext.run();

/** CONTRACT.md "API 0.4 session services": used on the wire only when the host offers each feature. */
function registerSessionServices(): void {
  const object = (properties: Record<string, unknown>) => ({ type: "object", properties });
  const refusal = (err: unknown) => (err instanceof Error ? err.message : String(err));
  for (const key of ["ctrl+g", "ctrl+o"])
    ext.shortcut(
      key,
      () => ext.notify({ level: "info", title: "shortcut", message: `key:${key}` }),
      `Conformance ${key}`,
    );
  ext.onTerminalGrantLost((lost) =>
    ext.notify({ level: "warning", title: "terminal grant lost", message: `${lost.grant_id}: ${lost.reason}` }),
  );
  for (const event of ["message/updated", "message/settled"] as const)
    ext.on(event, (params) => ext.notify({ level: "info", title: event, message: JSON.stringify(params) }));
  ext.autocomplete((q) => {
    const before = Buffer.from(q.text, "utf8").subarray(0, q.cursor).toString("utf8");
    if (before.endsWith("/gr"))
      return { prefix: "/gr", items: [{ value: "/greet", label: "greet", description: "Greet someone" }] };
    // A prefix that is not the text before the cursor: the SDK must refuse to send it (ACMP-04).
    if (before.endsWith("/bad")) return { prefix: "/nope", items: [{ value: "/nope", label: "nope" }] };
    // One byte past the 1,024-byte bound, and a control character: the SDK must refuse both (ACMP-05).
    if (before.endsWith("/long"))
      return { prefix: "/long", items: [{ value: `/long${"x".repeat(1020)}`, label: "long" }] };
    if (before.endsWith("/ctl")) return { prefix: "/ctl", items: [{ value: "/ctl", label: "bell\u0007" }] };
    return null;
  });

  ext.tool(
    {
      name: "compose",
      description: "Set or insert composer text, then read the composer back",
      parameters: object({ text: { type: "string" }, insert: { type: "boolean" } }),
    },
    async (args, ctx) => {
      const text = typeof args["text"] === "string" ? args["text"] : "";
      if (args["insert"] === true) await ctx.composer.insert(text);
      else await ctx.composer.set(text);
      return JSON.stringify({ text: await ctx.composer.get() });
    },
  );
  ext.tool({ name: "entry", description: "Append a session entry", parameters: object({}) }, async (_args, ctx) =>
    JSON.stringify({ entry_id: await ctx.session.appendEntry("conformance", { n: 1 }) }),
  );
  ext.tool(
    {
      name: "inject",
      description: "Send a message into the session",
      parameters: object({ role: { type: "string" }, text: { type: "string" } }),
    },
    async (args, ctx) => {
      try {
        const text = String(args["text"] ?? "");
        if (args["role"] === undefined) await ctx.session.sendUserMessage(text);
        else await ctx.session.sendMessage(args["role"] as "assistant" | "system", text);
        return "injected";
      } catch (err) {
        return refusal(err);
      }
    },
  );
  ext.tool(
    {
      name: "activate",
      description: "Replace the active tool set",
      parameters: object({ names: { type: "array", items: { type: "string" } } }),
    },
    async (args, ctx) => {
      try {
        await ctx.tools.setActive(Array.isArray(args["names"]) ? args["names"].map(String) : []);
        return "activated";
      } catch (err) {
        return refusal(err);
      }
    },
  );
  ext.tool(
    {
      name: "idle",
      description: "Wait for the session to be idle, or switch sessions",
      parameters: object({ session_id: { type: "string" } }),
    },
    async (args, ctx) => {
      if (typeof args["session_id"] !== "string") {
        await ctx.sessionControl.waitForIdle();
        return "idle";
      }
      await ctx.sessionControl.switchSession(args["session_id"]);
      return "switched";
    },
  );
  ext.tool(
    {
      name: "compact",
      description: "Queue a compaction after this reply",
      parameters: object({ instructions: { type: "string" }, fail: { type: "boolean" } }),
    },
    (args, ctx) => {
      ctx.sessionControl.compact({
        ...(typeof args["instructions"] === "string" ? { customInstructions: args["instructions"] } : {}),
        onSuccess: (result) => ext.notify({ level: "info", title: "compacted", message: JSON.stringify(result) }),
        onError: () => ext.notify({ level: "warning", title: "compaction failed", message: "compact" }),
      });
      if (args["fail"] === true) throw new Error("compact tool failed");
      return "queued";
    },
  );
  ext.tool(
    { name: "terminal", description: "Acquire and release the terminal", parameters: object({}) },
    async (_args, ctx) => {
      const grant = await ctx.terminal.acquire();
      await ctx.terminal.release();
      return JSON.stringify({ grant_id: grant.grant_id, columns: grant.columns, rows: grant.rows });
    },
  );
  ext.tool(
    { name: "oversize", description: "Set the composer one byte past its bound", parameters: object({}) },
    async (_args, ctx) => {
      try {
        await ctx.composer.set("x".repeat(262_145));
        return "sent";
      } catch (err) {
        return refusal(err);
      }
    },
  );
}
