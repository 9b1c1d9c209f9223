/**
 * octet's tool/render for an rpi tool with pi's renderCall/renderResult (REND-01): the bridge
 * sends the render invocation (protocol/frames.ts RenderInvocation) and answers with segments.
 *
 * Contract:
 * - The result pi's renderResult reads is rebuilt from tool/render's params: the output as one
 *   text part, is_error as isError, and the `details` of the tool's last result with the same
 *   arguments (RenderDetails: octet's tool/render carries no details, pi's renderers live on
 *   them); none remembered: no details.
 * - Width: RENDER_WIDTH cells (tool/render carries none; the CLI prints under a 4-cell indent).
 * - Segments: the renderCall lines (role "pi.call") then the renderResult lines (no role), or
 *   the plain output where the tool has no renderResult; text the renderer coloured with
 *   theme.fg(color, ...) has the role "pi.<color>" (the CLI colours "pi.error", "pi.success",
 *   "pi.warning", "pi.dim" by word); cut to the octet bounds (segments, MAX_RENDER_TEXT_BYTES).
 *   Nothing rendered at all, or the render failed: an error, so the host shows the plain output
 *   and says why in diagnostics (REND-03).
 */
import { ErrorCode, WireError, bounds, truncateUtf8, type RenderSegment } from "@octet/protocol";
import type { ProtocolResult, RenderInvocation } from "../protocol/frames.js";

/** Cells per rendered line. */
export const RENDER_WIDTH = 96;
/** Tool results whose details are remembered for tool/render. */
const REMEMBERED_RESULTS = 32;

/** The details of the last tool results, by tool name and arguments. */
export class RenderDetails {
  readonly #byCall = new Map<string, unknown>();

  static #key(name: string, args: unknown): string {
    let text: string;
    try {
      text = JSON.stringify(args ?? {});
    } catch {
      text = "";
    }
    return `${name}\u0000${text}`;
  }

  /** Keeps `value.details` of a pi tool result (AgentToolResult) when it has some. */
  remember(name: string, args: unknown, value: unknown): void {
    const details = (value as { details?: unknown } | null)?.details;
    if (details === undefined || details === null) return;
    const key = RenderDetails.#key(name, args);
    this.#byCall.delete(key);
    this.#byCall.set(key, details);
    if (this.#byCall.size > REMEMBERED_RESULTS) this.#byCall.delete(this.#byCall.keys().next().value as string);
  }

  recall(name: string, args: unknown): unknown {
    return this.#byCall.get(RenderDetails.#key(name, args));
  }
}

/** The render invocation for tool/render's params. */
export function toolRenderInvocation(params: Record<string, unknown>, details: RenderDetails): RenderInvocation {
  const name = String(params["name"]);
  const args = (params["arguments"] ?? {}) as Record<string, unknown>;
  const output = typeof params["output"] === "string" ? params["output"] : "";
  const remembered = details.recall(name, args);
  return {
    kind: "render",
    target: "tool",
    name,
    arguments: args,
    result: {
      content: [{ type: "text", text: output }],
      ...(remembered !== undefined ? { details: remembered } : {}),
      isError: params["is_error"] === true,
    },
    width: RENDER_WIDTH,
  };
}

const linesOf = (v: unknown): string[] | null =>
  Array.isArray(v) && v.every((l) => typeof l === "string") ? (v as string[]) : null;

/** The tool/render answer for the render invocation's result (see the module contract). */
export function toolRenderOutcome(r: ProtocolResult, output: string): { segments: RenderSegment[] } {
  if (r.status === "cancelled") throw new WireError(ErrorCode.RequestCancelled, "the render was cancelled");
  if (r.status === "error") throw new WireError(ErrorCode.InternalError, `the pi renderer failed: ${r.error.message}`);
  const value = (r.value ?? {}) as { call?: unknown; result?: unknown };
  const call = linesOf(value.call);
  const result = linesOf(value.result);
  if (call === null && result === null)
    throw new WireError(ErrorCode.InternalError, "the pi renderers returned nothing to show");
  const parts: RenderSegment[] = [];
  if (call !== null && call.length > 0) parts.push(...marked(`${call.join("\n")}\n`, "pi.call"));
  if (result !== null) parts.push(...marked(result.join("\n"), null));
  else parts.push({ text: output, style_role: null });
  return { segments: bounded(parts) };
}

/** A theme colour mark of the prelude's tool-render theme (prelude/render.ts ROLE_THEME); empty closes. */
const MARK = /\u001b\]7373;([^\u0007]*)\u0007/g;

/** Rendered text as segments: the text inside theme.fg(color, ...) has the role "pi.<color>", else `base`. */
function marked(text: string, base: string | null): RenderSegment[] {
  const out: RenderSegment[] = [];
  const stack: string[] = [];
  let last = 0;
  const push = (end: number): void => {
    if (end > last) out.push({ text: text.slice(last, end), style_role: stack.at(-1) ?? base });
  };
  for (const m of text.matchAll(MARK)) {
    push(m.index);
    if (m[1] === "") stack.pop();
    else stack.push(`pi.${m[1]}`);
    last = m.index + m[0].length;
  }
  push(text.length);
  return out;
}

/** Neighbours of one role merged; cut to MAX_RENDER_SEGMENTS (the rest plain) and MAX_RENDER_TEXT_BYTES. */
function bounded(parts: readonly RenderSegment[]): RenderSegment[] {
  const merged: RenderSegment[] = [];
  for (const p of parts) {
    const prev = merged.at(-1);
    if (prev !== undefined && (prev.style_role === p.style_role || merged.length >= bounds.MAX_RENDER_SEGMENTS))
      prev.text += p.text;
    else merged.push({ ...p });
  }
  const out: RenderSegment[] = [];
  let room = bounds.MAX_RENDER_TEXT_BYTES;
  for (const p of merged) {
    const cut = truncateUtf8(p.text, room);
    room -= Buffer.byteLength(cut, "utf8");
    if (cut !== "") out.push({ text: cut, style_role: p.style_role });
    if (room <= 0) break;
  }
  return out;
}
