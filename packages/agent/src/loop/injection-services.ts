/**
 * The agent's side of message_injection and active_tools (W 2.22, W 2.23): the services the
 * embedder binds as `services.messageInjection` and `services.activeTools`. Each answers once the
 * agent admitted the request: an injected message appended (or held for the running prompt's next
 * request), a user message started or queued, an active set in place for the next request. The
 * agent is found late through the getter, as in session-entries.ts; before there is one, or after
 * it closed, the request is refused with -32002.
 */
import type { ActiveToolsService, MessageInjectionService } from "@octet/host";
import { ErrorCode, WireError } from "@octet/protocol";
import { AgentError } from "../agent-error.js";
import type { Agent } from "./agent.js";

/** The open agent for a session service, or the -32002 refusal saying why there is none. */
export function agentFor(getAgent: () => Agent | null, method: string): Agent {
  const agent = getAgent();
  if (!agent || agent.closed)
    throw new WireError(
      ErrorCode.Unavailable,
      `not_foreground_owner ${method} refused: ${
        agent ? "the agent's session is closed" : "no agent session is open (no model is running one yet)"
      }`,
    );
  return agent;
}

/** An AgentError as the wire says it: a full queue is -32012, an unknown tool -32602, closed -32002. */
function wire(method: string, err: unknown): never {
  if (!(err instanceof AgentError)) throw err;
  if (err.code === "queue_full")
    throw new WireError(ErrorCode.LifecycleExhausted, `queue_full ${method} refused: ${err.message}`);
  if (err.code === "unknown_tool")
    throw new WireError(ErrorCode.InvalidParams, `invalid_request ${method}: ${err.message}`);
  throw new WireError(ErrorCode.Unavailable, `not_foreground_owner ${method} refused: ${err.message}`);
}

export function messageInjectionService(getAgent: () => Agent | null): MessageInjectionService {
  return {
    async sendMessage(r) {
      const method = "session/send_message";
      try {
        await agentFor(getAgent, method).injectMessage({ role: r.role, text: r.text, extension: r.extension });
      } catch (err) {
        wire(method, err);
      }
    },
    async sendUserMessage(r) {
      const method = "session/send_user_message";
      try {
        agentFor(getAgent, method).enqueueUserMessage(r.text);
      } catch (err) {
        wire(method, err);
      }
    },
  };
}

export function activeToolsService(getAgent: () => Agent | null): ActiveToolsService {
  return {
    async setActive(r) {
      const method = "tools/set_active";
      try {
        agentFor(getAgent, method).setActiveTools(r.names);
      } catch (err) {
        wire(method, err);
      }
    },
  };
}
