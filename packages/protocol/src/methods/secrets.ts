/** secrets and provider_credentials: values the host brokers for an extension, never logged. */
import {
  validateProviderCredentialsParams,
  validateProviderCredentialsResult,
  validateSecretParams,
  validateSecretResult,
} from "../api/validate-secret.js";
import { NEGOTIATED_VERSIONS, type MethodSpec } from "./spec.js";

export const SECRET_GET = {
  method: "secret/get",
  direction: "child->host",
  kind: "request",
  feature: "secrets",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateSecretParams,
  validateResult: validateSecretResult,
} as const satisfies MethodSpec;

export const PROVIDER_CREDENTIALS = {
  method: "provider/credentials",
  direction: "child->host",
  kind: "request",
  feature: "provider_credentials",
  apiVersions: NEGOTIATED_VERSIONS,
  validateParams: validateProviderCredentialsParams,
  validateResult: validateProviderCredentialsResult,
} as const satisfies MethodSpec;

export const SECRET_METHODS: readonly MethodSpec[] = [SECRET_GET, PROVIDER_CREDENTIALS];
