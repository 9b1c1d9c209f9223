/**
 * octet's shapes as MCP's, for `octet mcp serve`: tools as MCP tools, results as CallToolResults
 * (verified media as image and audio content), progress events as MCP progress, commands as
 * prompts. Pure functions over the host's types.
 */
import type { HostCommand, HostTool, ToolCallOutcome } from "@octet/host";
import type { ProgressEvent } from "@octet/protocol";

/** Characters of an output chunk carried as a progress message. */
const MAX_PROGRESS_MESSAGE = 200;

export function mcpTool(t: HostTool): Record<string, unknown> {
  const tool: Record<string, unknown> = {
    name: t.name,
    description: t.description,
    inputSchema: { type: "object", ...t.parameters },
  };
  // MCP's outputSchema is an object schema, and a client then requires structuredContent: only those.
  const out = t.output_schema;
  if (out && out["type"] === "object") tool["outputSchema"] = out;
  return tool;
}

export function mcpPrompt(c: HostCommand): Record<string, unknown> {
  return {
    name: c.name,
    description: c.description,
    arguments: [{ name: "args", description: `the command's arguments: ${c.usage}`, required: false }],
  };
}

/** A tool outcome as an MCP CallToolResult: text as text, verified media as image/audio data. */
export function mcpResult(outcome: ToolCallOutcome): Record<string, unknown> {
  const media = new Map((outcome.media ?? []).map((m) => [m.part, m]));
  const content = outcome.parts.map((p, i) => {
    if (p.type === "text") return { type: "text", text: p.text };
    const m = media.get(i);
    if (!m) return { type: "text", text: `[${p.type} ${p.mime_type}: not available]` };
    return { type: p.type, data: Buffer.from(m.bytes).toString("base64"), mimeType: m.mime_type };
  });
  const result: Record<string, unknown> = { content, isError: outcome.is_error };
  const s = outcome.structured_content;
  if (s !== null && typeof s === "object" && !Array.isArray(s) && !outcome.is_error) result["structuredContent"] = s;
  return result;
}

export function errorResult(message: string): Record<string, unknown> {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * MCP progress must increase with each notification: a status event's `current` when it does,
 * else one more than the last. Output becomes the message (octet's output lines are progress too).
 */
export class ProgressMapper {
  #last = 0;

  map(event: ProgressEvent): { progress: number; total?: number; message?: string } | null {
    let message: string | undefined;
    let current: number | undefined;
    let total: number | undefined;
    if (event.type === "status") {
      message = event.message;
      current = event.current;
      total = event.total;
    } else if (event.type === "output") {
      const text = event.encoding === "utf8" ? event.data : "(binary output)";
      message = `[${event.stream}] ${text.trimEnd().slice(0, MAX_PROGRESS_MESSAGE)}`;
    } else return null;
    this.#last = current !== undefined && current > this.#last ? current : this.#last + 1;
    const out: { progress: number; total?: number; message?: string } = { progress: this.#last };
    if (total !== undefined && total >= this.#last) out.total = total;
    if (message) out.message = message;
    return out;
  }
}
