/**
 * session/wait_for_idle, session/switch (W 2.21b, SCTL) and session/compact (W 2.21c, SCOMP): the
 * active session's control, run by the embedder's lifecycle service (the agent), through one
 * ordered, bounded queue (queue.ts) shared by every extension of the host.
 *
 * Owner. wait_for_idle and switch: a live parent (an active host request of this generation) wins
 * and the request is its child, cancelled when the parent settles (SCTL-05); with no live parent
 * the exact triple issued to this generation admits it (SCTL-06). session/compact is a post-reply
 * service: a live parent is refused invalid_request (SCOMP-05) and the issued triple is required.
 *
 * Deadlock (SCTL-11): a handler that runs inside the agent's run (a tool/call or hook/run) cannot
 * wait for the session to become idle, as the run ends only after the handler does. Such a
 * request while the session is busy is refused invalid_request at once rather than left hanging.
 */
import {
  ErrorCode,
  WireError,
  sessionEntriesRefusal,
  validateCompactParams,
  validateSwitchParams,
  validateWaitForIdleParams,
  type Checked,
  type ResourceOwner,
  type SessionCompactResult,
} from "@octet/protocol";
import type { ChildRequestScope, GenerationService, ServiceGeneration } from "../module.js";
import { anySignal } from "../signals.js";
import { ControlQueue } from "./queue.js";

export interface SessionControlRequester {
  /** The extension's manifest name. */
  extension: string;
  owner: ResourceOwner;
  /** Aborted when the caller went away; an operation already committed is not rolled back. */
  signal: AbortSignal;
}

/**
 * What the embedder binds as `services.sessionControl`. Each method resolves only once its
 * operation happened. A WireError it throws reaches the extension as it is; any other failure is
 * -32603. Without `compact` the host does not offer session_compaction_v1.
 */
export interface SessionControlService {
  /** Whether the active session runs nothing now (no prompt, no compaction). */
  idle(): boolean;
  /**
   * The active session's identity (its id): a compaction admitted against one session is not run
   * on another (the lifecycle epoch of W 2.21c). Absent: no fence.
   */
  epoch?(): string | null;
  /** Resolves once the active session is idle. */
  waitForIdle(r: SessionControlRequester): Promise<void>;
  /** Closes the active session (once idle) and opens `session_id` of the same workspace in its place. */
  switchTo(r: SessionControlRequester & { session_id: string }): Promise<void>;
  /** Compacts the active session (once idle); the answer is the new compaction entry's. */
  compact?(r: SessionControlRequester & { custom_instructions?: string }): Promise<SessionCompactResult>;
}

/** Parents that are part of the agent's run: the session cannot be idle while they are live. */
const RUN_PARENTS: readonly string[] = ["tool/call", "hook/run"];

export function sessionControlService(
  service: SessionControlService,
  queue = new ControlQueue(),
): (g: ServiceGeneration) => GenerationService {
  for (const m of ["idle", "waitForIdle", "switchTo"] as const)
    if (typeof service[m] !== "function") throw new TypeError(`services.sessionControl.${m} must be a function`);
  if (service.compact !== undefined && typeof service.compact !== "function")
    throw new TypeError("services.sessionControl.compact must be a function when given");
  return (g) => {
    const handle =
      <P extends { parent_request_id: number; resource_owner?: ResourceOwner }, R>(
        validate: (v: unknown) => Checked<P>,
        liveParent: "child" | "refuse",
        run: (p: P, who: SessionControlRequester) => Promise<R>,
      ) =>
      async (scope: ChildRequestScope): Promise<R> => {
        const checked = validate(scope.params);
        if (!checked.ok)
          throw new WireError(
            ErrorCode.InvalidParams,
            `${sessionEntriesRefusal(checked.problems)} ${scope.method}: ${checked.problems.join("; ")}`,
          );
        const p = checked.value;
        const parent = g.activeRequest(p.parent_request_id);
        let signal = scope.signal;
        let dispose = (): void => {};
        if (parent !== undefined) {
          if (liveParent === "refuse")
            throw new WireError(
              ErrorCode.InvalidParams,
              `invalid_request ${scope.method} refused: parent request ${p.parent_request_id} (${parent.method}) ` +
                "is still live; send it only after that request was answered, with the issued resource_owner",
            );
          if (RUN_PARENTS.includes(parent.method) && !service.idle())
            throw new WireError(
              ErrorCode.InvalidParams,
              `invalid_request ${scope.method} refused: deadlock, the session becomes idle only after ` +
                `${parent.method} ${p.parent_request_id} settles, and that handler is waiting on it`,
            );
          ({ signal, dispose } = anySignal(parent.signal, scope.signal));
        } else if (g.cancelledRequest?.(p.parent_request_id) === true) {
          // A known cancellation tombstone (SCTL-06, SCOMP-08): the owner does not revive it.
          throw new WireError(
            ErrorCode.Unavailable,
            `not_foreground_owner ${scope.method} refused: parent request ${p.parent_request_id} was cancelled`,
          );
        } else if (p.resource_owner === undefined || !sameOwner(p.resource_owner, g.owner())) {
          throw new WireError(
            ErrorCode.Unavailable,
            `not_foreground_owner ${scope.method} refused: ${
              p.resource_owner === undefined
                ? `parent_request_id ${p.parent_request_id} is no live request of this extension and no ` +
                  "resource_owner was given"
                : "resource_owner is not the owner issued to this extension's process"
            }`,
          );
        }
        const who = { extension: g.name, owner: g.owner(), signal };
        // The session this was admitted against: a switch before it ran fences it (SCOMP-09).
        const epoch = service.epoch?.();
        try {
          return await queue.submit(scope.method, signal, async () => {
            if (liveParent === "refuse" && service.epoch?.() !== epoch)
              throw new WireError(
                ErrorCode.InternalError,
                `internal_error ${scope.method} was not run: the active session changed after it was admitted`,
              );
            return run(p, who);
          });
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
    const requests: Record<string, (scope: ChildRequestScope) => Promise<unknown>> = {
      "session/wait_for_idle": handle(validateWaitForIdleParams, "child", async (_p, who) => {
        await service.waitForIdle(who);
        return {};
      }),
      "session/switch": handle(validateSwitchParams, "child", async (p, who) => {
        await service.switchTo({ ...who, session_id: p.session_id });
        return {};
      }),
    };
    const compact = service.compact?.bind(service);
    if (compact)
      requests["session/compact"] = handle(validateCompactParams, "refuse", async (p, who) => {
        const r = await compact({
          ...who,
          ...(p.custom_instructions !== undefined ? { custom_instructions: p.custom_instructions } : {}),
        });
        // Only the new entry's three strings, nothing invented beside them (SCOMP-11).
        return { entry_id: r.entry_id, summary: r.summary, first_kept: r.first_kept };
      });
    return {
      features: compact ? ["session_control_v1", "session_compaction_v1"] : ["session_control_v1"],
      requests,
    };
  };
}

function sameOwner(a: ResourceOwner, b: ResourceOwner): boolean {
  return (
    a.session_id === b.session_id &&
    a.extension_instance_id === b.extension_instance_id &&
    a.process_generation === b.process_generation
  );
}
