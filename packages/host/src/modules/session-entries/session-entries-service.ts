/**
 * session/append_entry, session/set_name and session/set_label (W 2.21, WAVE1-27..31): an
 * extension's own entries in the session, written by the embedder's session writer (the agent's
 * SessionFile), which answers only once the entry is durable.
 *
 * Owner (WAVE1-09..12, WAVE1-31): parent_request_id must name a live host request of this
 * generation that may parent them: a tool/call or command/execute, or a model-turn hook/run
 * while it is awaited (the private append lane of TURN-08; the grant ends when it settles,
 * TURN-09). A live parent's owner wins over an explicit resource_owner. With no live parent, an
 * explicit resource_owner is admitted only when it is exactly this generation's issued triple;
 * anything else is -32002 not_foreground_owner. Refusal messages begin with their contract name
 * (ERR-06): not_foreground_owner, bounds_exceeded, invalid_request. The rule is the shared one of
 * ../wave1-owner.ts.
 */
import {
  validateAppendEntryParams,
  validateSetLabelParams,
  validateSetNameParams,
  type Checked,
  type ResourceOwner,
} from "@octet/protocol";
import type { GenerationService, ServiceGeneration } from "../module.js";
import { ownedHandler, type Wave1Requester } from "../wave1-owner.js";

/** Who asks, as the host derives it from the active parent (never from the extension's JSON). */
export type SessionEntryRequester = Wave1Requester;

/**
 * What the embedder binds as `services.sessionEntries`. Each method resolves only after the
 * entry is durable. A WireError it throws reaches the extension as it is (for example -32002 when
 * no session is open, -32602 for a label on an unknown entry); any other failure is -32603.
 */
export interface SessionEntriesService {
  append(r: SessionEntryRequester & { entry_type: string; data: unknown }): Promise<{ entry_id: string }>;
  setName(r: SessionEntryRequester & { name: string }): Promise<void>;
  setLabel(r: SessionEntryRequester & { entry_id: string; label: string }): Promise<void>;
}

export function sessionEntriesService(service: SessionEntriesService): (g: ServiceGeneration) => GenerationService {
  for (const m of ["append", "setName", "setLabel"] as const)
    if (typeof service[m] !== "function") throw new TypeError(`services.sessionEntries.${m} must be a function`);
  return (g) => {
    const handle = <P extends { parent_request_id: number; resource_owner?: ResourceOwner }, R>(
      validate: (v: unknown) => Checked<P>,
      run: (p: P, who: SessionEntryRequester) => Promise<R>,
    ) => ownedHandler(g, validate, run);
    return {
      features: ["session_entries"],
      requests: {
        "session/append_entry": handle(validateAppendEntryParams, async (p, who) => {
          const r = await service.append({ ...who, entry_type: p.entry_type, data: p.data });
          return { entry_id: r.entry_id };
        }),
        "session/set_name": handle(validateSetNameParams, async (p, who) => {
          await service.setName({ ...who, name: p.name });
          return {};
        }),
        "session/set_label": handle(validateSetLabelParams, async (p, who) => {
          await service.setLabel({ ...who, entry_id: p.entry_id, label: p.label });
          return {};
        }),
      },
    };
  };
}
