/**
 * `octet mcp serve`: the enabled extensions' tools (and their commands as prompts) as an MCP
 * server on stdio, for MCP clients (Claude Code, Claude Desktop, Cursor, the MCP Inspector).
 * Built on the official MCP SDK's low-level Server: octet's catalog already holds JSON Schemas,
 * which McpServer would want as zod.
 *
 * stdout carries MCP only: host events and diagnostics go to stderr, and console.log is sent
 * there too, so nothing a library prints can break the client's framing. A tool call maps MCP's
 * progressToken to the call's progress, MCP cancellation (the request's signal) to octet's
 * $/cancelRequest, confirmations and inputs to elicitation (elicitation.ts). Catalog changes
 * (dynamic tools, an extension restarted or gone) become tools/list_changed and
 * prompts/list_changed. The server ends when the client closes stdin, or at SIGINT/SIGTERM.
 */
import { ExtensionHost, type ExtensionHost as Host } from "@octet/host";
import { OCTET_VERSION } from "@octet/protocol";
import type { GlobalOptions } from "../args.js";
import { EXIT_OK, EXIT_UNAVAILABLE } from "../exit-codes.js";
import { hostOptions, withHost } from "../session.js";
import { UsageError } from "../usage-error.js";
import { elicitingServices } from "./elicitation.js";
import { errorResult, mcpPrompt, mcpResult, mcpTool, ProgressMapper } from "./serve-mapping.js";

/** How often the catalog is compared with what the client was told, besides at every host event. */
const CATALOG_POLL_MS = 1000;

export async function mcpServe(options: GlobalOptions, rest: string[]): Promise<number> {
  if (rest.length > 0) throw new UsageError(`mcp serve takes no arguments; got: ${rest.join(" ")}`);
  if (options.json) throw new UsageError("mcp serve speaks MCP on stdout; --json does not apply");
  // Before anything can print: stdout is the MCP channel from here on.
  console.log = console.error;
  console.info = console.error;
  const [{ Server }, { StdioServerTransport }, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const server = new Server(
    { name: "octet", version: OCTET_VERSION },
    { capabilities: { tools: { listChanged: true }, prompts: { listChanged: true } } },
  );
  const note = (message: string): void => void process.stderr.write(`octet: ${message}\n`);
  const base = hostOptions(options);
  const services = {
    ...base.services,
    ...elicitingServices(server, { yes: options.yes, noInput: options.noInput, note }),
  };

  const outcome = await withHost(
    (signal) => ExtensionHost.start({ ...base, services, signal }),
    async (host, signal) => {
      const listed = { tools: "", prompts: "" };
      const toolsKey = (): string => JSON.stringify(host.tools());
      const promptsKey = (): string => JSON.stringify(host.commands());
      const check = (): void => {
        const tools = toolsKey();
        if (tools !== listed.tools && listed.tools !== "") void server.sendToolListChanged().catch(() => {});
        const prompts = promptsKey();
        if (prompts !== listed.prompts && listed.prompts !== "") void server.sendPromptListChanged().catch(() => {});
        // Told once per change: the client lists again and gets the new catalog.
        if (listed.tools !== "") listed.tools = tools;
        if (listed.prompts !== "") listed.prompts = prompts;
      };
      server.setRequestHandler(types.ListToolsRequestSchema, async () => {
        listed.tools = toolsKey();
        return { tools: host.tools().map(mcpTool) } as never;
      });
      server.setRequestHandler(types.CallToolRequestSchema, async (request, extra) =>
        callTool(host, request.params, extra, check),
      );
      server.setRequestHandler(types.ListPromptsRequestSchema, async () => {
        listed.prompts = promptsKey();
        return { prompts: host.commands().map(mcpPrompt) } as never;
      });
      server.setRequestHandler(types.GetPromptRequestSchema, async (request, extra) => {
        const args = request.params.arguments?.["args"] ?? "";
        const words = args.split(/\s+/).filter((w) => w !== "");
        try {
          const r = await host.runCommand(request.params.name, words, { signal: extra.signal });
          return {
            description: `/${request.params.name} ${args}`.trim(),
            messages: [{ role: "user", content: { type: "text", text: r.text } }],
          };
        } catch (err) {
          throw new types.McpError(types.ErrorCode.InvalidParams, err instanceof Error ? err.message : String(err));
        }
      });
      const unsubscribe = host.onEvent(() => setImmediate(check));
      const poll = setInterval(check, CATALOG_POLL_MS);
      poll.unref();
      const transport = new StdioServerTransport();
      server.onerror = (err) => note(`MCP: ${err.message}`);
      const closed = new Promise<void>((resolve) => {
        server.onclose = resolve;
        process.stdin.once("end", () => void server.close());
        // A client gone without closing our stdin (EPIPE on stdout) ends the server too.
        process.stdout.once("error", () => void server.close());
        signal.addEventListener("abort", () => void server.close(), { once: true });
      });
      await server.connect(transport);
      await closed;
      clearInterval(poll);
      unsubscribe();
    },
  );
  if (outcome.error !== undefined) {
    note(outcome.error instanceof Error ? outcome.error.message : String(outcome.error));
    return EXIT_UNAVAILABLE;
  }
  return EXIT_OK;
}

type Extra = {
  signal: AbortSignal;
  _meta?: { progressToken?: string | number | undefined } | undefined;
  sendNotification: (n: { method: "notifications/progress"; params: Record<string, unknown> }) => Promise<void>;
};

async function callTool(
  host: Host,
  params: { name: string; arguments?: Record<string, unknown> | undefined },
  extra: Extra,
  after: () => void,
): Promise<never> {
  const token = extra._meta?.progressToken;
  const progress = new ProgressMapper();
  // A client drops progress that arrives after the result: the result waits for what was sent.
  const sent: Promise<void>[] = [];
  const onProgress =
    token === undefined
      ? undefined
      : (event: Parameters<ProgressMapper["map"]>[0]): void => {
          const p = progress.map(event);
          if (p === null) return;
          sent.push(
            extra
              .sendNotification({ method: "notifications/progress", params: { progressToken: token, ...p } })
              .catch(() => {}),
          );
        };
  try {
    const outcome = await host.callTool(params.name, params.arguments ?? {}, {
      signal: extra.signal,
      ...(onProgress ? { onProgress } : {}),
    });
    await Promise.all(sent);
    return mcpResult(outcome) as never;
  } catch (err) {
    // Not reached, not ready, crashed, cancelled: the client's model reads why.
    return errorResult(err instanceof Error ? err.message : String(err)) as never;
  } finally {
    // A call may have changed the catalog (a dynamic tool registered): say so without waiting for the poll.
    after();
  }
}
