/**
 * pi's session actions as octet's Wave-1 requests (W 2.21-2.23, WAVE1-38): what an rpi extension
 * with the `session_actions` capability asks (pi.appendEntry, pi.sendMessage, ...) becomes the
 * octet reverse request of the same meaning, parented to the call it came from or, from a hook
 * the session layer delivered, under the owner triple the host issued to the extension.
 *
 * The mapping (WAVE1-38's default): a custom message (pi.sendMessage's only shape) ->
 * session/append_entry, with its display flag recorded in the payload and not rendered by the host
 * (WAVE1-39); an assistant or system message -> session/send_message; a user message ->
 * session/send_user_message. pi.appendEntry -> session/append_entry, setSessionName ->
 * session/set_name, setLabel -> session/set_label, setActiveTools -> tools/set_active,
 * ctx.compact -> session/compact, ctx.waitForIdle -> session/wait_for_idle.
 */
import { truncateUtf8, type ForeignSessionControl, type ResourceOwner } from "@octet/protocol";

/** The most of a message renderer's text kept with a displayed custom message. */
const MAX_RENDERED_BYTES = 16 * 1024;

/** The features the bridge selects for these requests when the host offers them. */
export const SESSION_ACTION_FEATURES = [
  "session_entries",
  "message_injection",
  "active_tools",
  "session_control_v1",
  "session_compaction_v1",
] as const;

/** Who asks: the live octet request it belongs to, or (none live) the issued owner triple. */
export type ActionOwner = { parent_request_id: number } | { parent_request_id: number; resource_owner: ResourceOwner };

export type MappedAction = { method: string; feature: string; params: Record<string, unknown> } | { refused: string };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The text of pi message content: a string, or the text parts of a content list. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p) => isObject(p) && p["type"] === "text" && typeof p["text"] === "string")
    .map((p) => (p as { text: string }).text)
    .join("\n");
}

/** The octet request for one pi action, or why it has none. */
export function mapSessionAction(action: { kind: string } & Record<string, unknown>, owner: ActionOwner): MappedAction {
  const str = (k: string): string => (typeof action[k] === "string" ? (action[k] as string) : "");
  switch (action.kind) {
    case "append_entry":
      return {
        method: "session/append_entry",
        feature: "session_entries",
        params: { ...owner, entry_type: str("customType"), data: action["data"] ?? null },
      };
    case "send_message": {
      const m = isObject(action["message"]) ? action["message"] : {};
      const role = m["role"];
      if (role === "user")
        return {
          method: "session/send_user_message",
          feature: "message_injection",
          params: { ...owner, text: textOf(m["content"]) },
        };
      if (role === "assistant" || role === "system")
        return {
          method: "session/send_message",
          feature: "message_injection",
          params: { ...owner, role, text: textOf(m["content"]) },
        };
      // A custom message: an entry of its customType whose payload keeps what pi gave, display
      // included (recorded, not rendered: WAVE1-39).
      const payload: Record<string, unknown> = { content: m["content"] ?? "", display: m["display"] === true };
      if (m["details"] !== undefined) payload["details"] = m["details"];
      // What the extension's message renderer drew at send time (prelude render.ts), for a frontend.
      const rendered = action["rendered"];
      if (Array.isArray(rendered) && rendered.every((l) => typeof l === "string"))
        payload["rendered"] = truncateUtf8(rendered.join("\n"), MAX_RENDERED_BYTES);
      return {
        method: "session/append_entry",
        feature: "session_entries",
        params: { ...owner, entry_type: typeof m["customType"] === "string" ? m["customType"] : "", data: payload },
      };
    }
    case "send_user_message":
      return {
        method: "session/send_user_message",
        feature: "message_injection",
        params: { ...owner, text: textOf(action["content"]) },
      };
    case "set_session_name":
      return { method: "session/set_name", feature: "session_entries", params: { ...owner, name: str("name") } };
    case "set_label":
      return {
        method: "session/set_label",
        feature: "session_entries",
        params: {
          ...owner,
          entry_id: str("entryId"),
          label: typeof action["label"] === "string" ? action["label"] : "",
        },
      };
    case "set_active_tools":
      return {
        method: "tools/set_active",
        feature: "active_tools",
        params: { ...owner, names: Array.isArray(action["toolNames"]) ? action["toolNames"] : [] },
      };
    case "compact":
      return {
        method: "session/compact",
        feature: "session_compaction_v1",
        params: {
          ...owner,
          ...(typeof action["customInstructions"] === "string"
            ? { custom_instructions: action["customInstructions"] }
            : {}),
        },
      };
    case "wait_for_idle":
      return { method: "session/wait_for_idle", feature: "session_control_v1", params: { ...owner } };
    case "switch_session": {
      // octet names a session file <stamp>_<id>.jsonl; session/switch takes the id.
      const id = /_([^_/]+)\.jsonl$/.exec(str("sessionPath"))?.[1];
      if (id === undefined)
        return { refused: `ctx.switchSession: ${JSON.stringify(str("sessionPath"))} is not an octet session file` };
      return { method: "session/switch", feature: "session_control_v1", params: { ...owner, session_id: id } };
    }
    case "new_session":
    case "fork":
    case "navigate_tree": {
      // With a session layer that offers control these never get here (controlAction).
      const api = { new_session: "ctx.newSession", fork: "ctx.fork", navigate_tree: "ctx.navigateTree" }[action.kind];
      return {
        refused:
          `octet has no session request for ${api}: only the embedder's session layer (octet's agent, with a ` +
          "model configured) creates, forks or navigates sessions, and this host has none",
      };
    }
    default:
      return { refused: `octet has no session request for the pi action "${action.kind}"` };
  }
}

/** The pi actions the embedder's session layer does itself (ForeignSessionLayer.control). */
export const CONTROL_ACTIONS: readonly string[] = ["new_session", "fork", "navigate_tree"];

/**
 * ctx.newSession, ctx.fork, ctx.navigateTree through the session layer: not octet wire methods
 * (session_control_v1 names only wait_for_idle and switch), so the runtime asks the layer directly.
 */
export function controlAction(
  action: { kind: string } & Record<string, unknown>,
  control: ForeignSessionControl,
  extension: string,
): Promise<{ cancelled: boolean }> {
  const str = (k: string): string | undefined => (typeof action[k] === "string" ? (action[k] as string) : undefined);
  const opt = <T>(k: string, v: T | undefined): Record<string, T> => (v === undefined ? {} : { [k]: v });
  const bool = (k: string): boolean | undefined =>
    typeof action[k] === "boolean" ? (action[k] as boolean) : undefined;
  switch (action.kind) {
    case "new_session":
      return control.newSession({
        extension,
        ...opt("parentSession", str("parentSession")),
        ...(Array.isArray(action["entries"]) ? { entries: action["entries"] as Record<string, unknown>[] } : {}),
      });
    case "fork":
      return control.fork({
        extension,
        entryId: str("entryId") ?? "",
        position: str("position") === "at" ? "at" : "before",
      });
    default:
      return control.navigateTree({
        extension,
        targetId: str("targetId") ?? "",
        ...opt("summarize", bool("summarize")),
        ...opt("customInstructions", str("customInstructions")),
        ...opt("replaceInstructions", bool("replaceInstructions")),
        ...opt("label", str("label")),
      });
  }
}
