/**
 * The examples of the wire reference (000_04c7c868c77fa035.txt, sections 1.1-1.10 and 2.1-2.7),
 * copied verbatim as the params or result member. They are normative (FRAME-15), so every
 * validator must accept them.
 */

/** 1.1: the API 0.1 initialize response result. */
export const INIT_RESULT_V01 = {
  api_version: "0.1",
  tools: [
    {
      name: "hello_world",
      description: "Greet someone from an executable extension",
      parameters: {
        type: "object",
        properties: { name: { type: "string" } },
        required: ["name"],
        additionalProperties: false,
      },
    },
  ],
  commands: [{ name: "hello", description: "Show a greeting notification", usage: "/hello [name]" }],
};

/** 1.1: contributes of the example request. */
export const CONTRIBUTES = { tools: ["hello_world"], commands: ["hello"] };

/** 1.1: the API 0.2 protocol offer of the request. */
export const PROTOCOL_OFFER_V02 = {
  version: "0.2",
  required_features: ["request_cancellation", "content_parts"],
  optional_features: [
    "request_progress",
    "artifacts",
    "lifecycle_events",
    "policy_intents",
    "dynamic_tools",
    "runtime_commands",
  ],
  limits: { max_concurrent_requests: 64 },
};

/** 1.1: the API 0.2 protocol member of the response. */
export const PROTOCOL_SELECTION_V02 = {
  version: "0.2",
  features: [
    "request_cancellation",
    "content_parts",
    "request_progress",
    "artifacts",
    "lifecycle_events",
    "dynamic_tools",
    "runtime_commands",
  ],
  limits: { max_concurrent_requests: 4 },
  lifecycle_events: [
    "session/started",
    "session/settled",
    "turn/started",
    "turn/settled",
    "tool/started",
    "tool/settled",
  ],
};

/** 1.2: tool/call params. */
export const TOOL_CALL_PARAMS = {
  name: "git_status",
  arguments: { include_ignored: false, max_entries: 80 },
  catalog_revision: 2,
  context: {
    workspace: "/home/user/project",
    execution_scope: null,
    resource_owner: {
      session_id: "durable-session-owner",
      extension_instance_id: "host-created-instance-fence",
      process_generation: 3,
    },
    host: { session_id: "abc123", session_name: null, model: "claude-sonnet-4-6", reasoning: null, active_skills: [] },
  },
};

/** 1.2: the API 0.1 tool/call result. */
export const TOOL_RESULT_V01 = {
  content: "branch=main\nstate=clean\ncounts=staged:0,modified:0,untracked:0,ignored:0,conflicted:0",
  is_error: false,
};

/** 1.2: the API 0.2 tool/call result. */
export const TOOL_RESULT_V02 = {
  content: [
    { type: "text", text: "Found 3 sources." },
    { type: "image", artifact_id: "artifact-opaque-id", mime_type: "image/png", alt: "Search result preview" },
  ],
  structured_content: { sources: [{ title: "Example", url: "https://example.com" }] },
  is_error: false,
  metadata: { cache: "miss" },
};

const PROCESS_CONTEXT = { workspace: "/home/user/project", execution_scope: null, host: {} };

/** 1.3: command/execute params and result. */
export const COMMAND_EXECUTE_PARAMS = { name: "checkpoint", arguments: ["release-v2"], context: PROCESS_CONTEXT };
export const COMMAND_RESULT = {
  text: "Checkpoint preview · release-v2\nmain · clean\n\n...",
  notifications: [
    { level: "info", title: "Read-only checkpoint", message: "No commit or filesystem mutation was performed." },
  ],
  context: [],
};

/** 1.4: hook/run params and result. */
export const HOOK_RUN_PARAMS = {
  hook: "before_prompt",
  payload: { prompt: "the user's current input text..." },
  context: PROCESS_CONTEXT,
};
export const HOOK_RESULT = {
  disposition: { action: "continue" },
  context: [
    { label: "local-model-workflow", content: "Local-model workflow is active...", placement: "system_suffix" },
  ],
  notifications: [],
};

/** 1.5: context/collect params and result. */
export const CONTEXT_COLLECT_PARAMS = { prompt: null, context: PROCESS_CONTEXT };
export const CONTEXT_COLLECT_RESULT = [
  { label: "hello-world", content: "The hello-world extension is active.", placement: "system_suffix" },
];

/** 1.6: status/collect params and result. */
export const STATUS_COLLECT_PARAMS = { surface: "status", context: PROCESS_CONTEXT };
export const STATUS_RESULT = {
  surface: "status",
  text: "hello",
  style_role: "extension.hello_world.status",
  priority: 0,
};

/** 1.7: tool/render params and result. */
export const TOOL_RENDER_PARAMS = {
  name: "git_status",
  arguments: {},
  output: "branch=main\nstate=clean\n...",
  is_error: false,
  context: PROCESS_CONTEXT,
};
export const RENDER_RESULT = {
  segments: [
    { text: "git · clean", style_role: "extension.git_tools.clean" },
    { text: "\n", style_role: null },
    { text: "...", style_role: "extension.git_tools.detail" },
  ],
};

/** 2.1-2.4: extension-originated params. */
export const NOTIFICATION = { level: "success", title: "Hello", message: "hello_world greeted tinkerer" };
export const CONFIRMATION_PARAMS = {
  parent_request_id: 2,
  prompt: "Push to origin/main?",
  detail: "5 commits, +120 −30 lines",
  destructive: false,
  default: false,
};
export const CONTEXT_CONTRIBUTION = {
  label: "file-watcher",
  content: "src/main.rs was modified at 14:32.",
  placement: "system_suffix",
};
export const STATUS_CONTRIBUTION = {
  surface: "status",
  text: "watching src/",
  style_role: "extension.watcher.status",
  priority: 10,
};

/** 1.6b: the menu/collect result. */
export const MENU_RESULT = {
  title: "Computer use",
  status: { state: "pending", label: "Not set up" },
  detail: "Set up installs Cua Driver and checks what your desktop needs.",
  items: [
    {
      id: "setup",
      label: "Set up computer use",
      command: "computer-use",
      arguments: ["setup"],
      recommended: true,
      description: "Install the driver, then check permissions",
    },
    {
      id: "jev",
      label: "Jev (optional)",
      items: [
        {
          id: "forget",
          label: "Forget stored API key",
          command: "computer-use",
          arguments: ["jev", "forget"],
          destructive: true,
        },
      ],
    },
  ],
};

/** 1.9: $/cancelRequest params. */
export const CANCEL_PARAMS = { id: 42, reason: "user" };

/** 1.10: turn/settled params. */
export const TURN_SETTLED_PARAMS = {
  session_id: "abc123",
  run_id: "extension-run-7",
  turn_id: "extension-turn-7",
  outcome: "completed",
  duration_ms: 942,
  reason: null,
};

/** 2.6: $/progress params. */
export const PROGRESS_PARAMS = {
  request_id: 2,
  sequence: 7,
  event: { type: "status", message: "Fetched 3 of 10 results", current: 3, total: 10, unit: "results" },
};

/** 2.7: input/request params. */
export const INPUT_PARAMS = { parent_request_id: 2, prompt: "Password:", secret: true };
