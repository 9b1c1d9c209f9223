/** lifecycle_events: the six notifications an extension may subscribe to (INIT-24, INIT-25). */
import { validateLifecycleEvent } from "../api/validate-lifecycle.js";
import { LIFECYCLE_EVENTS, type LifecycleEvent } from "../features.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

function lifecycle(method: LifecycleEvent): MethodSpec {
  return {
    method,
    direction: "host->child",
    kind: "notification",
    feature: "lifecycle_events",
    apiVersions: NEGOTIATED_VERSIONS,
    // The existing validator takes the method name first; this binds it.
    validateParams: (params: unknown) => validateLifecycleEvent(method, params),
  };
}

export const LIFECYCLE_METHODS: readonly MethodSpec[] = LIFECYCLE_EVENTS.map(lifecycle);
