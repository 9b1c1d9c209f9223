/** The dynamic_tools module (CAT-01..18): tools/register and tools/unregister; see dynamic-tools.ts. */
import { TOOLS_REGISTER, TOOLS_UNREGISTER, isNegotiated } from "@octet/protocol";
import { defineModule, type ServiceFactory } from "../module.js";
import { dynamicToolsService, type DynamicToolsOptions } from "./dynamic-tools.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /**
     * tools/register and tools/unregister (dynamic_tools). Bind it only if you take a catalog
     * snapshot per model request (host.catalog()) and pass it with the calls made from that
     * request: that is how a call carries the epoch the model saw (CALL-04, CAT-14, CAT-15).
     */
    dynamicTools?: boolean | DynamicToolsOptions;
  }
}

export const dynamicToolsModule = defineModule<ServiceFactory>({
  feature: "dynamic_tools",
  bind: (o, host) => {
    if (!o.dynamicTools) return null;
    return dynamicToolsService(o.dynamicTools === true ? {} : o.dynamicTools, host.nameOwners);
  },
  offer: (_m, api) => (isNegotiated(api) ? ["dynamic_tools"] : null),
  open: (g, factory) => factory(g),
  childRequests: [TOOLS_REGISTER, TOOLS_UNREGISTER],
  childNotifications: [],
});
