/**
 * session_control_v1 and session_compaction_v1 (W 2.21b, 2.21c): offered on API 0.4 when the
 * embedder binds services.sessionControl, its lifecycle service (session-control-service.ts);
 * compaction only when that service can compact (SCOMP-02). Older APIs cannot negotiate them.
 */
import { SESSION_COMPACT, SESSION_SWITCH, SESSION_WAIT_FOR_IDLE } from "@octet/protocol";
import { defineModule } from "../module.js";
import { sessionControlService, type SessionControlService } from "./session-control-service.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /** session/wait_for_idle, switch and compact on the active session (modules/session-control). */
    sessionControl?: SessionControlService;
  }
}

interface Binding {
  compacts: boolean;
  factory: ReturnType<typeof sessionControlService>;
}

export const sessionControlModule = defineModule<Binding>({
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
});
