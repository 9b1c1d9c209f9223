/**
 * What a tool call returns to the embedder. Every result is validated before it is believed:
 * its shape for the API version (CALL-12, CALL-15..17, CALL-21), media only with the artifacts
 * feature and resolved through the generation's artifact store (CALL-18, CALL-19),
 * structured_content against the tool's output_schema (CALL-20), and typed diagnostics in
 * metadata.octet_diagnostics_v1 against the shared profile, with every
 * artifact they reference resolved for the generation's owner (DIAG-04, DIAG-05). A result
 * that fails becomes a tool error with a short reason and a diagnostic; the generation stays up
 * (CALL-23).
 */
import {
  bounds,
  DIAGNOSTICS_METADATA_KEY,
  validateDiagnostics,
  validateToolResult,
  type NormalizedToolResult,
  type ToolDefinition,
  type WireDiagnostic,
  type WireDiagnosticSource,
} from "@octet/protocol";
import type { HostEvent } from "../events.js";
import type { Generation } from "./generation.js";
import { truncateBytes } from "../transport/stderr-sink.js";
import type { ResolvedMedia } from "../modules/artifacts/artifact-store.js";
import type { ToolSchemas } from "../schema-check/tool-schemas.js";

export interface ToolCallOutcome extends NormalizedToolResult {
  extension: string;
  /**
   * The verified bytes behind each image and audio part, in part order (absent when there are
   * none). Resolved while the generation that published them is alive, so they stay readable
   * after a reload; the bytes are the host's snapshot and must not be modified.
   */
  media?: ResolvedMedia[];
}

/** What an outcome needs of the generation that answered: a Generation, or any such object in a test. */
export type OutcomeGeneration = Pick<
  Generation,
  "name" | "api" | "number" | "features" | "media" | "owner" | "schemas"
>;

export function toolError(g: Pick<Generation, "name">, text: string): ToolCallOutcome {
  return { extension: g.name, parts: [{ type: "text", text }], text, is_error: true };
}

/** `schemas`: the compiled schemas of the epoch the call was planned from (its catalog snapshot's). */
export function toolOutcome(
  g: OutcomeGeneration,
  tool: ToolDefinition,
  raw: unknown,
  emit: (event: HostEvent) => void,
  schemas: ToolSchemas = g.schemas,
): ToolCallOutcome {
  const checked = validateToolResult(raw, g.api, tool);
  let problem: string | null = checked.ok ? null : checked.problems.join("; ");
  let resolved: ResolvedMedia[] = [];
  if (checked.ok) {
    const media = g.features.includes("artifacts") ? undefined : checked.value.parts.find((p) => p.type !== "text");
    if (media) problem = `content part of type "${media.type}" needs the artifacts feature, which was not negotiated`;
    else if (checked.value.parts.some((p) => p.type !== "text")) {
      // Resolved for the generation's own owner: the one the call ran under (CALL-18, ART-14).
      const r = g.media?.resolve(checked.value.parts, g.owner()) ?? {
        ok: false as const,
        problem: "no artifacts service is bound",
      };
      if (r.ok) resolved = r.media;
      else problem = r.problem;
    }
    if (problem === null && checked.value.structured_content !== undefined)
      problem = schemas.checkStructured(tool.name, checked.value.structured_content);
    if (problem === null) problem = diagnosticsProblem(g, checked.value);
  }
  if (!checked.ok || problem !== null) {
    const reason = truncateBytes(problem ?? "", bounds.MAX_LAST_ERROR_BYTES);
    emit({
      type: "diagnostic",
      extension: g.name,
      generation: g.number,
      level: "error",
      message: `invalid tool/call result for ${tool.name}: ${reason}`,
    });
    return toolError(g, `Tool ${tool.name} returned an invalid result: ${reason}`);
  }
  return outcomeOf(checked.value, g.name, resolved);
}

/**
 * The outcome built member by member, not as `{ ...result, extension }`: on Node 20 (V8 11.3)
 * that object spread made about a quarter of the host's per-call bytes survive young collections
 * (measured, and reproduced by a standalone loop; why V8's spread path does this was not pinned
 * down), so V8 grew the young generation to 16 MiB and promoted per-call garbage into the old one:
 * with the spread, 2.0 MB survived each scavenge at 64 calls in flight; built like this, 0.23 MB
 * (benchmarks/README.md, "Where the time goes").
 */
function outcomeOf(result: NormalizedToolResult, extension: string, media: ResolvedMedia[]): ToolCallOutcome {
  const { parts, text, is_error, structured_content, metadata } = result;
  // The members in the order the spread gave them, so a printed outcome reads as before.
  const out: Partial<ToolCallOutcome> = { parts, text, is_error };
  if (structured_content !== undefined) out.structured_content = structured_content;
  if (metadata !== undefined) out.metadata = metadata;
  out.extension = extension;
  if (media.length > 0) out.media = media;
  return out as ToolCallOutcome;
}

const DIAGNOSTICS_PATH = `metadata.${DIAGNOSTICS_METADATA_KEY}`;

/**
 * Why the result's typed diagnostics cannot be believed, or null (DIAG-04, DIAG-05). The profile
 * is checked again here: the host trusts no SDK. Then authority, independently of the SDK:
 * - an artifact source must name an artifact the generation's owner published (as media parts);
 * - a blob source is refused: bulk objects (BlobRef, bulk_objects_v1) are not implemented by
 *   this host, so no blob reference can be verified;
 * - an is_error result may reference no artifact or blob at all: a failed operation cannot
 *   publish new references (refused, not stripped: docs/decisions.md).
 * Fix edits are workspace-only suggestions; nothing here grants or applies them.
 */
function diagnosticsProblem(g: OutcomeGeneration, result: NormalizedToolResult): string | null {
  const metadata = result.metadata;
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) return null;
  const raw = (metadata as Record<string, unknown>)[DIAGNOSTICS_METADATA_KEY];
  if (raw === undefined || raw === null) return null;
  const checked = validateDiagnostics(raw, DIAGNOSTICS_PATH);
  if (!checked.ok) return `invalid diagnostics: ${checked.problems.join("; ")}`;
  for (const { where, source } of diagnosticReferences(checked.value)) {
    if (source.kind === "workspace") continue;
    if (result.is_error) {
      return (
        `${where}: an error result cannot publish ${source.kind} references through diagnostics; a ` +
        `failed operation publishes no new references (DIAG-05)`
      );
    }
    if (source.kind === "blob") {
      return (
        `${where}: blob references are not supported: bulk objects (bulk_objects_v1) are not implemented ` +
        `by this host, so no blob can be verified`
      );
    }
    const id = source.artifact_id;
    if (!g.media)
      return `${where}: artifact ${JSON.stringify(id.slice(0, 64))} cannot be resolved: no artifacts service is bound`;
    if (!g.media.get(id, g.owner())) {
      return (
        `${where}: unknown artifact ${JSON.stringify(id.slice(0, 64))}; an artifact is valid only for ` +
        `the session owner and process generation that published it`
      );
    }
  }
  return null;
}

/** Every source a diagnostic names, with its path: primary, related locations, attachments and edits. */
function diagnosticReferences(
  diagnostics: readonly WireDiagnostic[],
): { where: string; source: WireDiagnosticSource }[] {
  const out: { where: string; source: WireDiagnosticSource }[] = [];
  diagnostics.forEach((d, i) => {
    const base = `${DIAGNOSTICS_PATH}[${i}]`;
    if (d.primary) out.push({ where: `${base}.primary.source`, source: d.primary.source });
    d.related?.forEach((r, j) =>
      out.push({ where: `${base}.related[${j}].location.source`, source: r.location.source }),
    );
    d.fixes?.forEach((f, j) =>
      f.edits.forEach((e, k) =>
        out.push({ where: `${base}.fixes[${j}].edits[${k}].location.source`, source: e.location.source }),
      ),
    );
    d.attachments?.forEach((a, j) => out.push({ where: `${base}.attachments[${j}].source`, source: a.source }));
  });
  return out;
}
