/**
 * The artifacts module (W 2.8): artifact/publish into the generation's store, and the resolver
 * the host uses for the media parts of results (CALL-18); see artifacts-service.ts.
 */
import { ARTIFACT_PUBLISH, isNegotiated } from "@octet/protocol";
import { defineModule, type ServiceFactory } from "../module.js";
import type { GenerationModules } from "../module-set.js";
import {
  artifactsService,
  type ArtifactServiceOption,
  type ArtifactsInstance,
  type MediaResolver,
} from "./artifacts-service.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /** artifact/publish and verified media in results (artifacts/artifacts-service.ts). */
    artifacts?: ArtifactServiceOption;
  }
}

export const artifactsModule = defineModule<ServiceFactory>({
  feature: "artifacts",
  bind: (o) => (o.artifacts ? artifactsService(o.artifacts) : null),
  offer: (_m, api) => (isNegotiated(api) ? ["artifacts"] : null),
  open: (g, factory) => factory(g),
  childRequests: [ARTIFACT_PUBLISH],
  childNotifications: [],
});

/** The generation's media resolver, when the artifacts module is open for it. */
export function mediaResolver(modules: GenerationModules): MediaResolver | undefined {
  return (modules.instance(artifactsModule) as ArtifactsInstance | undefined)?.media;
}
