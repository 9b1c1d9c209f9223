import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { canonicalIntent, validatePolicyParams, validatePolicyResult } from "../../src/api/validate-policy.js";
import {
  MAX_POLICY_DATA_CLASSES,
  MAX_POLICY_DATA_CLASS_BYTES,
  MAX_POLICY_LABEL_BYTES,
  MAX_POLICY_OPERATION_BYTES,
  MAX_POLICY_ORIGIN_BYTES,
} from "../../src/bounds.js";
import { accepted, bytes, clone, refused } from "../helpers/checked.js";

/** The spec's example (W 2.9). */
const INTENT = {
  kind: "external_side_effect",
  operation: "browser.submit_form",
  target: { origin: "https://example.com", label: "Publish comment" },
  data_classes: ["user_text"],
  adapter_hints: { read_only: false, destructive: false },
};
const PARAMS = { parent_request_id: 2, intent: INTENT };
const TOKEN = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

function withIntent(edit: (i: any) => void): unknown {
  const p = clone(PARAMS) as any;
  edit(p.intent);
  return p;
}

test("POL-02: the policy/evaluate params of the spec are accepted as sent, with and without a token", () => {
  assert.deepEqual(accepted(validatePolicyParams(PARAMS)), PARAMS);
  assert.deepEqual(accepted(validatePolicyParams({ ...PARAMS, approval_token: TOKEN })), {
    ...PARAMS,
    approval_token: TOKEN,
  });
  assert.deepEqual(accepted(validatePolicyParams({ ...PARAMS, approval_token: null })), PARAMS);
});

test("POL-02: parent_request_id and every intent member are required", () => {
  refused(validatePolicyParams({ intent: INTENT }), "parent_request_id: missing");
  refused(validatePolicyParams({ parent_request_id: 2 }), "intent: missing; expected an object");
  for (const key of ["kind", "operation", "target", "data_classes", "adapter_hints"]) {
    refused(validatePolicyParams(withIntent((i) => delete i[key])), `intent.${key}: missing`);
  }
  refused(validatePolicyParams(withIntent((i) => delete i.target.label)), "intent.target.label: missing");
  refused(
    validatePolicyParams(withIntent((i) => delete i.adapter_hints.destructive)),
    "intent.adapter_hints.destructive: missing; expected a boolean",
  );
});

test("POL-06: kind is external_side_effect; unknown members of the intent, target and hints are refused", () => {
  refused(
    validatePolicyParams(withIntent((i) => (i.kind = "read"))),
    'intent.kind: "read" is not one of "external_side_effect"',
  );
  refused(validatePolicyParams(withIntent((i) => (i.scope = "all"))), "intent.scope: unknown member");
  refused(validatePolicyParams(withIntent((i) => (i.target.path = "/"))), "intent.target.path: unknown member");
  refused(
    validatePolicyParams(withIntent((i) => (i.adapter_hints.authorized = true))),
    "intent.adapter_hints.authorized: unknown member",
  );
  // The params themselves stay open (FRAME-15): an unknown top-level member is ignored.
  assert.deepEqual(accepted(validatePolicyParams({ ...PARAMS, trace: "x" })), PARAMS);
});

test("POL-06: operation is a dotted identifier of at most 128 bytes", () => {
  for (const op of ["git.push", "mcp.tool.call", "publish", "a_b-c.d"])
    accepted(validatePolicyParams(withIntent((i) => (i.operation = op))));
  for (const op of ["", ".a", "a.", "a..b", "a b", "1a", "a.*"])
    refused(validatePolicyParams(withIntent((i) => (i.operation = op))), "intent.operation");
  accepted(validatePolicyParams(withIntent((i) => (i.operation = bytes(MAX_POLICY_OPERATION_BYTES, "a")))));
  refused(
    validatePolicyParams(withIntent((i) => (i.operation = bytes(MAX_POLICY_OPERATION_BYTES + 1, "a")))),
    "intent.operation: 129 bytes, over the 128-byte limit",
  );
});

test("POL-06: data_classes has at most 16 unique identifiers of at most 64 bytes", () => {
  const classes = (n: number): string[] => Array.from({ length: n }, (_, k) => `c${k}`);
  accepted(validatePolicyParams(withIntent((i) => (i.data_classes = []))));
  accepted(validatePolicyParams(withIntent((i) => (i.data_classes = classes(MAX_POLICY_DATA_CLASSES)))));
  refused(
    validatePolicyParams(withIntent((i) => (i.data_classes = classes(MAX_POLICY_DATA_CLASSES + 1)))),
    "intent.data_classes: 17 entries, over the 16-entry limit",
  );
  accepted(validatePolicyParams(withIntent((i) => (i.data_classes = [bytes(MAX_POLICY_DATA_CLASS_BYTES, "d")]))));
  refused(
    validatePolicyParams(withIntent((i) => (i.data_classes = [bytes(MAX_POLICY_DATA_CLASS_BYTES + 1, "d")]))),
    "intent.data_classes[0]: 65 bytes, over the 64-byte limit",
  );
  refused(
    validatePolicyParams(withIntent((i) => (i.data_classes = ["pii", "pii"]))),
    'intent.data_classes: duplicate entries "pii"',
  );
  refused(validatePolicyParams(withIntent((i) => (i.data_classes = ["no spaces"]))), "intent.data_classes[0]");
  refused(
    validatePolicyParams(withIntent((i) => (i.data_classes = [1]))),
    "intent.data_classes[0]: expected a string, got number",
  );
});

test("POL-06: target origin (2048 bytes) and label (256 bytes, non-blank text) are bounded", () => {
  accepted(validatePolicyParams(withIntent((i) => (i.target.origin = bytes(MAX_POLICY_ORIGIN_BYTES)))));
  refused(
    validatePolicyParams(withIntent((i) => (i.target.origin = bytes(MAX_POLICY_ORIGIN_BYTES + 1)))),
    "intent.target.origin: 2049 bytes, over the 2048-byte limit",
  );
  accepted(validatePolicyParams(withIntent((i) => (i.target.label = bytes(MAX_POLICY_LABEL_BYTES)))));
  refused(
    validatePolicyParams(withIntent((i) => (i.target.label = bytes(MAX_POLICY_LABEL_BYTES + 1)))),
    "intent.target.label: 257 bytes, over the 256-byte limit",
  );
  refused(validatePolicyParams(withIntent((i) => (i.target.label = "  "))), "intent.target.label: must not be empty");
  refused(
    validatePolicyParams(withIntent((i) => (i.target.label = "a\u001b[2Jb"))),
    "intent.target.label: control character U+001B",
  );
});

test("POL-07: an approval token is exactly 64 lowercase hex characters, and a refusal never echoes it", () => {
  accepted(validatePolicyParams({ ...PARAMS, approval_token: TOKEN }));
  for (const bad of [TOKEN.slice(1), `${TOKEN}0`, TOKEN.toUpperCase(), `${TOKEN.slice(0, 63)}g`]) {
    const problems = refused(
      validatePolicyParams({ ...PARAMS, approval_token: bad }),
      "approval_token: must be exactly 64 lowercase hexadecimal characters",
    );
    assert.equal(
      problems.some((p) => p.includes(bad)),
      false,
    );
  }
  refused(
    validatePolicyParams({ ...PARAMS, approval_token: 42 }),
    "approval_token: expected a string of 64 lowercase hex characters, got number",
  );
});

test("POL-03, POL-08: the answer is exactly {decision, approval_token?}, and a token only on ask", () => {
  for (const decision of ["allow", "ask", "deny"])
    assert.deepEqual(accepted(validatePolicyResult({ decision })), { decision });
  assert.deepEqual(accepted(validatePolicyResult({ decision: "ask", approval_token: TOKEN })), {
    decision: "ask",
    approval_token: TOKEN,
  });
  refused(
    validatePolicyResult({ decision: "allow", approval_token: TOKEN }),
    'approval_token: present on a "allow" decision',
  );
  refused(
    validatePolicyResult({ decision: "deny", approval_token: TOKEN }),
    'approval_token: present on a "deny" decision',
  );
  refused(validatePolicyResult({ decision: "ask", approval_token: "x" }), "approval_token: must be exactly 64");
  refused(validatePolicyResult({ decision: "maybe" }), 'decision: "maybe" is not one of "allow", "ask", "deny"');
  refused(validatePolicyResult({ decision: "allow", reason: "ok" }), "reason: unknown member");
  refused(validatePolicyResult({}), "decision: missing");
});

test("POL-09: the canonical intent ignores member order and keeps data_classes order", () => {
  const reordered = {
    adapter_hints: { destructive: false, read_only: false },
    data_classes: ["user_text"],
    target: { label: "Publish comment", origin: "https://example.com" },
    operation: "browser.submit_form",
    kind: "external_side_effect",
  };
  const a = accepted(validatePolicyParams(PARAMS)).intent;
  const b = accepted(validatePolicyParams({ parent_request_id: 2, intent: reordered })).intent;
  assert.equal(canonicalIntent(a), canonicalIntent(b));
  const two = (classes: string[]) =>
    canonicalIntent(accepted(validatePolicyParams(withIntent((i) => (i.data_classes = classes)))).intent);
  assert.notEqual(two(["a", "b"]), two(["b", "a"]));
  assert.notEqual(
    canonicalIntent(a),
    canonicalIntent({ ...a, adapter_hints: { read_only: true, destructive: false } }),
  );
});

test("validatePolicyParams and validatePolicyResult never throw, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), fc.anything(), (v, w) => {
      validatePolicyParams(v);
      validatePolicyParams({ parent_request_id: 1, intent: v, approval_token: w });
      validatePolicyParams({ parent_request_id: 1, intent: { ...INTENT, target: v, data_classes: w } });
      validatePolicyResult(v);
      validatePolicyResult({ decision: "ask", approval_token: w });
      return true;
    }),
    { numRuns: 300 },
  );
});
