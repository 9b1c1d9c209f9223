import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { CANCEL_REASONS, validateCancelParams } from "../../src/api/validate-cancel.js";
import { MAX_CANCEL_REASON_BYTES, MAX_CHILD_ID_BYTES, MAX_SAFE_JSON_INTEGER } from "../../src/bounds.js";
import { accepted, bytes, refused } from "../helpers/checked.js";
import { CANCEL_PARAMS } from "../helpers/spec-fixtures.js";

test("CANCEL-01: the $/cancelRequest params of the spec are accepted as sent", () => {
  assert.deepEqual(accepted(validateCancelParams(CANCEL_PARAMS)), CANCEL_PARAMS);
});

test("CANCEL-01: id is required: an unsigned integer or a string by the REV-02 rules", () => {
  assert.equal(accepted(validateCancelParams({ id: 0 })).id, 0);
  assert.equal(accepted(validateCancelParams({ id: MAX_SAFE_JSON_INTEGER })).id, MAX_SAFE_JSON_INTEGER);
  refused(validateCancelParams({ reason: "user" }), "id: missing; expected an unsigned integer or a string");
  refused(validateCancelParams({ id: null }), "id: id must be an unsigned integer or a string, got null");
  refused(validateCancelParams({ id: -1 }), "id: id -1 is not an unsigned integer");
  refused(validateCancelParams({ id: 1.5 }), "id: id 1.5 is not an unsigned integer");
  refused(validateCancelParams({ id: MAX_SAFE_JSON_INTEGER + 1 }), "id: id 9007199254740992 is above 2^53-1");
  refused(validateCancelParams([42]), "expected an object, got array");
});

test("CANCEL-09: an extension's own child request id may be a string of at most 256 bytes", () => {
  assert.equal(accepted(validateCancelParams({ id: "input-1" })).id, "input-1");
  accepted(validateCancelParams({ id: bytes(MAX_CHILD_ID_BYTES) }));
  refused(
    validateCancelParams({ id: bytes(MAX_CHILD_ID_BYTES + 1) }),
    "id: id string is 257 bytes, over the 256-byte limit",
  );
});

test("CANCEL-11: reason is optional: absent or null reads as null", () => {
  assert.deepEqual(accepted(validateCancelParams({ id: 7 })), { id: 7, reason: null });
  assert.deepEqual(accepted(validateCancelParams({ id: 7, reason: null })), { id: 7, reason: null });
  refused(validateCancelParams({ id: 7, reason: 3 }), "reason: expected a string, got number");
});

test(
  "CANCEL-11: the host's reasons are user, timeout, parent_settled, shutdown and reload; any other short " +
    "string is accepted too",
  () => {
    assert.deepEqual([...CANCEL_REASONS], ["user", "timeout", "parent_settled", "shutdown", "reload"]);
    for (const reason of [...CANCEL_REASONS, "deadline exceeded", ""])
      assert.equal(accepted(validateCancelParams({ id: 1, reason })).reason, reason);
  },
);

test("CANCEL-11: a 256-byte reason is accepted, 257 is refused naming size and limit", () => {
  accepted(validateCancelParams({ id: 1, reason: bytes(MAX_CANCEL_REASON_BYTES) }));
  accepted(validateCancelParams({ id: 1, reason: "é".repeat(MAX_CANCEL_REASON_BYTES / 2) }));
  refused(
    validateCancelParams({ id: 1, reason: bytes(MAX_CANCEL_REASON_BYTES + 1) }),
    "reason: 257 bytes, over the 256-byte limit",
  );
});

test("CANCEL-01: unknown members are ignored and not carried over", () => {
  assert.deepEqual(accepted(validateCancelParams({ ...CANCEL_PARAMS, grace_ms: 10 })), CANCEL_PARAMS);
});

test("validateCancelParams never throws, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), fc.anything(), (v, w) => {
      validateCancelParams(v);
      validateCancelParams({ id: v, reason: w });
      return true;
    }),
    { numRuns: 300 },
  );
});
