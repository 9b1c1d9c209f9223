import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  validateProviderCredentialsParams,
  validateProviderCredentialsResult,
  validateSecretParams,
  validateSecretResult,
} from "../../src/api/validate-secret.js";
import {
  MAX_PROVIDER_CREDENTIAL_BYTES,
  MAX_PROVIDER_ID_BYTES,
  MAX_SECRET_NAME_BYTES,
  MAX_SECRET_VALUE_BYTES,
} from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";

const PARAMS = { parent_request_id: 2, name: "browser.api_token" };

test("SEC-02: the secret/get params of the spec are accepted as sent", () => {
  assert.deepEqual(accepted(validateSecretParams(PARAMS)), PARAMS);
  refused(validateSecretParams({ name: "x" }), "parent_request_id: missing");
  refused(validateSecretParams({ parent_request_id: 2 }), "name: missing; expected a string");
  refused(validateSecretParams({ parent_request_id: -1, name: "x" }), "parent_request_id: -1 is below the minimum 0");
});

test("SEC-03: a name is a MAN-13 identifier of at most 64 ASCII bytes", () => {
  for (const name of ["_x", "a.b-c_d", "A9"]) accepted(validateSecretParams({ ...PARAMS, name }));
  for (const name of ["", "9a", "-a", ".a", "a b", "a/b", "é"])
    refused(validateSecretParams({ ...PARAMS, name }), "name");
  accepted(validateSecretParams({ ...PARAMS, name: bytes(MAX_SECRET_NAME_BYTES, "n") }));
  refused(
    validateSecretParams({ ...PARAMS, name: bytes(MAX_SECRET_NAME_BYTES + 1, "n") }),
    "name: 65 bytes, over the 64-byte limit",
  );
});

test("SEC-02: the answer is exactly {value}: a string of at most 64 KiB, possibly empty", () => {
  assert.deepEqual(accepted(validateSecretResult({ value: "" })), { value: "" });
  accepted(validateSecretResult({ value: bytes(MAX_SECRET_VALUE_BYTES) }));
  refused(
    validateSecretResult({ value: bytes(MAX_SECRET_VALUE_BYTES + 1) }),
    "value: 65537 bytes, over the 65536-byte limit",
  );
  refused(validateSecretResult({ value: null }), "value: expected a string, got null");
  refused(validateSecretResult({}), "value: missing");
  refused(validateSecretResult({ value: "x", source: "vault" }), "source: unknown member");
});

test("SEC-07: a refused answer never quotes the secret value", () => {
  const secret = "hunter2-".repeat(9_000);
  const problems = refused(validateSecretResult({ value: secret, extra: 1 }));
  assert.equal(
    problems.some((p) => p.includes("hunter2")),
    false,
    problems.join("\n"),
  );
});

test(
  "SEC-10: provider/credentials params {parent_request_id, provider, model} and answer " + "{credential}, bounded",
  () => {
    const p = { parent_request_id: 3, provider: "openai", model: "gpt-x" };
    assert.deepEqual(accepted(validateProviderCredentialsParams(p)), p);
    accepted(validateProviderCredentialsParams({ ...p, model: bytes(MAX_PROVIDER_ID_BYTES) }));
    refused(
      validateProviderCredentialsParams({ ...p, model: bytes(MAX_PROVIDER_ID_BYTES + 1) }),
      "model: 257 bytes, over the 256-byte limit",
    );
    refused(validateProviderCredentialsParams({ ...p, provider: " " }), "provider: must not be empty");
    accepted(validateProviderCredentialsResult({ credential: bytes(MAX_PROVIDER_CREDENTIAL_BYTES) }));
    refused(
      validateProviderCredentialsResult({ credential: bytes(MAX_PROVIDER_CREDENTIAL_BYTES + 1) }),
      "credential: 65537 bytes, over the 65536-byte limit",
    );
    refused(validateProviderCredentialsResult({ credential: "x", headers: {} }), "headers: unknown member");
  },
);

test("the secret validators never throw, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), (v) => {
      validateSecretParams(v);
      validateSecretParams({ parent_request_id: 1, name: v });
      validateSecretResult(v);
      validateSecretResult({ value: v });
      validateProviderCredentialsParams(v);
      validateProviderCredentialsResult({ credential: v });
      return true;
    }),
    { numRuns: 300 },
  );
});
