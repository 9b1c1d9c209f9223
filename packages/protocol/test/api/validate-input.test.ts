import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { validateInputParams, validateInputResult } from "../../src/api/validate-input.js";
import { MAX_INPUT_PROMPT_BYTES, MAX_INPUT_VALUE_BYTES, MAX_SAFE_JSON_INTEGER } from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";
import { INPUT_PARAMS } from "../helpers/spec-fixtures.js";

test("INPUT-01: the input/request params of the spec are accepted as sent", () => {
  assert.deepEqual(accepted(validateInputParams(INPUT_PARAMS)), INPUT_PARAMS);
});

test("INPUT-01: secret defaults to false and must otherwise be a boolean", () => {
  assert.equal(accepted(validateInputParams({ parent_request_id: 2, prompt: "Name?" })).secret, false);
  assert.equal(accepted(validateInputParams({ parent_request_id: 2, prompt: "Name?", secret: null })).secret, false);
  refused(validateInputParams({ ...INPUT_PARAMS, secret: "yes" }), "secret: expected a boolean, got string");
});

test("INPUT-01: parent_request_id is a required unsigned safe integer", () => {
  refused(validateInputParams({ prompt: "p" }), "parent_request_id: missing; expected an integer");
  refused(
    validateInputParams({ ...INPUT_PARAMS, parent_request_id: "2" }),
    'parent_request_id: expected an integer, got "2"',
  );
  refused(
    validateInputParams({ ...INPUT_PARAMS, parent_request_id: -1 }),
    "parent_request_id: -1 is below the minimum 0",
  );
  refused(
    validateInputParams({ ...INPUT_PARAMS, parent_request_id: MAX_SAFE_JSON_INTEGER + 1 }),
    "parent_request_id: 9007199254740992 is above 2^53-1",
  );
  assert.equal(accepted(validateInputParams({ ...INPUT_PARAMS, parent_request_id: 0 })).parent_request_id, 0);
  refused(validateInputParams("Password:"), "expected an object, got string");
});

test("INPUT-01: unknown members are ignored and not carried over", () => {
  assert.deepEqual(accepted(validateInputParams({ ...INPUT_PARAMS, placeholder: "hunter2" })), INPUT_PARAMS);
});

test("INPUT-03: a prompt must contain non-whitespace text", () => {
  for (const prompt of ["", " ", "\n\t "])
    refused(validateInputParams({ ...INPUT_PARAMS, prompt }), "prompt: must not be empty");
  refused(validateInputParams({ ...INPUT_PARAMS, prompt: undefined }), "prompt: missing; expected a string");
  refused(validateInputParams({ ...INPUT_PARAMS, prompt: 1 }), "prompt: expected a string, got number");
});

test("INPUT-03: a 16 KiB prompt is accepted, one byte more is refused naming size and limit", () => {
  accepted(validateInputParams({ ...INPUT_PARAMS, prompt: bytes(MAX_INPUT_PROMPT_BYTES) }));
  accepted(validateInputParams({ ...INPUT_PARAMS, prompt: "€".repeat(5_461) + "a" })); // 3 bytes each: 16,384
  refused(
    validateInputParams({ ...INPUT_PARAMS, prompt: bytes(MAX_INPUT_PROMPT_BYTES + 1) }),
    "prompt: 16385 bytes, over the 16384-byte limit",
  );
  refused(
    validateInputParams({ ...INPUT_PARAMS, prompt: "€".repeat(5_462) }),
    "prompt: 16386 bytes, over the 16384-byte limit",
  );
});

test("INPUT-02: the answer is exactly {value}: a string or null", () => {
  assert.deepEqual(accepted(validateInputResult({ value: "hunter2" })), { value: "hunter2" });
  assert.deepEqual(accepted(validateInputResult({ value: "" })), { value: "" });
  assert.deepEqual(accepted(validateInputResult({ value: null })), { value: null });
  refused(validateInputResult({}), "value: missing; expected a string or null");
  refused(validateInputResult({ value: 42 }), "value: expected a string or null, got number");
  refused(validateInputResult({ value: "x", cancelled: false }), "cancelled: unknown member");
  refused(validateInputResult("x"), "expected an object, got string");
  refused(validateInputResult(null), "expected an object, got null");
});

test("INPUT-04: a 256 KiB answer is accepted, one byte more is refused naming size and limit", () => {
  accepted(validateInputResult({ value: bytes(MAX_INPUT_VALUE_BYTES) }));
  refused(
    validateInputResult({ value: bytes(MAX_INPUT_VALUE_BYTES + 1) }),
    "value: 262145 bytes, over the 262144-byte limit",
  );
  refused(
    validateInputResult({ value: "é".repeat(MAX_INPUT_VALUE_BYTES / 2) + "x" }),
    "value: 262145 bytes, over the 262144-byte limit",
  );
});

test("INPUT-05: a refused answer never quotes its value, which may be a secret", () => {
  const secret = "s3cr3t-".repeat(40_000);
  const problems = refused(validateInputResult({ value: secret, extra: secret }));
  assert.equal(
    problems.some((p) => p.includes("s3cr3t")),
    false,
    problems.join("\n"),
  );
});

test("validateInputParams and validateInputResult never throw, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), fc.anything(), (v, w) => {
      validateInputParams(v);
      validateInputParams({ parent_request_id: v, prompt: w, secret: v });
      validateInputResult(v);
      validateInputResult({ value: w });
      return true;
    }),
    { numRuns: 300 },
  );
});
