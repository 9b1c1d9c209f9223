/**
 * The names of the pi events the agent delivers itself (pi-events.ts), in a module of their own
 * that imports nothing: the CLI passes them to the host as its `sessionLayer` events before it
 * loads the agent (and pi-ai) at all. Exported as "@octet/agent/pi-events".
 */
/**
 * The pi events the agent delivers. The embedder passes them as the host's `sessionLayer`
 * events, so the rpi runtime does not also map them onto octet's hooks and lifecycle events.
 */
export const PI_SESSION_EVENTS = [
  "session_start",
  "session_shutdown",
  "input",
  "before_agent_start",
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "context",
  "before_provider_request",
  "after_provider_response",
  "tool_call",
  "tool_result",
  "tool_execution_start",
  "tool_execution_end",
  "session_before_switch",
  "session_before_compact",
  "session_compact",
  "model_select",
  "session_before_fork",
  "session_before_tree",
  "session_tree",
  "user_bash",
  "thinking_level_select",
  "message_start",
  "message_end",
  "resources_discover",
] as const;
