/**
 * The API 0.4 advisory hooks (INIT-43, PY-43..52): cache_warming_decision and compaction_strategy
 * are offered only to a 0.4 manifest that declares them in contributes.hooks; the host asks
 * through hook/run (advisory-hooks.ts).
 */
import { ADVISORY_HOOKS, HOOK_RUN, type CacheWarmingPayload, type CompactionPayload } from "@octet/protocol";
import { defineModule } from "../module.js";
import { adviseCacheWarming, compactionFrames } from "./advisory-hooks.js";

export const advisoryHooksModule = defineModule({
  feature: "advisory_hooks",
  offer: (m, api) => (api === "0.4" ? ADVISORY_HOOKS.filter((hook) => m.contributes.hooks.includes(hook)) : null),
  open: () => null,
  childRequests: [],
  childNotifications: [],
  hostRequests: [HOOK_RUN],
  embedderApi: (view) => ({
    adviseCacheWarming: (payload: CacheWarmingPayload, options: { signal?: AbortSignal; deadlineMs?: number }) =>
      // An answer from a generation replaced while it was asked is stale (PY-51).
      adviseCacheWarming(view.ready(), payload, options, view.env(), (g) => view.ready().includes(g)),
    compactionFrames: (payload: CompactionPayload, options: { signal?: AbortSignal; timeoutMs?: number }) =>
      compactionFrames(view.ready(), payload, options, view.env()),
  }),
});
