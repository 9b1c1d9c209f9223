/**
 * What a tool call returns to the embedder. Every result is validated before it is believed:
 * its shape for the API version (CALL-12, CALL-15..17, CALL-21), media only with the artifacts
 * feature and resolved through the generation's artifact store (CALL-18, CALL-19), and structured_content against the tool's output_schema (CALL-20). A result
 * that fails becomes a tool error with a short reason and a diagnostic; the generation stays up
 * (CALL-23).
 */
import { bounds, validateToolResult, type NormalizedToolResult, type ToolDefinition } from "@octet/protocol";
import type { HostEvent } from "./events.js";
import type { Generation } from "./generation.js";
import { truncateBytes } from "./transport/stderr-sink.js";
import type { ResolvedMedia } from "./services/artifacts/artifact-store.js";

export interface ToolCallOutcome extends NormalizedToolResult {
  extension: string;
  /**
   * The verified bytes behind each image and audio part, in part order (absent when there are
   * none). Resolved while the generation that published them is alive, so they stay readable
   * after a reload; the bytes are the host's snapshot and must not be modified.
   */
  media?: ResolvedMedia[];
}

export function toolError(g: Generation, text: string): ToolCallOutcome {
  return { extension: g.name, parts: [{ type: "text", text }], text, is_error: true };
}

export function toolOutcome(g: Generation, tool: ToolDefinition, raw: unknown, emit: (event: HostEvent) => void): ToolCallOutcome {
  const checked = validateToolResult(raw, g.api, tool);
  let problem: string | null = checked.ok ? null : checked.problems.join("; ");
  let resolved: ResolvedMedia[] = [];
  if (checked.ok) {
    const media = g.features.includes("artifacts") ? undefined : checked.value.parts.find((p) => p.type !== "text");
    if (media) problem = `content part of type "${media.type}" needs the artifacts feature, which was not negotiated`;
    else if (checked.value.parts.some((p) => p.type !== "text")) {
      // Resolved for the generation's own owner: the one the call ran under (CALL-18, ART-14).
      const r = g.media?.resolve(checked.value.parts, g.owner()) ?? { ok: false as const, problem: "no artifacts service is bound" };
      if (r.ok) resolved = r.media;
      else problem = r.problem;
    }
    if (problem === null && checked.value.structured_content !== undefined) problem = g.checkStructured(tool.name, checked.value.structured_content);
  }
  if (!checked.ok || problem !== null) {
    const reason = truncateBytes(problem ?? "", bounds.MAX_LAST_ERROR_BYTES);
    emit({ type: "diagnostic", extension: g.name, generation: g.number, level: "error", message: `invalid tool/call result for ${tool.name}: ${reason}` });
    return toolError(g, `Tool ${tool.name} returned an invalid result: ${reason}`);
  }
  return resolved.length > 0 ? { ...checked.value, extension: g.name, media: resolved } : { ...checked.value, extension: g.name };
}
