import { test } from "node:test";
import assert from "node:assert/strict";
import type { ManifestSource } from "@octet/protocol";
import { resolveStartDecision } from "../../src/manifest/trust.js";
import type { TrustPolicy } from "../../src/manifest/trust.js";

function policy(
  p: { enabled?: string[]; trusted?: string[]; safeMode?: boolean; fullAccess?: boolean } = {},
): TrustPolicy {
  return {
    enabled: new Set(p.enabled ?? []),
    trusted: new Set(p.trusted ?? []),
    safeMode: p.safeMode ?? false,
    fullAccess: p.fullAccess ?? false,
  };
}

const SOURCES: ManifestSource[] = ["explicit", "project", "global"];

test("MAN-18: a discovered extension that is not enabled never starts, whatever its trust", () => {
  for (const source of SOURCES) {
    for (const p of [
      policy(),
      policy({ trusted: ["hello"], fullAccess: true }),
      policy({ enabled: ["other"], fullAccess: true }),
    ]) {
      const d = resolveStartDecision({ name: "hello", source }, p);
      assert.equal(d.enabled, false);
      assert.equal(d.start, false);
      assert.match(d.reason, /not enabled: pass --enable-extension hello/);
    }
  }
});

test("MAN-18: the not-enabled reason also names a missing trust grant", () => {
  const d = resolveStartDecision({ name: "hello", source: "project" }, policy());
  assert.equal(
    d.reason,
    'extension "hello" is not enabled: pass --enable-extension hello (it also needs --trust-extension hello)',
  );
  const e = resolveStartDecision({ name: "hello", source: "explicit" }, policy());
  assert.equal(e.reason, 'extension "hello" is not enabled: pass --enable-extension hello');
});

test("MAN-18: enabling is by exact name", () => {
  const d = resolveStartDecision({ name: "hello-tools", source: "explicit" }, policy({ enabled: ["hello"] }));
  assert.equal(d.start, false);
  assert.equal(
    resolveStartDecision({ name: "hello-tools", source: "explicit" }, policy({ enabled: ["hello-tools"] })).start,
    true,
  );
});

test("MAN-19: full-access policy supplies trust to an enabled global extension", () => {
  const d = resolveStartDecision({ name: "g", source: "global" }, policy({ enabled: ["g"], fullAccess: true }));
  assert.deepEqual(d, {
    enabled: true,
    trusted: true,
    start: true,
    reason: 'extension "g" is enabled and trusted by the full-access policy (not persisted)',
  });
  // Without full access and without a grant, a global extension does not start.
  const n = resolveStartDecision({ name: "g", source: "global" }, policy({ enabled: ["g"] }));
  assert.deepEqual(n, {
    enabled: true,
    trusted: false,
    start: false,
    reason: 'global extension "g" is not trusted: pass --trust-extension g or use the full-access policy',
  });
});

test("MAN-19: the policy lends trust without changing the grant set", () => {
  const p = policy({ enabled: ["g"], fullAccess: true });
  resolveStartDecision({ name: "g", source: "global" }, p);
  assert.equal(p.trusted.size, 0);
});

test("MAN-20: --safe-mode removes the full-access trust; an ungranted global extension stays stopped", () => {
  const d = resolveStartDecision(
    { name: "g", source: "global" },
    policy({ enabled: ["g"], fullAccess: true, safeMode: true }),
  );
  assert.deepEqual(d, {
    enabled: true,
    trusted: false,
    start: false,
    reason: 'global extension "g" is not trusted in safe mode: pass --trust-extension g',
  });
});

test("MAN-20: in safe mode an explicit --trust-extension grant still starts", () => {
  for (const source of SOURCES) {
    const d = resolveStartDecision(
      { name: "x", source },
      policy({ enabled: ["x"], trusted: ["x"], safeMode: true, fullAccess: true }),
    );
    assert.equal(d.start, true, source);
    assert.equal(d.reason, 'extension "x" is enabled and trusted by --trust-extension x');
  }
});

test("MAN-20: in safe mode an --extension-dir extension still starts (a source-bound grant)", () => {
  for (const fullAccess of [false, true]) {
    const d = resolveStartDecision(
      { name: "hello-tools", source: "explicit" },
      policy({ enabled: ["hello-tools"], safeMode: true, fullAccess }),
    );
    assert.deepEqual(d, {
      enabled: true,
      trusted: true,
      start: true,
      reason: 'extension "hello-tools" is enabled and trusted because it was loaded with --extension-dir',
    });
  }
});

test("MAN-22: a project extension needs an explicit grant, even under full access", () => {
  for (const p of [
    policy({ enabled: ["p"] }),
    policy({ enabled: ["p"], fullAccess: true }),
    policy({ enabled: ["p"], safeMode: true }),
  ]) {
    const d = resolveStartDecision({ name: "p", source: "project" }, p);
    assert.deepEqual(d, {
      enabled: true,
      trusted: false,
      start: false,
      reason: 'project extension "p" is not trusted: pass --trust-extension p',
    });
  }
  const granted = resolveStartDecision({ name: "p", source: "project" }, policy({ enabled: ["p"], trusted: ["p"] }));
  assert.equal(granted.start, true);
  assert.equal(granted.trusted, true);
});

test("MAN-22: a grant for another name does not trust a project extension", () => {
  const d = resolveStartDecision(
    { name: "p", source: "project" },
    policy({ enabled: ["p"], trusted: ["q"], fullAccess: true }),
  );
  assert.equal(d.start, false);
});
