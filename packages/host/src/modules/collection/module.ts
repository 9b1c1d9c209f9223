/**
 * Context and status collection: what the extension pushes (contributions.ts) and what the
 * embedder pulls through the host (collect.ts: hooks, context/collect, status/collect,
 * tool/render). No protocol feature: each is gated by the manifest's declarations.
 */
import { CONTEXT_COLLECT, HOOK_RUN, STATUS_COLLECT, TOOL_RENDER, type HookName, type UiSurface } from "@octet/protocol";
import { defineModule } from "../module.js";
import { CONTRIBUTION_METHODS, openContributions } from "./contributions.js";
import { collectContext, collectStatus, renderTool, runHook, type CallOptions, type RenderInput } from "./collect.js";

export const collectionModule = defineModule({
  feature: "collection",
  offer: () => [],
  open: (g) => openContributions(g),
  childRequests: [],
  childNotifications: CONTRIBUTION_METHODS,
  hostRequests: [HOOK_RUN, CONTEXT_COLLECT, STATUS_COLLECT, TOOL_RENDER],
  embedderApi: (view) => ({
    runHook: (hook: HookName, payload: Record<string, unknown>, options: CallOptions) =>
      runHook(view.ready(), hook, payload, options, view.env()),
    collectContext: (input: { prompt: string | null }, options: CallOptions) =>
      collectContext(view.ready(), input, options, view.env()),
    collectStatus: (surface: UiSurface, options: CallOptions) =>
      collectStatus(view.ready(), surface, options, view.env()),
    renderTool: (input: RenderInput, options: CallOptions) => renderTool(view.ready(), input, options, view.env()),
  }),
});
