/**
 * The owner rule of the Wave-1 requests (W 2 "Optional Wave-1 resource_owner", WAVE1-09..12) as
 * a handler wrapper: parent_request_id must name a live tool/call or command/execute of this
 * generation, or a model-turn hook/run while it is awaited; a live parent's owner wins over an
 * explicit resource_owner. With no live parent, an explicit resource_owner is admitted only when
 * it is exactly this generation's issued triple; anything else is -32002 not_foreground_owner.
 * The params are validated first (after the missing-parent check, as REV-08), and a refusal
 * message begins with its contract name (ERR-06): not_foreground_owner, bounds_exceeded,
 * invalid_request. The same rule as modules/session-entries, for the services added after it.
 */
import {
  ErrorCode,
  WireError,
  isTurnHook,
  isCompactionHook,
  sessionEntriesRefusal,
  type Checked,
  type ResourceOwner,
} from "@octet/protocol";
import type { ActiveParent, ChildRequestHandler, ChildRequestScope, ServiceGeneration } from "./module.js";
import { anySignal } from "./signals.js";

/** Who asks, as the host derives it from the active parent (never from the extension's JSON). */
export interface Wave1Requester {
  /** The extension's manifest name. */
  extension: string;
  owner: ResourceOwner;
  /** Aborted when the parent settles or the extension cancels the request. */
  signal: AbortSignal;
}

const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];

/** A child-request handler that validates with `validate`, applies the owner rule, then runs `run`. */
export function ownedHandler<P extends { parent_request_id: number; resource_owner?: ResourceOwner }, R>(
  g: ServiceGeneration,
  validate: (v: unknown) => Checked<P>,
  run: (p: P, who: Wave1Requester) => Promise<R>,
): ChildRequestHandler {
  return async (scope: ChildRequestScope): Promise<R> => {
    const raw = scope.params;
    const parentRaw =
      typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)["parent_request_id"] : undefined;
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
      throw new WireError(ErrorCode.InternalError, `internal_error ${scope.method} failed: ${message.slice(0, 512)}`);
    } finally {
      dispose();
    }
  };
}

function mayParent(parent: ActiveParent): boolean {
  return (
    PARENT_METHODS.includes(parent.method) ||
    (parent.method === "hook/run" && (isTurnHook(parent.hook) || isCompactionHook(parent.hook)))
  );
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
