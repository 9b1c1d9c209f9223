/**
 * The agent's side of session_entries (W 2.21): the service the embedder binds as
 * `services.sessionEntries`, writing through the session's SessionFile, the sole writer, so every
 * answer is a committed (written and fsynced) entry with its real id. Appends go where the
 * session's leaf is, like every other entry: a custom entry (extension set), session_info for a
 * name, label for a label.
 *
 * The host starts before the agent exists (the CLI builds the agent once a session is chosen), so
 * the agent is found late, through the getter; before there is one, or after it closed, the
 * request is refused with -32002 and a reason saying so.
 */
import type { SessionEntriesService } from "@octet/host";
import { ErrorCode, WireError } from "@octet/protocol";
import type { JsonValue } from "../session/index.js";
import type { Agent } from "./agent.js";
import { agentFor as openAgentFor } from "./injection-services.js";

export function sessionEntriesService(getAgent: () => Agent | null): SessionEntriesService {
  const agentFor = (method: string): Agent => openAgentFor(getAgent, method);
  return {
    async append(r) {
      const agent = agentFor("session/append_entry");
      const entry = await agent.session.append({
        type: "custom",
        entry_type: r.entry_type,
        data: r.data as JsonValue,
        extension: r.extension,
      });
      return { entry_id: entry.id };
    },
    async setName(r) {
      await agentFor("session/set_name").session.append({ type: "session_info", name: r.name });
    },
    async setLabel(r) {
      const session = agentFor("session/set_label").session;
      if (session.get(r.entry_id) === undefined)
        throw new WireError(
          ErrorCode.InvalidParams,
          `invalid_request session/set_label: entry_id ${JSON.stringify(r.entry_id.slice(0, 64))} is no entry of ` +
            `session ${session.id}`,
        );
      await session.append({ type: "label", target_id: r.entry_id, label: r.label });
    },
  };
}
