/**
 * What an extension may ask of the host: the UI request -> uiCapability map (QJS-12) and the
 * session-action gate (RPI-38, RPI-39). Pure: answers with the refusal's message, or null.
 */
import type { ExtensionRequest, HelloManifest } from "../protocol/frames.js";

export interface RpiGrants {
  capabilities: readonly string[];
  uiCapabilities: readonly string[];
}

/** The uiCapability each UI request needs; null means the `ui` capability alone suffices. */
export const UI_REQUEST_GRANTS: Readonly<Record<string, string | null>> = {
  select: "select",
  confirm: "confirm",
  input: "input",
  editor: "editor",
  notify: "notify",
  status: "status",
  // setHeader/setFooter as text: octet's header and footer status surfaces, under the status grant.
  surface: "status",
  widget: "widget",
  title: "title",
  set_editor_text: "set_editor_text",
  get_editor_text: null,
  get_all_themes: null,
  get_theme: null,
  set_theme: null,
  get_tools_expanded: null,
};

export const SESSION_ACTIONS: readonly string[] = [
  "send_message",
  "send_user_message",
  "append_entry",
  "set_session_name",
  "set_label",
  "set_active_tools",
  "set_model",
  "set_thinking_level",
  "abort",
  "shutdown",
  "compact",
  "reload",
  "wait_for_idle",
  // pi's session replacement (command handlers only): the embedder's session layer does these.
  "switch_session",
  "new_session",
  "fork",
  "navigate_tree",
];

/** Why `request` is refused in this phase with these grants, or null when it may go to the host. */
export function requestRefusal(
  request: ExtensionRequest,
  phase: "load" | "ready",
  hello: HelloManifest,
  grants: RpiGrants,
): string | null {
  // Both the manifest's grant and the hello's claim are needed: the hello may narrow, never widen.
  const has = (c: string): boolean => grants.capabilities.includes(c) && hello.capabilities.includes(c);
  const hasUi = (c: string): boolean => grants.uiCapabilities.includes(c) && hello.uiCapabilities.includes(c);
  if (phase === "load")
    return (
      `runtime ${request.kind === "ui" ? "UI requests" : "actions"} are unavailable during the ` +
      `registration-only load phase`
    );
  if (request.kind === "action") {
    const kind = request.action.kind;
    if (!SESSION_ACTIONS.includes(kind)) return `unknown action "${kind}" (known: ${SESSION_ACTIONS.join(", ")})`;
    if (!has("session_actions"))
      return `the action "${kind}" needs the session_actions capability, which this extension does not have`;
    return null;
  }
  const type = request.ui.request.type;
  if (!Object.hasOwn(UI_REQUEST_GRANTS, type))
    return `unknown UI request type "${type}" (known: ${Object.keys(UI_REQUEST_GRANTS).join(", ")})`;
  if (!has("ui")) return `the UI request "${type}" needs the ui capability, which this extension does not have`;
  const needed = UI_REQUEST_GRANTS[type];
  if (needed && !hasUi(needed))
    return `the UI request "${type}" needs the "${needed}" uiCapability, which this extension does not have`;
  return null;
}
