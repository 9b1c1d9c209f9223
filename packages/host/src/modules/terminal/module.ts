/**
 * terminal_handoff (W 2.24, TERM-01..10): an extension borrows the foreground terminal inside
 * one of its tool/call or command/execute requests. Bound when the embedder passes
 * services.terminal (terminal-grants.ts: the frontend that owns the tty); offered to every
 * negotiated manifest then.
 *
 * The grant is owner-scoped: parent_request_id must name a live tool/call or command/execute
 * of the asking generation (else -32002 not_foreground_owner), and the grant ends with it: when
 * that call settles, or the process ends (crashed, reloaded, stopped), the host takes the
 * terminal back and tells the holder with terminal/grant-lost {grant_id, reason} (TERM-07,
 * TERM-10 default). The host never sends ui/terminal-input or ui/resize (TERM-08, TERM-10).
 * Refusals begin with their contract name (ERR-06): invalid_request and bounds_exceeded are
 * -32602, not_foreground_owner -32002.
 */
import {
  ErrorCode,
  TERMINAL_ACQUIRE,
  TERMINAL_GRANT_LOST,
  TERMINAL_RELEASE,
  WireError,
  isNegotiated,
  terminalRefusal,
  validateTerminalParams,
} from "@octet/protocol";
import { defineModule, type ActiveParent, type ChildRequestScope, type ServiceGeneration } from "../module.js";
import { TerminalGrants, TerminalRefusal, type TerminalRequester, type TerminalService } from "./terminal-grants.js";

export type { TerminalRequester, TerminalService } from "./terminal-grants.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /** terminal/acquire and terminal/release through the frontend that owns the tty (modules/terminal). */
    terminal?: TerminalService;
  }
}

const PARENT_METHODS: readonly string[] = ["tool/call", "command/execute"];

export const terminalModule = defineModule<TerminalGrants>({
  feature: "terminal_handoff",
  bind: (o) => (o.terminal ? bindTerminal(o.terminal) : null),
  offer: (_m, api) => (isNegotiated(api) ? ["terminal_handoff"] : null),
  open: (g, grants) => {
    const who: TerminalRequester = { extension: g.name, generation: g.number };
    return {
      features: ["terminal_handoff"],
      requests: {
        [TERMINAL_ACQUIRE.method]: (scope) => acquire(g, grants, who, scope),
        [TERMINAL_RELEASE.method]: async (scope) => {
          ownParent(g, scope);
          await grants.release(who).catch(refused(scope.method));
          return {};
        },
      },
      // The process ended (crashed, reloaded or stopped): its grant goes with it.
      dispose: () => void grants.revoke("process_ended: the extension's process ended", who).catch(() => {}),
    };
  },
  childRequests: [TERMINAL_ACQUIRE, TERMINAL_RELEASE],
  childNotifications: [],
});

/** The host's grants over the frontend; the frontend gets the one way to revoke a grant (TERM-07). */
function bindTerminal(service: TerminalService): TerminalGrants {
  const grants = new TerminalGrants(service);
  service.attach?.({ revoke: (reason) => grants.revoke(`revoked: ${reason}`) });
  return grants;
}

async function acquire(
  g: ServiceGeneration,
  grants: TerminalGrants,
  who: TerminalRequester,
  scope: ChildRequestScope,
): Promise<unknown> {
  const parent = ownParent(g, scope);
  const grant = await grants
    .acquire(who, (lost, reason) => g.notify?.(TERMINAL_GRANT_LOST.method, { grant_id: lost.grant_id, reason }))
    .catch(refused(scope.method));
  // The grant lasts as long as the call that asked for it (and the process, see dispose).
  const revoke = (): void => void grants.revoke("call_ended: the call that acquired the terminal settled", who);
  if (parent.signal.aborted) revoke();
  else parent.signal.addEventListener("abort", revoke, { once: true });
  // The extension gave up on its acquire while the frontend ceded: nobody will get this answer,
  // so the terminal goes straight back rather than staying lent until the call ends.
  if (scope.signal.aborted) {
    await grants.revoke("cancelled: the terminal/acquire request was cancelled", who);
    throw new WireError(ErrorCode.RequestCancelled, "request_cancelled terminal/acquire was cancelled");
  }
  return grant;
}

/** The live parent of this generation named by the params, or the refusal (TERM-05, owner rules). */
function ownParent(g: ServiceGeneration, scope: ChildRequestScope): ActiveParent {
  const raw = scope.params;
  const parentRaw =
    typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>)["parent_request_id"] : undefined;
  if (parentRaw === undefined || parentRaw === null) throw notOwner(scope.method, "parent_request_id is missing");
  const checked = validateTerminalParams(raw);
  if (!checked.ok)
    throw new WireError(
      ErrorCode.InvalidParams,
      `${terminalRefusal(checked.problems)} ${scope.method}: ${checked.problems.join("; ")}`,
    );
  const id = checked.value.parent_request_id;
  const parent = g.activeRequest(id);
  if (parent === undefined || !PARENT_METHODS.includes(parent.method))
    throw notOwner(
      scope.method,
      `parent_request_id ${id} is not an active tool/call or command/execute of this extension`,
    );
  return parent;
}

function refused(method: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof WireError) throw err;
    if (err instanceof TerminalRefusal)
      throw new WireError(ErrorCode.InvalidParams, `invalid_request ${method} refused: ${err.message}`);
    const message = err instanceof Error ? err.message : String(err);
    throw new WireError(ErrorCode.InternalError, `internal_error ${method} failed: ${message.slice(0, 512)}`);
  };
}

function notOwner(method: string, why: string): WireError {
  return new WireError(ErrorCode.Unavailable, `not_foreground_owner ${method} refused: ${why}`);
}
