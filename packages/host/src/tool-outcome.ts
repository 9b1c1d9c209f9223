/**
 * What a tool call returns to the embedder. Every result is validated before it is believed:
 * its shape for the API version (CALL-12, CALL-15..17, CALL-21), media only with the artifacts
 * feature (CALL-18), and structured_content against the tool's output_schema (CALL-20). A result
 * that fails becomes a tool error with a short reason and a diagnostic; the generation stays up
 * (CALL-23).
 */
import { bounds, validateToolResult, type NormalizedToolResult, type ToolDefinition } from "@octet/protocol";
import type { HostEvent } from "./events.js";
import type { Generation } from "./generation.js";
import { truncateBytes } from "./transport/stderr-sink.js";

export interface ToolCallOutcome extends NormalizedToolResult {
  extension: string;
}

export function toolError(g: Generation, text: string): ToolCallOutcome {
  return { extension: g.name, parts: [{ type: "text", text }], text, is_error: true };
}

export function toolOutcome(g: Generation, tool: ToolDefinition, raw: unknown, emit: (event: HostEvent) => void): ToolCallOutcome {
  const checked = validateToolResult(raw, g.api, tool);
  let problem: string | null = checked.ok ? null : checked.problems.join("; ");
  if (checked.ok) {
    const media = g.features.includes("artifacts") ? undefined : checked.value.parts.find((p) => p.type !== "text");
    if (media) problem = `content part of type "${media.type}" needs the artifacts feature, which was not negotiated`;
    else if (checked.value.structured_content !== undefined) problem = g.checkStructured(tool.name, checked.value.structured_content);
  }
  if (!checked.ok || problem !== null) {
    const reason = truncateBytes(problem ?? "", bounds.MAX_LAST_ERROR_BYTES);
    emit({ type: "diagnostic", extension: g.name, generation: g.number, level: "error", message: `invalid tool/call result for ${tool.name}: ${reason}` });
    return toolError(g, `Tool ${tool.name} returned an invalid result: ${reason}`);
  }
  return { ...checked.value, extension: g.name };
}
