import { test } from "node:test";
import assert from "node:assert/strict";
import { bounds } from "@octet/protocol";
import { ApprovalTokens, type ApprovalBinding } from "../../../src/modules/policy/approval-tokens.js";

const OWNER = { session_id: "s", extension_instance_id: "i", process_generation: 1 };
const BINDING: ApprovalBinding = { intent: '["external_side_effect","a.b"]', parentId: 7, owner: OWNER };

function clock(start = 1_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => (t += ms) };
}

test("POL-07: tokens are 64 lowercase hex characters, distinct each time", () => {
  const tokens = new ApprovalTokens();
  const seen = new Set<string>();
  for (let i = 0; i < 50; i++) {
    const t = tokens.issue(BINDING, new AbortController().signal);
    assert.match(t, /^[0-9a-f]{64}$/);
    seen.add(t);
  }
  assert.equal(seen.size, 50);
});

test("POL-09, POL-11: a token matches once; a second use is refused", () => {
  const tokens = new ApprovalTokens();
  const t = tokens.issue(BINDING, new AbortController().signal);
  assert.equal(tokens.consume(t, { ...BINDING, owner: { ...OWNER } }), true);
  assert.equal(tokens.consume(t, BINDING), false, "reuse");
  assert.equal(tokens.size, 0);
});

test("POL-11: a mismatched intent, parent or owner/generation is refused and consumes the token", () => {
  const tokens = new ApprovalTokens();
  const mismatches: ApprovalBinding[] = [
    { ...BINDING, intent: '["external_side_effect","a.c"]' },
    { ...BINDING, parentId: 8 },
    { ...BINDING, owner: { ...OWNER, process_generation: 2 } },
    { ...BINDING, owner: { ...OWNER, session_id: "other" } },
    { ...BINDING, owner: { ...OWNER, extension_instance_id: "other" } },
  ];
  for (const wrong of mismatches) {
    const t = tokens.issue(BINDING, new AbortController().signal);
    assert.equal(tokens.consume(t, wrong), false);
    assert.equal(tokens.consume(t, BINDING), false, "a recognized mismatched token is consumed as well");
  }
});

test("POL-10: a token expires five minutes after issuance at the latest (fake clock)", () => {
  const c = clock();
  const tokens = new ApprovalTokens({ now: c.now });
  const fresh = tokens.issue(BINDING, new AbortController().signal);
  const old = tokens.issue(BINDING, new AbortController().signal);
  c.advance(bounds.APPROVAL_TOKEN_TTL_MS - 1);
  assert.equal(tokens.consume(fresh, BINDING), true, "one millisecond before expiry it is valid");
  c.advance(1);
  assert.equal(tokens.consume(old, BINDING), false, "at five minutes it has expired");
  // A longer configured lifetime is capped at five minutes.
  const capped = new ApprovalTokens({ now: c.now, ttlMs: 60 * 60_000 });
  const t = capped.issue(BINDING, new AbortController().signal);
  c.advance(bounds.APPROVAL_TOKEN_TTL_MS);
  assert.equal(capped.consume(t, BINDING), false);
  // A shorter one is honoured.
  const short = new ApprovalTokens({ now: c.now, ttlMs: 10 });
  const s = short.issue(BINDING, new AbortController().signal);
  c.advance(10);
  assert.equal(short.consume(s, BINDING), false);
  assert.throws(() => new ApprovalTokens({ ttlMs: 0 }), /positive number/);
});

test("POL-13: close() invalidates every token and nothing is issued after it", () => {
  const tokens = new ApprovalTokens();
  const a = tokens.issue(BINDING, new AbortController().signal);
  tokens.close();
  assert.equal(tokens.consume(a, BINDING), false);
  assert.throws(() => tokens.issue(BINDING, new AbortController().signal), /ended generation/);
});

test("POL-09: a token dies with its parent request (settled parents can never match)", () => {
  const tokens = new ApprovalTokens();
  const parent = new AbortController();
  const t = tokens.issue(BINDING, parent.signal);
  parent.abort();
  assert.equal(tokens.size, 0);
  assert.equal(tokens.consume(t, BINDING), false);
});

test("POL-07: at most MAX_PENDING_APPROVALS unconsumed tokens are held; the oldest goes first", () => {
  const tokens = new ApprovalTokens();
  const first = tokens.issue(BINDING, new AbortController().signal);
  for (let i = 1; i < bounds.MAX_PENDING_APPROVALS; i++) tokens.issue(BINDING, new AbortController().signal);
  assert.equal(tokens.size, bounds.MAX_PENDING_APPROVALS);
  const last = tokens.issue(BINDING, new AbortController().signal);
  assert.equal(tokens.size, bounds.MAX_PENDING_APPROVALS);
  assert.equal(tokens.consume(first, BINDING), false, "the oldest was dropped");
  assert.equal(tokens.consume(last, BINDING), true);
});
