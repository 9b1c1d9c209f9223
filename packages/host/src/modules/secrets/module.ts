/**
 * The secrets modules: secret/get (W 2.10, SEC-01..07) and provider/credentials (W 1.1,
 * SEC-08..10); see secret-service.ts. Each is offered only to a manifest that declares what it
 * may ask for: a non-empty [capabilities].secrets, or provider_credentials.
 */
import { PROVIDER_CREDENTIALS, SECRET_GET, isNegotiated } from "@octet/protocol";
import { defineModule, type ServiceFactory } from "../module.js";
import {
  providerCredentialsService,
  secretService,
  type ProviderCredentialsOptions,
  type SecretBroker,
} from "./secret-service.js";

declare module "../options.js" {
  interface HostServiceOptions {
    /** secret/get through this broker, for names in a manifest's [capabilities].secrets (modules/secrets). */
    secrets?: SecretBroker;
    /** provider/credentials for one named provider/model (modules/secrets). */
    providerCredentials?: ProviderCredentialsOptions;
  }
}

export const secretsModule = defineModule<ServiceFactory>({
  feature: "secrets",
  bind: (o) => (o.secrets ? secretService(o.secrets) : null),
  offer: (m, api) => (isNegotiated(api) && m.capabilities.secrets.length > 0 ? ["secrets"] : null),
  open: (g, factory) => factory(g),
  childRequests: [SECRET_GET],
  childNotifications: [],
});

export const providerCredentialsModule = defineModule<ServiceFactory>({
  feature: "provider_credentials",
  bind: (o) => (o.providerCredentials ? providerCredentialsService(o.providerCredentials) : null),
  offer: (m, api) => (isNegotiated(api) && m.capabilities.provider_credentials ? ["provider_credentials"] : null),
  open: (g, factory) => factory(g),
  childRequests: [PROVIDER_CREDENTIALS],
  childNotifications: [],
});
