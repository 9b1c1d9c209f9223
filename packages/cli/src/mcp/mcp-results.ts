/**
 * MCP shapes as octet's, for an MCP server run as an octet extension: its tools as octet tool
 * definitions (names fitted to octet's rule) and its call results as octet results.
 */
import { bounds, truncateUtf8, type ContentPart, type ToolDefinition } from "@octet/protocol";

/** An MCP tool as tools/list gives it (the fields octet reads). */
export interface McpTool {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown> | undefined;
}

/** octet's tool names are ^[A-Za-z0-9_-]{1,128}$; MCP's may hold "." or "/": those become "_". */
export function octetToolName(mcpName: string): string {
  return mcpName.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, bounds.MAX_TOOL_NAME_BYTES) || "_";
}

/** The server's tools as octet definitions, with the MCP name of each; a name two tools fit to is kept once. */
export function octetTools(
  tools: readonly McpTool[],
  warn: (message: string) => void,
): Map<string, { mcp: string; def: ToolDefinition }> {
  const out = new Map<string, { mcp: string; def: ToolDefinition }>();
  for (const t of tools) {
    const name = octetToolName(t.name);
    if (out.has(name)) {
      warn(`MCP tools "${out.get(name)!.mcp}" and "${t.name}" are both "${name}" in octet; "${t.name}" is left out`);
      continue;
    }
    const description = truncateUtf8(t.description?.trim() || t.title?.trim() || t.name, bounds.MAX_DESCRIPTION_BYTES);
    const def: ToolDefinition = { name, description, parameters: { type: "object", ...t.inputSchema } };
    if (t.outputSchema) def.output_schema = t.outputSchema;
    out.set(name, { mcp: t.name, def });
  }
  return out;
}

function bytesOf(base64: unknown): number {
  return typeof base64 === "string" ? Math.floor((base64.replace(/=+$/, "").length * 3) / 4) : 0;
}

/** One MCP content block as text octet can carry: media is named, not dropped silently. */
function partText(block: Record<string, unknown>): string {
  switch (block["type"]) {
    case "text":
      return String(block["text"] ?? "");
    case "image":
    case "audio":
      // Media octet could not take as an artifact (no artifacts feature, another type, too large) is named.
      return (
        `[${String(block["type"])} ${String(block["mimeType"] ?? "")}, ${bytesOf(block["data"])} bytes: ` + "not shown]"
      );
    case "resource": {
      const r = (block["resource"] ?? {}) as Record<string, unknown>;
      if (typeof r["text"] === "string") return r["text"];
      return `[resource ${String(r["uri"] ?? "")}, ${bytesOf(r["blob"])} bytes]`;
    }
    case "resource_link":
      return `[resource ${String(block["name"] ?? "")}: ${String(block["uri"] ?? "")}]`;
    default:
      return `[${String(block["type"])} content]`;
  }
}

/**
 * Publishes one MCP image or audio block as an artifact of the call (artifact/publish) and
 * answers its id, or null when it cannot be (no artifacts feature, a type or size octet does not
 * take): the block is then named as text.
 */
export type MediaPublisher = (mimeType: string, base64: string) => Promise<string | null>;

/** An MCP CallToolResult as an octet API 0.4 tool result. */
export async function octetResult(
  result: Record<string, unknown>,
  publish: MediaPublisher = async () => null,
): Promise<{ content: ContentPart[]; is_error: boolean; structured_content?: unknown }> {
  const blocks = Array.isArray(result["content"]) ? (result["content"] as Record<string, unknown>[]) : [];
  const content: ContentPart[] = [];
  for (const b of blocks) {
    const block = b ?? {};
    const type = block["type"];
    const mime = String(block["mimeType"] ?? "");
    if ((type === "image" || type === "audio") && typeof block["data"] === "string") {
      const id = await publish(mime, block["data"]);
      if (id !== null) {
        content.push({ type, artifact_id: id, mime_type: mime });
        continue;
      }
    }
    content.push({ type: "text", text: partText(block) });
  }
  const structured = result["structuredContent"];
  // octet needs a text part; MCP may answer with structured content only.
  if (!content.some((c) => c.type === "text"))
    content.push({ type: "text", text: structured !== undefined ? JSON.stringify(structured) : "" });
  const out: { content: ContentPart[]; is_error: boolean; structured_content?: unknown } = {
    content,
    is_error: result["isError"] === true,
  };
  if (structured !== undefined && result["isError"] !== true) out.structured_content = structured;
  return out;
}
