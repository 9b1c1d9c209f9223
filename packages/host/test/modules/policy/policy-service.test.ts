import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, bounds, type PolicyDecision } from "@octet/protocol";
import {
  policyService,
  type PolicyClassifyRequest,
  type PolicyOptions,
} from "../../../src/modules/policy/policy-service.js";
import { bindServices } from "../../../src/modules/registry.js";
import { call, fakeGeneration, wireError, type FakeGeneration } from "../fake-generation.js";
import type { GenerationService } from "../../../src/modules/module.js";

const INTENT = {
  kind: "external_side_effect",
  operation: "browser.submit_form",
  target: { origin: "https://example.com", label: "Publish comment" },
  data_classes: ["user_text"],
  adapter_hints: { read_only: false, destructive: false },
};

function setup(
  options: Partial<PolicyOptions> & { decision?: PolicyDecision },
  features = ["policy_intents", "approvals"],
  number = 1,
): { g: FakeGeneration; s: GenerationService; seen: PolicyClassifyRequest[] } {
  const seen: PolicyClassifyRequest[] = [];
  const g = fakeGeneration({ number });
  const s = policyService({
    classify: (r) => {
      seen.push(r);
      return options.decision ?? "ask";
    },
    ...options,
  })(g);
  s.negotiated?.(features);
  return { g, s, seen };
}

const evaluate = (g: FakeGeneration, s: GenerationService, params: unknown): Promise<any> =>
  call(g, s, "policy/evaluate", params);

test("INIT-29, POL-07: policy_intents is offered only with a classifier, approvals only with an approver too", () => {
  assert.deepEqual(bindServices({}, { nameOwners: () => new Map() }), []);
  const g = fakeGeneration();
  assert.deepEqual(policyService({ classify: () => "deny" })(g).features, ["policy_intents"]);
  assert.deepEqual(policyService({ classify: () => "deny", approve: async () => true })(g).features, [
    "policy_intents",
    "approvals",
  ]);
  assert.throws(() => policyService({} as PolicyOptions), /classify must be a function/);
});

test("POL-01: policy/evaluate without negotiated policy_intents is -32601 unsupported_feature", async () => {
  const { g, s } = setup({ decision: "allow" }, []);
  g.addParent(2);
  const err = await wireError(evaluate(g, s, { parent_request_id: 2, intent: INTENT }));
  assert.equal(err.code, ErrorCode.MethodNotFound);
  assert.match(err.message, /^unsupported_feature /);
});

test(
  "POL-02, POL-03: the classifier's decision is the answer; malformed params are -32602; a missing or " +
    "settled parent is -32002",
  async () => {
    for (const decision of ["allow", "ask", "deny"] as const) {
      const { g, s } = setup({ decision }, ["policy_intents"]);
      g.addParent(2);
      assert.deepEqual(await evaluate(g, s, { parent_request_id: 2, intent: INTENT }), { decision });
    }
    const { g, s } = setup({ decision: "allow" });
    g.addParent(2);
    const bad = await wireError(evaluate(g, s, { parent_request_id: 2, intent: { ...INTENT, kind: "read" } }));
    assert.equal(bad.code, ErrorCode.InvalidParams);
    assert.match(bad.message, /intent\.kind/);
    assert.equal((await wireError(evaluate(g, s, { intent: INTENT }))).code, ErrorCode.Unavailable);
    assert.equal(
      (await wireError(evaluate(g, s, { parent_request_id: 99, intent: INTENT }))).code,
      ErrorCode.Unavailable,
    );
  },
);

test("POL-04: the classifier gets the host-derived owner and parent, and never the adapter hints", async () => {
  const { g, s, seen } = setup({ decision: "allow" });
  g.addParent(5);
  await evaluate(g, s, {
    parent_request_id: 5,
    intent: { ...INTENT, adapter_hints: { read_only: true, destructive: false } },
    resource_owner: { session_id: "forged" },
  });
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.parentRequestId, 5);
  assert.deepEqual(seen[0]!.owner, { session_id: "s-1", extension_instance_id: "i-1", process_generation: 1 });
  assert.equal(Object.hasOwn(seen[0]!.intent, "adapter_hints"), false);
});

test(
  "POL-04: adapter hints only raise caution: destructive lifts allow to ask; read_only never lowers " + "ask or deny",
  async () => {
    const hints = (read_only: boolean, destructive: boolean) => ({
      ...INTENT,
      adapter_hints: { read_only, destructive },
    });
    const cases: [PolicyDecision, boolean, boolean, PolicyDecision][] = [
      ["allow", false, true, "ask"],
      ["allow", true, false, "allow"],
      ["ask", true, false, "ask"],
      ["deny", true, false, "deny"],
      ["deny", false, true, "deny"],
      ["ask", false, true, "ask"],
    ];
    for (const [decision, ro, destructive, expected] of cases) {
      const { g, s } = setup({ decision }, ["policy_intents"]);
      g.addParent(2);
      assert.deepEqual(
        await evaluate(g, s, { parent_request_id: 2, intent: hints(ro, destructive) }),
        { decision: expected },
        `${decision} read_only=${ro} destructive=${destructive}`,
      );
    }
  },
);

test("POL-05: a classifier that throws, returns nothing or an unknown decision denies, with a diagnostic", async () => {
  for (const classify of [
    () => {
      throw new Error("rules unavailable");
    },
    () => undefined,
    () => "yes",
    async () => Promise.reject(new Error("x")),
  ]) {
    const g = fakeGeneration();
    const s = policyService({ classify: classify as PolicyOptions["classify"] })(g);
    s.negotiated?.(["policy_intents"]);
    g.addParent(2);
    assert.deepEqual(await evaluate(g, s, { parent_request_id: 2, intent: INTENT }), { decision: "deny" });
    assert.equal(g.diagnostics.length, 1);
    assert.match(g.diagnostics[0]!, /browser\.submit_form.*denied/);
  }
});

test("POL-07, POL-08, POL-09: an approved ask carries a token; the exact retry is allowed once", async () => {
  const asked: unknown[] = [];
  const { g, s } = setup({ decision: "ask", approve: async (r) => (asked.push(r.intent), true) });
  g.addParent(2);
  const first = await evaluate(g, s, { parent_request_id: 2, intent: INTENT });
  assert.equal(first.decision, "ask");
  assert.match(first.approval_token, /^[0-9a-f]{64}$/);
  assert.deepEqual(asked, [INTENT], "the approver sees the whole intent, hints included");
  // Members in another order are the same canonical intent.
  const reordered = {
    adapter_hints: INTENT.adapter_hints,
    data_classes: INTENT.data_classes,
    target: INTENT.target,
    operation: INTENT.operation,
    kind: INTENT.kind,
  };
  assert.deepEqual(
    await evaluate(g, s, { parent_request_id: 2, intent: reordered, approval_token: first.approval_token }),
    { decision: "allow" },
  );
  assert.deepEqual(
    await evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token: first.approval_token }),
    { decision: "deny" },
    "reuse",
  );
});

test("POL-08: a declined approval is deny, and allow/deny never carry a token", async () => {
  const declined = setup({ decision: "ask", approve: async () => false });
  declined.g.addParent(2);
  assert.deepEqual(await evaluate(declined.g, declined.s, { parent_request_id: 2, intent: INTENT }), {
    decision: "deny",
  });
  for (const decision of ["allow", "deny"] as const) {
    let approvals = 0;
    const { g, s } = setup({ decision, approve: async () => (approvals++, true) });
    g.addParent(2);
    assert.deepEqual(await evaluate(g, s, { parent_request_id: 2, intent: INTENT }), { decision });
    assert.equal(approvals, 0, "only an ask is put to the person");
  }
  // Without approvals negotiated an ask stays a plain ask: nobody is asked.
  let approvals = 0;
  const plain = setup({ decision: "ask", approve: async () => (approvals++, true) }, ["policy_intents"]);
  plain.g.addParent(2);
  assert.deepEqual(await evaluate(plain.g, plain.s, { parent_request_id: 2, intent: INTENT }), { decision: "ask" });
  assert.equal(approvals, 0);
});

test("POL-11: an intent or parent mismatch is deny and consumes the token", async () => {
  const { g, s } = setup({ decision: "ask", approve: async () => true });
  g.addParent(2);
  g.addParent(3);
  const token = async () => (await evaluate(g, s, { parent_request_id: 2, intent: INTENT })).approval_token as string;
  const t1 = await token();
  assert.deepEqual(
    await evaluate(g, s, {
      parent_request_id: 2,
      intent: { ...INTENT, operation: "browser.delete" },
      approval_token: t1,
    }),
    { decision: "deny" },
  );
  assert.deepEqual(
    await evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token: t1 }),
    { decision: "deny" },
    "consumed by the mismatch",
  );
  const t2 = await token();
  assert.deepEqual(await evaluate(g, s, { parent_request_id: 3, intent: INTENT, approval_token: t2 }), {
    decision: "deny",
  });
  assert.deepEqual(await evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token: t2 }), {
    decision: "deny",
  });
  const t3 = await token();
  assert.deepEqual(
    await evaluate(g, s, {
      parent_request_id: 2,
      intent: { ...INTENT, data_classes: ["user_text", "pii"] },
      approval_token: t3,
    }),
    { decision: "deny" },
  );
  // A well-formed token the host never issued is a deny, not an error.
  assert.deepEqual(await evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token: "f".repeat(64) }), {
    decision: "deny",
  });
});

test("POL-10: the retry after five minutes (fake clock) is deny", async () => {
  let now = 0;
  const { g, s } = setup({ decision: "ask", approve: async () => true, now: () => now });
  g.addParent(2);
  const { approval_token } = await evaluate(g, s, { parent_request_id: 2, intent: INTENT });
  now += bounds.APPROVAL_TOKEN_TTL_MS;
  assert.deepEqual(await evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token }), {
    decision: "deny",
  });
});

test("POL-09: a settled parent's token is gone; the retry names a new parent and is denied", async () => {
  const { g, s } = setup({ decision: "ask", approve: async () => true });
  const parent = g.addParent(2);
  const { approval_token } = await evaluate(g, s, { parent_request_id: 2, intent: INTENT });
  parent.abort();
  assert.equal(
    (await wireError(evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token }))).code,
    ErrorCode.Unavailable,
    "the parent is no longer active",
  );
  g.addParent(4);
  assert.deepEqual(await evaluate(g, s, { parent_request_id: 4, intent: INTENT, approval_token }), {
    decision: "deny",
  });
});

test("POL-09: two concurrent retries with one token: exactly one is allowed", async () => {
  const { g, s } = setup({
    decision: "ask",
    approve: async () => true,
    classify: async () => new Promise<PolicyDecision>((r) => setImmediate(() => r("ask"))),
  });
  g.addParent(2);
  const { approval_token } = await evaluate(g, s, { parent_request_id: 2, intent: INTENT });
  const answers = await Promise.all(
    [1, 2, 3].map(() => evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token })),
  );
  assert.deepEqual(answers.map((a) => a.decision).sort(), ["allow", "deny", "deny"]);
});

test("POL-09: a valid token upgrades ask only: a classifier that now says deny still denies", async () => {
  let decision: PolicyDecision = "ask";
  const { g, s } = setup({ classify: () => decision, approve: async () => true });
  g.addParent(2);
  const { approval_token } = await evaluate(g, s, { parent_request_id: 2, intent: INTENT });
  decision = "deny";
  assert.deepEqual(await evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token }), {
    decision: "deny",
  });
});

test("POL-12: a token without negotiated approvals is -32602", async () => {
  const { g, s } = setup({ decision: "ask", approve: async () => true }, ["policy_intents"]);
  g.addParent(2);
  const err = await wireError(evaluate(g, s, { parent_request_id: 2, intent: INTENT, approval_token: "a".repeat(64) }));
  assert.equal(err.code, ErrorCode.InvalidParams);
  assert.match(err.message, /approvals feature was not negotiated/);
  const malformed = setup({ decision: "ask", approve: async () => true });
  malformed.g.addParent(2);
  assert.equal(
    (
      await wireError(
        evaluate(malformed.g, malformed.s, { parent_request_id: 2, intent: INTENT, approval_token: "A".repeat(64) }),
      )
    ).code,
    ErrorCode.InvalidParams,
  );
});

test("POL-13: a token does not cross generations, and the generation's end invalidates its tokens", async () => {
  const approve = async () => true;
  const one = setup({ decision: "ask", approve }, undefined, 1);
  one.g.addParent(2);
  const { approval_token } = await evaluate(one.g, one.s, { parent_request_id: 2, intent: INTENT });
  const two = setup({ decision: "ask", approve }, undefined, 2);
  two.g.addParent(2);
  assert.deepEqual(
    await evaluate(two.g, two.s, { parent_request_id: 2, intent: INTENT, approval_token }),
    { decision: "deny" },
    "the replacement never saw it",
  );
  const again = await evaluate(one.g, one.s, { parent_request_id: 2, intent: INTENT });
  one.s.dispose?.();
  assert.deepEqual(
    await evaluate(one.g, one.s, { parent_request_id: 2, intent: INTENT, approval_token: again.approval_token }),
    { decision: "deny" },
  );
});

test("CANCEL-10: a parent settling while the person is asked answers -32800 and issues nothing", async () => {
  let release: (v: boolean) => void = () => undefined;
  const { g, s } = setup({ decision: "ask", approve: () => new Promise<boolean>((r) => (release = r)) });
  const parent = g.addParent(2);
  const pending = evaluate(g, s, { parent_request_id: 2, intent: INTENT });
  await new Promise((r) => setImmediate(r));
  parent.abort();
  assert.equal((await wireError(pending)).code, ErrorCode.RequestCancelled);
  release(true);
});
