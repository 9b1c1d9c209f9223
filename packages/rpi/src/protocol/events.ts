/**
 * The pi lifecycle event names an rpi extension may hook (QJS-07), and the older names public
 * extensions still register, mapped to the current ones.
 *
 * The source document speaks of "the 33 lifecycle hook names documented by the OMP ExtensionAPI"
 * without listing them. The list below is pi's ExtensionAPI at about v0.84 (the 33 names), plus
 * the three newer names pi has since added, so that extensions written for a newer pi load too;
 * octet never fires those three. See docs/decisions.md.
 */
export const PI_EVENTS_33 = [
  "project_trust",
  "resources_discover",
  "session_start",
  "session_info_changed",
  "session_before_switch",
  "session_before_fork",
  "session_before_compact",
  "session_compact",
  "session_shutdown",
  "session_before_tree",
  "session_tree",
  "context",
  "before_provider_request",
  "before_provider_headers",
  "after_provider_response",
  "before_agent_start",
  "agent_start",
  "agent_end",
  "agent_settled",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "model_select",
  "thinking_level_select",
  "tool_call",
  "tool_result",
  "user_bash",
  "input",
] as const;

/** Newer pi names: accepted at registration, never fired by octet. */
export const PI_EVENTS_NEWER = ["session_compact_failed", "ui_prompt_start", "ui_prompt_end"] as const;

/**
 * Older names -> the current event they now arrive as. Registering one works and warns once;
 * it never throws, because extensions in the wild still use them.
 * pi folded switch and fork into session_start{reason}; OMP says "branch" where pi says "fork";
 * rpi's trust_decision is pi's project_trust.
 */
export const PI_EVENT_ALIASES: Readonly<Record<string, string>> = {
  session_switch: "session_start",
  session_fork: "session_start",
  session_branch: "session_start",
  session_before_branch: "session_before_fork",
  session_directory: "session_start",
  trust_decision: "project_trust",
};

const KNOWN = new Set<string>([...PI_EVENTS_33, ...PI_EVENTS_NEWER]);

/** The event a registration of `name` listens to, whether it was an alias, or null when unknown. */
export function resolveEventName(name: string): { event: string; alias: boolean } | null {
  if (KNOWN.has(name)) return { event: name, alias: false };
  const mapped = PI_EVENT_ALIASES[name];
  return mapped === undefined ? null : { event: mapped, alias: true };
}
