/**
 * active_tools (W 2.23; API 0.2 and 0.4): offered to every negotiated manifest when the embedder
 * binds services.activeTools, the one that applies the set to its model requests (WAVE1-37: a
 * host that cannot apply it does not offer it, so the request is unsupported there).
 * tools/set_active {names} is owner-scoped (wave1-owner.ts); names is the complete replacement
 * set, at most 256 names of at most 128 bytes (WAVE1-35/36); the embedder refuses a name it does
 * not know, and answers once the set is in place for the next request.
 */
import { TOOLS_SET_ACTIVE, isNegotiated, validateSetActiveToolsParams } from "@octet/protocol";
import { defineModule, type ServiceFactory } from "../module.js";
import { ownedHandler, type Wave1Requester } from "../wave1-owner.js";

/** What the embedder binds as `services.activeTools`; a WireError it throws reaches the extension as it is. */
export interface ActiveToolsService {
  setActive(r: Wave1Requester & { names: string[] }): Promise<void>;
}

declare module "../options.js" {
  interface HostServiceOptions {
    /** tools/set_active: the model's active tools in the embedder's requests (modules/active-tools). */
    activeTools?: ActiveToolsService;
  }
}

function service(s: ActiveToolsService): ServiceFactory {
  if (typeof s.setActive !== "function") throw new TypeError("services.activeTools.setActive must be a function");
  return (g) => ({
    features: ["active_tools"],
    requests: {
      "tools/set_active": ownedHandler(g, validateSetActiveToolsParams, async (p, who) => {
        await s.setActive({ ...who, names: p.names });
        return {};
      }),
    },
  });
}

export const activeToolsModule = defineModule<ServiceFactory>({
  feature: "active_tools",
  bind: (o) => (o.activeTools ? service(o.activeTools) : null),
  offer: (_m, api) => (isNegotiated(api) ? ["active_tools"] : null),
  open: (g, factory) => factory(g),
  childRequests: [TOOLS_SET_ACTIVE],
  childNotifications: [],
});
