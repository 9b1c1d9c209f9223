/**
 * pi's UI requests that land on octet's frontend surfaces (issue 17, item 7):
 * - "surface" (ctx.ui.setHeader/setFooter rendered to lines by the prelude) -> a
 *   status/contribution on the "header" or "footer" surface, the lines joined by newlines and cut
 *   to MAX_STATUS_TEXT_BYTES; no lines (the factory removed) -> an empty text;
 * - "set_editor_text" / "get_editor_text" (ctx.ui.setEditorText/getEditorText) -> composer/set and
 *   composer/get (WAVE1-14..17), parented like the session actions: the live call the request
 *   names, else the owner triple the host issued. Only when the host offered `composer` (the
 *   shell does; `octet run` has no composer): otherwise a refusal that says so.
 * Any other request type is not handled here (undefined).
 */
import { bounds, truncateUtf8 } from "@octet/protocol";
import type { ActionOwner } from "./session-actions.js";

export interface FrontendUiContext {
  /** The features initialize selected. */
  negotiated(): readonly string[];
  /** Who asks for the request that names `parent` (see the module contract), or null. */
  owner(parent: unknown): ActionOwner | null;
  notify(method: string, params: Record<string, unknown>): void;
  /** A reverse request to the host, withdrawn with the extension's request. */
  ask(method: string, params: Record<string, unknown>): Promise<unknown>;
}

const SURFACES = ["header", "footer"];

/** The answer to a surface or composer request, or undefined for any other type. */
export async function mapFrontendUi(
  request: { type: string } & Record<string, unknown>,
  parent: unknown,
  ctx: FrontendUiContext,
): Promise<Record<string, unknown> | undefined> {
  if (request.type === "surface") {
    const surface = request["surface"];
    if (typeof surface !== "string" || !SURFACES.includes(surface))
      throw new Error(`a surface request needs surface "header" or "footer" (got ${JSON.stringify(surface)})`);
    const lines = Array.isArray(request["lines"]) ? (request["lines"] as unknown[]).map(String) : [];
    ctx.notify("status/contribution", {
      surface,
      text: truncateUtf8(lines.join("\n"), bounds.MAX_STATUS_TEXT_BYTES),
      style_role: null,
      priority: 0,
    });
    return {};
  }
  if (request.type !== "set_editor_text" && request.type !== "get_editor_text") return undefined;
  const set = request.type === "set_editor_text";
  const method = set ? "composer/set" : "composer/get";
  if (!ctx.negotiated().includes("composer"))
    throw new Error(`the host cannot process the UI request "${request.type}": it did not offer composer (${method})`);
  const owner = ctx.owner(parent);
  if (owner === null)
    throw new Error(`the host cannot process the UI request "${request.type}": no call or issued owner to act for`);
  const text = typeof request["text"] === "string" ? request["text"] : "";
  const answer = (await ctx.ask(method, set ? { ...owner, text } : { ...owner })) as { text?: unknown } | null;
  return set ? {} : { value: typeof answer?.text === "string" ? answer.text : "" };
}
