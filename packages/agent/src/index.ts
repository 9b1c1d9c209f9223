/**
 * @octet/agent: the agent on top of the host. Durable sessions (session/), models through pi-ai
 * (models/), the turn loop with every extension touchpoint (loop/), built-in tools (tools/) and
 * compaction. An embedder can take @octet/host without any of it.
 */
export { Agent } from "./loop/agent.js";
export type { AgentOptions, SessionOutcome } from "./loop/agent.js";
export type { RunResult } from "./loop/run.js";
export type { UserBashOptions, UserBashResult } from "./loop/user-bash.js";
export type { AgentEvent, AgentEventListener, RunOutcome } from "./loop/events.js";
export type { CompactionOutcome, CompactionSettings } from "./loop/compaction.js";
export { DEFAULT_COMPACTION } from "./loop/compaction.js";
export { defaultSystemPrompt } from "./loop/system-prompt.js";
export { sessionEntriesService } from "./loop/session-entries.js";
export { activeToolsService, messageInjectionService } from "./loop/injection-services.js";
export { MAX_QUEUED_USER_MESSAGES, INJECTED_ENTRY_TYPE } from "./loop/injection.js";
export type { InjectedMessage } from "./loop/injection.js";
export { sessionControlService, type AgentSessionControl } from "./loop/session-control.js";
export type { SessionControlOptions } from "./loop/session-control.js";
export { nativeEntry } from "./loop/turn-hooks.js";
export type { TurnHooks } from "./loop/turn-hooks.js";
export { AgentError } from "./agent-error.js";
export type { AgentErrorCode } from "./agent-error.js";
export * from "./session/index.js";
export * from "./models/index.js";
export * from "./tools/index.js";
export { PI_SESSION_EVENTS } from "./loop/pi-event-names.js";
export { piSessionControl, type PiSessionControlOptions, type PiControlResult } from "./loop/pi-session-control.js";
export { entriesFromPi } from "./loop/pi-entries.js";
export type { NavigateOptions, NavigateResult, Replacement } from "./loop/session-tree.js";
