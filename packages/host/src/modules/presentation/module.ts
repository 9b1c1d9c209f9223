/**
 * The presentation module (W 2.5, PRES-01..23): presentation/update snapshots; see
 * presentation-service.ts. It has no protocol feature string (INIT-47): it offers nothing and is
 * gated by the manifest's contributes.presentation and by the embedder binding it.
 */
import { PRESENTATION_UPDATE, isNegotiated } from "@octet/protocol";
import { defineModule, type ServiceFactory } from "../module.js";
import { presentationService, type PresentationServiceOptions } from "./presentation-service.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /**
     * Accept presentation/update snapshots (presentation/presentation-service.ts): true, or options
     * (a clock for tests). Read them with host.presentation(name) or the `presentation` event.
     */
    presentation?: boolean | PresentationServiceOptions;
  }
}

export const presentationModule = defineModule<ServiceFactory>({
  feature: "presentation",
  bind: (o) => (o.presentation ? presentationService(o.presentation === true ? {} : o.presentation) : null),
  offer: (_m, api) => (isNegotiated(api) ? [] : null),
  open: (g, factory) => factory(g),
  childRequests: [],
  childNotifications: [PRESENTATION_UPDATE],
});
