/**
 * The host services of API 0.2 an embedder can bind (ExtensionHostOptions.services), turned into
 * per-generation service factories (child-service.ts). A service left out is not offered: its
 * feature is absent from initialize, and its methods are answered as unsupported.
 *
 * Each service module adds its option here and its factory in bindServices().
 */
import type { ServiceFactory } from "./child-service.js";
import { dynamicToolsService, type DynamicToolsOptions, type NameOwners } from "./dynamic-tools.js";
import { presentationService, type PresentationServiceOptions } from "./presentation/presentation-service.js";
import { artifactsService, type ArtifactServiceOption } from "./artifacts/artifacts-service.js";
import { policyService, type PolicyOptions } from "./policy/policy-service.js";
import { providerCredentialsService, secretService, type ProviderCredentialsOptions, type SecretBroker } from "./secrets/secret-service.js";

/** What the embedder binds. Each member documents its own contract in its module. */
export interface HostServiceOptions {
  /**
   * tools/register and tools/unregister (dynamic_tools). Bind it only if you take a catalog
   * snapshot per model request (host.catalog()) and pass it with the calls made from that
   * request: that is how a call carries the epoch the model saw (CALL-04, CAT-14, CAT-15).
   */
  dynamicTools?: boolean | DynamicToolsOptions;
  /**
   * Accept presentation/update snapshots (presentation/presentation-service.ts): true, or options
   * (a clock for tests). Read them with host.presentation(name) or the `presentation` event.
   */
  presentation?: boolean | PresentationServiceOptions;
  /** artifact/publish and verified media in results (artifacts/artifacts-service.ts). */
  artifacts?: ArtifactServiceOption;
  /** policy/evaluate and, with `approve`, single-use approvals (services/policy). */
  policy?: PolicyOptions;
  /** secret/get through this broker, for names in a manifest's [capabilities].secrets (services/secrets). */
  secrets?: SecretBroker;
  /** provider/credentials for one named provider/model (services/secrets). */
  providerCredentials?: ProviderCredentialsOptions;
}

/** What the services need to know of the host as a whole. */
export interface ServiceHost {
  /** Tool names held by the host and by other extensions, for name reservation (CAT-06). */
  nameOwners: NameOwners;
}

/** The factories of the services bound in `options`, in a fixed order. */
export function bindServices(options: HostServiceOptions, host: ServiceHost): ServiceFactory[] {
  const factories: ServiceFactory[] = [];
  if (options.dynamicTools) factories.push(dynamicToolsService(options.dynamicTools === true ? {} : options.dynamicTools, host.nameOwners));
  if (options.presentation) factories.push(presentationService(options.presentation === true ? {} : options.presentation));
  if (options.artifacts) factories.push(artifactsService(options.artifacts));
  if (options.policy) factories.push(policyService(options.policy));
  if (options.secrets) factories.push(secretService(options.secrets));
  if (options.providerCredentials) factories.push(providerCredentialsService(options.providerCredentials));
  return factories;
}
