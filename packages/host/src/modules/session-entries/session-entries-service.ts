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
 * (ERR-06): not_foreground_owner, bounds_exceeded, invalid_request.
 */
import {
  ErrorCode,
  WireError,
  isTurnHook,
  sessionEntriesRefusal,
  validateAppendEntryParams,
  validateSetLabelParams,
  validateSetNameParams,
  type Checked,
  type ResourceOwner,
} from "@octet/protocol";
import type { ActiveParent, ChildRequestScope, GenerationService, ServiceGeneration } from "../module.js";
import { anySignal } from "../signals.js";

/** Who asks, as the host derives it from the active parent (never from the extension's JSON). */
export interface SessionEntryRequester {
  /** The extension's manifest name. */
  extension: string;
  owner: ResourceOwner;
  /** Aborted when the parent settles or the extension cancels the request. */
  signal: AbortSignal;
}

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

const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];

export function sessionEntriesService(service: SessionEntriesService): (g: ServiceGeneration) => GenerationService {
  for (const m of ["append", "setName", "setLabel"] as const)
    if (typeof service[m] !== "function") throw new TypeError(`services.sessionEntries.${m} must be a function`);
  return (g) => {
    const handle =
      <P extends { parent_request_id: number; resource_owner?: ResourceOwner }, R>(
        validate: (v: unknown) => Checked<P>,
        run: (p: P, who: SessionEntryRequester) => Promise<R>,
      ) =>
      async (scope: ChildRequestScope): Promise<R> => {
        const raw = scope.params;
        const parentRaw =
          typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)["parent_request_id"] : undefined;
        // A missing parent is "no active owner" before the params are judged (as REV-08).
        if (parentRaw === undefined || parentRaw === null) throw notOwner(scope.method, "parent_request_id is missing");
        const checked = validate(raw);
        if (!checked.ok)
          throw new WireError(
            ErrorCode.InvalidParams,
            `${sessionEntriesRefusal(checked.problems)} ${scope.method}: ${checked.problems.join("; ")}`,
          );
        const p = checked.value;
        const parent = g.activeRequest(p.parent_request_id);
        let signal = scope.signal;
        let dispose = (): void => {};
        if (parent !== undefined && mayParent(parent)) {
          ({ signal, dispose } = anySignal(parent.signal, scope.signal));
        } else if (p.resource_owner === undefined || !sameOwner(p.resource_owner, g.owner())) {
          const why =
            p.resource_owner === undefined
              ? `parent_request_id ${p.parent_request_id} is not an active tool/call, command/execute or ` +
                "model-turn hook of this extension"
              : "resource_owner is not the owner issued to this extension's process";
          throw notOwner(scope.method, why);
        }
        try {
          return await run(p, { extension: g.name, owner: g.owner(), signal });
        } catch (err) {
          if (err instanceof WireError) throw err;
          const message = err instanceof Error ? err.message : String(err);
          throw new WireError(
            ErrorCode.InternalError,
            `internal_error ${scope.method} failed: ${message.slice(0, 512)}`,
          );
        } finally {
          dispose();
        }
      };
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

function mayParent(parent: ActiveParent): boolean {
  return PARENT_METHODS.includes(parent.method) || (parent.method === "hook/run" && isTurnHook(parent.hook));
}

function sameOwner(a: ResourceOwner, b: ResourceOwner): boolean {
  return (
    a.session_id === b.session_id &&
    a.extension_instance_id === b.extension_instance_id &&
    a.process_generation === b.process_generation
  );
}

function notOwner(method: string, why: string): WireError {
  return new WireError(ErrorCode.Unavailable, `not_foreground_owner ${method} refused: ${why}`);
}
