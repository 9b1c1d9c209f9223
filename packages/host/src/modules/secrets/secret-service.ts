/**
 * secret/get (W 2.10, SEC-01..07) and provider/credentials (W 1.1, SEC-08..10): values an
 * embedder's broker holds, handed to one extension's active operation. The host derives who asks
 * (extension identity and owner triple) from the active parent, never from the extension's JSON
 * (SEC-05), and checks the exact name against the manifest's [capabilities].secrets allowlist.
 *
 * Every broker outcome that is not a value (no value, a throw, a non-string, invalid UTF-8, over
 * 64 KiB) is the same -32004 with the same message (SEC-06): the extension cannot tell a missing
 * secret from a broken broker, and provider details stay in the host.
 *
 * What "never logged" means here (SEC-07): the value is in no diagnostic, event, status or error;
 * a Uint8Array the broker returns is zero-filled as soon as it is decoded; the reply object and
 * the frame text are not kept once written. JS strings cannot be wiped in place: see
 * docs/decisions.md "Policy, approvals and secrets".
 */
import {
  ErrorCode,
  WireError,
  bounds,
  utf8ByteLength,
  validateProviderCredentialsParams,
  validateSecretParams,
  type ResourceOwner,
} from "@octet/protocol";
import type { ChildRequestScope, GenerationService, ServiceGeneration } from "../module.js";
import { settleBy } from "../signals.js";
import { requireParent } from "../parent.js";

/** A broker's answer: the value (a string, or UTF-8 bytes the host wipes after use), or none. */
export type SecretValue = string | Uint8Array | null | undefined;

export interface SecretRequest {
  /** The extension's manifest name. */
  extension: string;
  /** The host-issued owner of the active parent (session, extension instance, generation). */
  owner: ResourceOwner;
  parentRequestId: number;
  /** The exact logical name, already checked against the manifest's allowlist. */
  name: string;
  signal: AbortSignal;
}

/** What the embedder binds as `services.secrets`: the broker. */
export type SecretBroker = (request: SecretRequest) => SecretValue | Promise<SecretValue>;

export interface ProviderCredentialRequest {
  extension: string;
  owner: ResourceOwner;
  parentRequestId: number;
  provider: string;
  model: string;
  signal: AbortSignal;
}

/**
 * What the embedder binds as `services.providerCredentials`: the one native provider/model whose
 * credential the host's own authentication resolves (SEC-08). A request naming any other identity
 * is refused, never widened (SEC-09).
 */
export interface ProviderCredentialsOptions {
  provider: string;
  model: string;
  resolve(request: ProviderCredentialRequest): SecretValue | Promise<SecretValue>;
}

/** The one answer for every broker failure (SEC-06). */
const UNAVAILABLE_MESSAGE = "secret_unavailable secret is unavailable";

export function secretService(broker: SecretBroker): (g: ServiceGeneration) => GenerationService | null {
  if (typeof broker !== "function") throw new TypeError("services.secrets must be a broker function");
  return (g) => {
    const allowlist = new Set(g.manifest.capabilities.secrets);
    // Offered only with a non-empty allowlist (W 1.1): nothing could be asked for otherwise.
    if (allowlist.size === 0) return null;
    let negotiated = false;
    const get = async (scope: ChildRequestScope): Promise<{ value: string }> => {
      if (!negotiated)
        throw new WireError(
          ErrorCode.MethodNotFound,
          "unsupported_feature secret/get needs the secrets feature, which this extension did not negotiate",
        );
      // A missing parent_request_id is "no active owner" (-32002, SEC-04) before the params are judged.
      requireParent(scope.method, scope.params);
      const checked = validateSecretParams(scope.params);
      if (!checked.ok)
        throw new WireError(ErrorCode.InvalidParams, `invalid secret/get: ${checked.problems.join("; ")}`);
      const { name } = checked.value;
      // Exact match only: no case folding, no prefixes (SEC-03). The name is not secret; quoting it helps the author.
      if (!allowlist.has(name))
        throw new WireError(
          ErrorCode.InvalidParams,
          `invalid secret/get: name ${JSON.stringify(name)} is not declared in the manifest's [capabilities].secrets`,
        );
      const { signal, parentId } = scope.parent(checked.value.parent_request_id);
      const value = await fetchValue(
        () => broker({ extension: g.name, owner: g.owner(), parentRequestId: parentId, name, signal }),
        signal,
        bounds.MAX_SECRET_VALUE_BYTES,
      );
      if (value === undefined) {
        g.diagnose("info", `secret/get ${JSON.stringify(name)}: unavailable (the broker gave no usable value)`);
        throw new WireError(ErrorCode.SecretUnavailable, UNAVAILABLE_MESSAGE);
      }
      return { value };
    };
    return {
      features: ["secrets"],
      requests: { "secret/get": get },
      negotiated(features) {
        negotiated = features.includes("secrets");
      },
    };
  };
}

export function providerCredentialsService(
  options: ProviderCredentialsOptions,
): (g: ServiceGeneration) => GenerationService | null {
  if (typeof options.resolve !== "function")
    throw new TypeError("services.providerCredentials.resolve must be a function");
  return (g) => {
    // The reviewed declaration is the only source of the feature (MAN-16, SEC-08).
    if (!g.manifest.capabilities.provider_credentials) return null;
    let negotiated = false;
    const get = async (scope: ChildRequestScope): Promise<{ credential: string }> => {
      if (!negotiated)
        throw new WireError(
          ErrorCode.MethodNotFound,
          "unsupported_feature provider/credentials needs the provider_credentials feature, which this " +
            "extension did not negotiate",
        );
      // A missing parent_request_id is "no active owner" (-32002, SEC-04) before the params are judged.
      requireParent(scope.method, scope.params);
      const checked = validateProviderCredentialsParams(scope.params);
      if (!checked.ok)
        throw new WireError(ErrorCode.InvalidParams, `invalid provider/credentials: ${checked.problems.join("; ")}`);
      const { provider, model } = checked.value;
      if (provider !== options.provider || model !== options.model) {
        throw new WireError(
          ErrorCode.InvalidParams,
          "invalid provider/credentials: refused; this host resolves the credential of one named " +
            "provider/model only, and this is not it",
        );
      }
      const { signal, parentId } = scope.parent(checked.value.parent_request_id);
      const credential = await fetchValue(
        () =>
          options.resolve({ extension: g.name, owner: g.owner(), parentRequestId: parentId, provider, model, signal }),
        signal,
        bounds.MAX_PROVIDER_CREDENTIAL_BYTES,
      );
      if (credential === undefined) throw new WireError(ErrorCode.SecretUnavailable, UNAVAILABLE_MESSAGE);
      return { credential };
    };
    return {
      features: ["provider_credentials"],
      requests: { "provider/credentials": get },
      negotiated(features) {
        negotiated = features.includes("provider_credentials");
      },
    };
  };
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The broker's value as a bounded string, or undefined for anything else. Bytes are decoded
 * strictly and then zero-filled, whatever the outcome. Throws -32800 when the request was
 * cancelled meanwhile (its parent settled): the value, if any, is dropped unsent.
 */
async function fetchValue(
  call: () => SecretValue | Promise<SecretValue>,
  signal: AbortSignal,
  maxBytes: number,
): Promise<string | undefined> {
  let raw: SecretValue;
  try {
    raw = await settleBy(Promise.resolve().then(call), signal);
  } catch {
    raw = undefined;
  }
  let value: string | undefined;
  if (typeof raw === "string") value = raw;
  else if (raw instanceof Uint8Array) {
    try {
      value = STRICT_UTF8.decode(raw);
    } catch {
      value = undefined;
    } finally {
      raw.fill(0);
    }
  }
  if (signal.aborted)
    throw new WireError(ErrorCode.RequestCancelled, "cancelled: the parent settled or the request was cancelled");
  if (value !== undefined && utf8ByteLength(value) > maxBytes) value = undefined;
  return value;
}
