/**
 * session_entries (W 2.21, API 0.2 and 0.4): offered to every negotiated manifest when the
 * embedder binds services.sessionEntries (session-entries-service.ts). The same feature gates
 * the API 0.4 model-turn hooks the embedder runs through runTurnHook (turn-hooks.ts, W 1.4b).
 */
import {
  HOOK_RUN,
  SESSION_APPEND_ENTRY,
  SESSION_SET_LABEL,
  SESSION_SET_NAME,
  isNegotiated,
  type TurnHook,
  type TurnPayload,
} from "@octet/protocol";
import { defineModule, type ServiceFactory } from "../module.js";
import { sessionEntriesService, type SessionEntriesService } from "./session-entries-service.js";
import { runTurnHook, takesTurnHook, type TurnHookOptions, type TurnHookOutcome } from "./turn-hooks.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /** session/append_entry, set_name, set_label through the embedder's session writer (modules/session-entries). */
    sessionEntries?: SessionEntriesService;
  }
}

export interface TurnHookApi {
  runTurnHook(hook: TurnHook, payload: TurnPayload, options?: TurnHookOptions): Promise<TurnHookOutcome>;
  takesTurnHook(hook: TurnHook): boolean;
}

export const sessionEntriesModule = defineModule<ServiceFactory, TurnHookApi>({
  feature: "session_entries",
  bind: (o) => (o.sessionEntries ? sessionEntriesService(o.sessionEntries) : null),
  offer: (_m, api) => (isNegotiated(api) ? ["session_entries"] : null),
  open: (g, factory) => factory(g),
  childRequests: [SESSION_APPEND_ENTRY, SESSION_SET_NAME, SESSION_SET_LABEL],
  childNotifications: [],
  hostRequests: [HOOK_RUN],
  embedderApi: (view) => ({
    runTurnHook: (hook: TurnHook, payload: TurnPayload, options: TurnHookOptions = {}) =>
      runTurnHook(view.ready(), hook, payload, options),
    takesTurnHook: (hook: TurnHook) => view.ready().some((g) => takesTurnHook(g, hook)),
  }),
});
