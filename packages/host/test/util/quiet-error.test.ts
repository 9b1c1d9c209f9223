import { test } from "node:test";
import assert from "node:assert/strict";
import { OctetError } from "@octet/protocol";
import { quietError } from "../../src/util/quiet-error.js";

test("quietError: an OctetError with its code, message and cause, no stack frames, and the limit restored", () => {
  const before = Error.stackTraceLimit;
  const cause = new OctetError("request_timeout", "inner");
  const err = quietError("request_cancelled", "tool/call (id 3) was cancelled", { cause });
  assert.ok(err instanceof OctetError);
  assert.equal(err.code, "request_cancelled");
  assert.equal(err.message, "tool/call (id 3) was cancelled");
  assert.equal(err.cause, cause);
  assert.equal(err.stack, "OctetError: tool/call (id 3) was cancelled");
  assert.equal(Error.stackTraceLimit, before);
  // An ordinary error made afterwards still has its frames.
  assert.match(new Error("after").stack ?? "", /\n\s+at /);
});
