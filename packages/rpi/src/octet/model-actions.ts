/**
 * pi.setModel and pi.setThinkingLevel: in-process calls on the embedder's session layer
 * (ForeignSessionLayer.setModel / setThinkingLevel), like registerProvider, not octet wire
 * requests: the spec has no model or thinking-level request, and only the agent can switch its
 * own model. Without a session layer (no agent) they are refused, saying so.
 */
import type { ForeignSessionLayer } from "@octet/protocol";

export type ModelLayer = Pick<ForeignSessionLayer, "setModel" | "setThinkingLevel">;

export const MODEL_ACTIONS = ["set_model", "set_thinking_level"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** pi.setModel's answer (true, or false for a model without a key) or the level in effect. */
export async function modelAction(
  action: { kind: string } & Record<string, unknown>,
  extension: string,
  layer: ModelLayer | undefined,
): Promise<unknown> {
  const api = action.kind === "set_model" ? "pi.setModel" : "pi.setThinkingLevel";
  const none = `${api} needs octet's agent (a session with a model configured): this host runs none`;
  if (action.kind === "set_model") {
    const m = isObject(action["model"]) ? action["model"] : {};
    if (typeof m["provider"] !== "string" || typeof m["id"] !== "string")
      throw new Error(`${api} needs a model with a provider and an id (got ${JSON.stringify(action["model"])})`);
    if (!layer?.setModel) throw new Error(none);
    return layer.setModel(extension, m["provider"], m["id"]);
  }
  if (!layer?.setThinkingLevel) throw new Error(none);
  return layer.setThinkingLevel(extension, String(action["level"]));
}
