/**
 * secret/get (SEC-02, SEC-03) and provider/credentials (SEC-08..10): the params an extension sends
 * and the answer it gets back. Owns shapes and bounds; the allowlist, the broker and the uniform
 * -32004 are the host's. Params are open (FRAME-15); answers are closed ("contains exactly").
 *
 * A refusal of an answer never quotes the value: it is a secret.
 */
import {
  MAX_PROVIDER_CREDENTIAL_BYTES,
  MAX_PROVIDER_ID_BYTES,
  MAX_SECRET_NAME_BYTES,
  MAX_SECRET_VALUE_BYTES,
} from "../bounds.js";
import {
  checkBytes,
  member,
  quote,
  readInteger,
  readObject,
  readString,
  refuse,
  rejectUnknown,
} from "../validate/fields.js";
import { describe, Problems, type Checked } from "../validate/kit.js";

export interface SecretGetParams {
  parent_request_id: number;
  name: string;
}
export interface SecretGetResult {
  value: string;
}
/** SEC-10 GAP default: one named provider/model. */
export interface ProviderCredentialsParams {
  parent_request_id: number;
  provider: string;
  model: string;
}
export interface ProviderCredentialsResult {
  credential: string;
}

/** Secret names (MAN-13): ASCII, a letter or "_" first, then letters, digits, "_", "-" or ".". */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

const SECRET_RESULT = new Set(["value"]);
const CREDENTIAL_RESULT = new Set(["credential"]);

/** secret/get params. Whether the name is in the manifest's allowlist is the host's check. */
export function validateSecretParams(value: unknown): Checked<SecretGetParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const parent = readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  const name = readString(p, "name", member(obj, "name"), { maxBytes: MAX_SECRET_NAME_BYTES });
  if (name !== undefined && !SECRET_NAME_PATTERN.test(name))
    p.add("name", `${quote(name)} is not a secret name (${SECRET_NAME_PATTERN.source})`);
  if (!p.ok || parent === undefined || name === undefined) return refuse(p);
  return { ok: true, value: { parent_request_id: parent, name } };
}

/** The secret/get answer: exactly {value}, a string of at most 64 KiB; "" is a value. */
export function validateSecretResult(value: unknown): Checked<SecretGetResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, SECRET_RESULT);
  const v = member(obj, "value");
  if (typeof v !== "string")
    p.add("value", v === undefined ? "missing; expected a string" : `expected a string, got ${describe(v)}`);
  else checkBytes(p, "value", v, MAX_SECRET_VALUE_BYTES);
  if (!p.ok) return refuse(p);
  return { ok: true, value: { value: v as string } };
}

/** provider/credentials params: the one provider/model whose credential is asked for. */
export function validateProviderCredentialsParams(value: unknown): Checked<ProviderCredentialsParams> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  const parent = readInteger(p, "parent_request_id", member(obj, "parent_request_id"), 0);
  const provider = readString(p, "provider", member(obj, "provider"), {
    nonBlank: true,
    maxBytes: MAX_PROVIDER_ID_BYTES,
    plainText: true,
  });
  const model = readString(p, "model", member(obj, "model"), {
    nonBlank: true,
    maxBytes: MAX_PROVIDER_ID_BYTES,
    plainText: true,
  });
  if (!p.ok || parent === undefined || provider === undefined || model === undefined) return refuse(p);
  return { ok: true, value: { parent_request_id: parent, provider, model } };
}

/** The provider/credentials answer: exactly {credential}, at most 64 KiB. */
export function validateProviderCredentialsResult(value: unknown): Checked<ProviderCredentialsResult> {
  const p = new Problems();
  const obj = readObject(p, "", value);
  if (obj === undefined) return refuse(p);
  rejectUnknown(p, "", obj, CREDENTIAL_RESULT);
  const v = member(obj, "credential");
  if (typeof v !== "string")
    p.add("credential", v === undefined ? "missing; expected a string" : `expected a string, got ${describe(v)}`);
  else checkBytes(p, "credential", v, MAX_PROVIDER_CREDENTIAL_BYTES);
  if (!p.ok) return refuse(p);
  return { ok: true, value: { credential: v as string } };
}
