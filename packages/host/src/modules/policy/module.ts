/** The policy module (W 2.9, POL-01..13): policy/evaluate and single-use approvals; see policy-service.ts. */
import { POLICY_EVALUATE, isNegotiated } from "@octet/protocol";
import { defineModule, type ServiceFactory } from "../module.js";
import { policyFeatures, policyService, type PolicyOptions } from "./policy-service.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /** policy/evaluate and, with `approve`, single-use approvals (modules/policy). */
    policy?: PolicyOptions;
  }
}

export const policyModule = defineModule<{ factory: ServiceFactory; options: PolicyOptions }>({
  feature: "policy_intents",
  bind: (o) => (o.policy ? { factory: policyService(o.policy), options: o.policy } : null),
  offer: (_m, api, b) => (isNegotiated(api) ? policyFeatures(b.options) : null),
  open: (g, b) => b.factory(g),
  childRequests: [POLICY_EVALUATE],
  childNotifications: [],
});
