/**
 * session_control_v1 and session_compaction_v1 (W 2.21b, 2.21c): offered on API 0.4 when the
 * embedder binds services.sessionControl, its lifecycle service (session-control-service.ts);
 * compaction only when that service can compact (SCOMP-02). Older APIs cannot negotiate them.
 */
import {
  HOOK_RUN,
  SESSION_COMPACT,
  SESSION_SWITCH,
  SESSION_WAIT_FOR_IDLE,
  type CompactionHook,
  type CompactionHookPayload,
} from "@octet/protocol";
import { defineModule } from "../module.js";
import {
  runCompactionHook,
  takesCompactionHook,
  type CompactionHookOptions,
  type CompactionHookOutcome,
} from "./compaction-hooks.js";
import { sessionControlService, type SessionControlService } from "./session-control-service.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /** session/wait_for_idle, switch and compact on the active session (modules/session-control). */
    sessionControl?: SessionControlService;
  }
}

/** session_before_compact / session_compact, run by the embedder around its compaction (compaction-hooks.ts). */
export interface CompactionHookApi {
  runCompactionHook(
    hook: CompactionHook,
    payload: CompactionHookPayload,
    options?: CompactionHookOptions,
  ): Promise<CompactionHookOutcome>;
  takesCompactionHook(hook: CompactionHook): boolean;
}

interface Binding {
  compacts: boolean;
  factory: ReturnType<typeof sessionControlService>;
}

export const sessionControlModule = defineModule<Binding, CompactionHookApi>({
  feature: "session_control_v1",
  bind: (o) =>
    o.sessionControl
      ? { compacts: o.sessionControl.compact !== undefined, factory: sessionControlService(o.sessionControl) }
      : null,
  offer: (_m, api, b) =>
    api === "0.4" ? (b.compacts ? ["session_control_v1", "session_compaction_v1"] : ["session_control_v1"]) : null,
  open: (g, b) => (g.api === "0.4" ? b.factory(g) : null),
  childRequests: [SESSION_WAIT_FOR_IDLE, SESSION_SWITCH, SESSION_COMPACT],
  childNotifications: [],
  hostRequests: [HOOK_RUN],
  // The hooks run whatever compacts (the agent's /compact and threshold too), bound or not.
  embedderApi: (view) => ({
    runCompactionHook: (hook: CompactionHook, payload: CompactionHookPayload, options: CompactionHookOptions = {}) =>
      runCompactionHook(view.ready(), hook, payload, options),
    takesCompactionHook: (hook: CompactionHook) => view.ready().some((g) => takesCompactionHook(g, hook)),
  }),
});
