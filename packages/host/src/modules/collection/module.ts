/**
 * Context and status collection: what the extension pushes (contributions.ts) and what the
 * embedder pulls through the host (collect.ts: hooks, context/collect, status/collect,
 * tool/render). No protocol feature: each is gated by the manifest's declarations.
 */
import { CONTEXT_COLLECT, HOOK_RUN, STATUS_COLLECT, TOOL_RENDER } from "@octet/protocol";
import { defineModule } from "../module.js";
import { CONTRIBUTION_METHODS, openContributions } from "./contributions.js";

export const collectionModule = defineModule<true>({
  feature: "collection",
  offer: () => [],
  open: (g) => openContributions(g),
  childRequests: [],
  childNotifications: CONTRIBUTION_METHODS,
  hostRequests: [HOOK_RUN, CONTEXT_COLLECT, STATUS_COLLECT, TOOL_RENDER],
});
