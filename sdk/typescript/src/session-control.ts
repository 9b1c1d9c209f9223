/**
 * ctx.sessionControl and ext.sessionControl (W 2.21b session_control_v1, W 2.21c
 * session_compaction_v1): the agent's active session, from an extension.
 *
 * - waitForIdle() and switchSession(id): inside a handler they are children of its request (the
 *   host cancels them when it settles); after it, they need the settled request's id and the
 *   owner triple the host issued (ctx.context.resource_owner). Do not await either inside a
 *   tool/call or hook handler of the agent's run: the session becomes idle only after that
 *   handler settles, and the host refuses such a wait (invalid_request, deadlock) rather than hang.
 * - ctx.sessionControl.compact(): synchronous and queued. Nothing is sent while the handler runs;
 *   the session/compact request goes out only after the handler's successful reply was written,
 *   and is dropped (onError) when the handler failed or was cancelled (SCOMP-06/07). It is never
 *   part of the handler's awaited work.
 * - compactNow({parentRequestId, owner}): session/compact from outside any live handler, once.
 *
 * Every call is checked with the protocol's validators before anything is written.
 */
import {
  sessionEntriesRefusal,
  validateCompactParams,
  validateCompactResult,
  validateSwitchParams,
  validateWaitForIdleParams,
  type Checked,
  type ResourceOwner,
  type SessionCompactResult,
} from "@octet/protocol";
import type { JsonRpcId } from "@octet/protocol";
import type { Link } from "./link.js";

/** What this needs of a running request (request-scope.ts's; a leaf import keeps types.ts acyclic). */
interface RequestScope {
  readonly id: JsonRpcId;
  readonly active: boolean;
  readonly aborted: boolean;
  readonly signal: AbortSignal;
}

export type { SessionCompactResult } from "@octet/protocol";

/** After the handler's request settled: its id and the issued owner. */
export interface RetainedOwner {
  parentRequestId: number;
  owner: ResourceOwner;
  signal?: AbortSignal;
}

export interface QueuedCompactOptions {
  customInstructions?: string;
  /** The new compaction entry, once the host compacted. */
  onSuccess?: (result: SessionCompactResult) => void;
  /** The host refused or failed, or the handler did not succeed (nothing was sent then). */
  onError?: (error: Error) => void;
}

export interface SessionControlApi {
  /** Whether session_control_v1 was negotiated. */
  readonly available: boolean;
  /** Whether session_compaction_v1 was negotiated. */
  readonly compactionAvailable: boolean;
  /** Resolves once the active session is idle (after every earlier queued operation). */
  waitForIdle(retained?: RetainedOwner): Promise<void>;
  /** Closes the active session and opens session `sessionId` of the same workspace. */
  switchSession(sessionId: string, retained?: RetainedOwner): Promise<void>;
  /** Queues session/compact until this handler's successful reply is written (handlers only). */
  compact(options?: QueuedCompactOptions): void;
  /** session/compact from outside a live handler: the settled request's id and the issued owner. */
  compactNow(retained: RetainedOwner & { customInstructions?: string }): Promise<SessionCompactResult>;
}

/** Requests running the compaction_strategy hook: compaction from them (or what they schedule) is refused. */
const compactionHooks = new WeakSet<object>();

/** Marks `scope` as running the compaction_strategy hook (dispatch.ts). */
export function markCompactionHook(scope: object): void {
  compactionHooks.add(scope);
}

function refuseInCompactionHook(scope: RequestScope | undefined, what: string): void {
  // AsyncLocalStorage carries the hook's scope into callbacks it schedules, so they are refused too.
  if (scope !== undefined && compactionHooks.has(scope))
    throw new Error(
      `invalid_request sessionControl.${what}() refused: called from a compaction hook (compaction_strategy, ` +
        "session_before_compact or session_compact); a compaction cannot start a compaction (SCOMP-07)",
    );
}

interface Queued {
  params: unknown;
  options: QueuedCompactOptions;
}
const queued = new WeakMap<RequestScope, Queued[]>();

/**
 * Called by the serving loop once a request's reply is decided (serving.ts): on success the queued
 * compactions are sent after the reply frame (a macrotask later: the reply is written first);
 * otherwise each is dropped and its onError told why.
 */
export function flushAfterReply(scope: RequestScope, link: Link, succeeded: boolean): void {
  const list = queued.get(scope);
  if (list === undefined) return;
  queued.delete(scope);
  if (!succeeded) {
    for (const q of list)
      report(q.options.onError, new Error(`session/compact was not sent: request ${String(scope.id)} did not succeed`));
    return;
  }
  setImmediate(() => {
    for (const q of list)
      void request(link, "session/compact", q.params, undefined).then(
        (answer) => {
          const checked = validateCompactResult(answer);
          if (!checked.ok)
            throw new Error(`the host's session/compact answer is invalid: ${checked.problems.join("; ")}`);
          q.options.onSuccess?.(checked.value);
        },
        (err: unknown) => report(q.options.onError, err instanceof Error ? err : new Error(String(err))),
      );
  });
}

export function sessionControlApi(
  scope: () => RequestScope | undefined,
  link: () => Link | null,
  owner: () => ResourceOwner | undefined,
): SessionControlApi {
  const ready = (what: string, feature: string): Link => {
    const l = link();
    if (!l) throw new Error(`sessionControl.${what}() is available only after the host initialized the extension`);
    if (!l.features.has(feature))
      throw new Error(`sessionControl.${what}() needs ${feature}, which the host did not offer (no agent session)`);
    return l;
  };
  const call = async <P>(
    what: string,
    method: string,
    extra: Record<string, unknown>,
    validate: (v: unknown) => Checked<P>,
    retained: RetainedOwner | undefined,
    feature = "session_control_v1",
  ): Promise<unknown> => {
    const l = ready(what, feature);
    const s = scope();
    let params: Record<string, unknown>;
    let signal: AbortSignal | undefined;
    if (retained !== undefined) {
      params = { parent_request_id: retained.parentRequestId, resource_owner: retained.owner, ...extra };
      signal = retained.signal;
    } else if (s?.active && typeof s.id === "number") {
      params = { parent_request_id: s.id, ...extra };
      signal = s.signal;
    } else
      throw new Error(
        `sessionControl.${what}() outside an active numeric request needs {parentRequestId, owner} (the settled ` +
          "request's id and ctx.context.resource_owner)",
      );
    const checked = validate(params);
    if (!checked.ok)
      throw new RangeError(
        `${sessionEntriesRefusal(checked.problems)} sessionControl.${what}(): ${checked.problems.join("; ")}`,
      );
    return request(l, method, checked.value, signal);
  };
  return {
    get available() {
      return link()?.features.has("session_control_v1") ?? false;
    },
    get compactionAvailable() {
      return link()?.features.has("session_compaction_v1") ?? false;
    },
    async waitForIdle(retained) {
      await call("waitForIdle", "session/wait_for_idle", {}, validateWaitForIdleParams, retained);
    },
    async switchSession(sessionId, retained) {
      await call("switchSession", "session/switch", { session_id: sessionId }, validateSwitchParams, retained);
    },
    compact(options = {}) {
      ready("compact", "session_compaction_v1");
      const s = scope();
      refuseInCompactionHook(s, "compact");
      const o = owner();
      if (!s?.active || typeof s.id !== "number")
        throw new Error("sessionControl.compact() queues from an active request handler; elsewhere use compactNow()");
      if (o === undefined)
        throw new Error("sessionControl.compact(): this request carried no resource_owner (API 0.4 sends one)");
      const params = {
        parent_request_id: s.id,
        resource_owner: o,
        ...(options.customInstructions !== undefined ? { custom_instructions: options.customInstructions } : {}),
      };
      const checked = validateCompactParams(params);
      if (!checked.ok)
        throw new RangeError(
          `${sessionEntriesRefusal(checked.problems)} sessionControl.compact(): ${checked.problems.join("; ")}`,
        );
      const list = queued.get(s) ?? [];
      list.push({ params, options });
      queued.set(s, list);
    },
    async compactNow(retained) {
      refuseInCompactionHook(scope(), "compactNow");
      const extra =
        retained.customInstructions !== undefined ? { custom_instructions: retained.customInstructions } : {};
      const answer = await call(
        "compactNow",
        "session/compact",
        extra,
        validateCompactParams,
        retained,
        "session_compaction_v1",
      );
      const checked = validateCompactResult(answer);
      if (!checked.ok) throw new Error(`the host's session/compact answer is invalid: ${checked.problems.join("; ")}`);
      return checked.value;
    },
  };
}

/** One reverse request, given up (and $/cancelRequest sent) when `signal` aborts. */
async function request(link: Link, method: string, params: unknown, signal: AbortSignal | undefined): Promise<unknown> {
  signal?.throwIfAborted();
  const outgoing = link.peer.request(method, params);
  const onAbort = (): void => {
    link.peer.abandon(
      outgoing.id,
      "cancelled",
      signal?.reason instanceof Error ? signal.reason : new Error("cancelled"),
    );
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await outgoing.result;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

function report(onError: ((e: Error) => void) | undefined, err: Error): void {
  try {
    onError?.(err);
  } catch {
    // The author's callback failing is theirs; the serving loop goes on.
  }
}
