/**
 * buildChildEnvironment: the allowlist with exact set equality (ENV-05), SSH_AUTH_SOCK only when
 * declared and present (ENV-04, ENV-06), every OCTET_* variable (ENV-01), a null prototype that a
 * polluted Object.prototype cannot reach (reliability M2), and a property over random parent
 * environments (reliability §5.7).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { ENV_ALLOWLIST, buildChildEnvironment, type OctetVariables } from "../../src/process/environment.js";

const octet: OctetVariables = {
  OCTET_VERSION: "0.1.0",
  OCTET_API_VERSION: "0.4",
  OCTET_EXTENSION_NAME: "hello",
  OCTET_EXTENSION_DIR: "/ext/hello",
  OCTET_WORKSPACE: "/work/space",
  OCTET_EXTENSION_SCRATCH: "/tmp/octet-scratch-hello-1-abc",
  OCTET_PROCESS_GENERATION: "1",
};
const OCTET_KEYS = Object.keys(octet);

const parent: Record<string, string | undefined> = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/u",
  USER: "u",
  LOGNAME: "u",
  LANG: "en_US.UTF-8",
  LC_ALL: "C.UTF-8",
  LC_CTYPE: "C",
  TERM: "xterm",
  TMPDIR: "/tmp",
  SHELL: "/bin/bash",
  TZ: "UTC",
  OPENAI_API_KEY: "sk-secret",
  AWS_SECRET_ACCESS_KEY: "aws-secret",
  SSH_AUTH_SOCK: "/run/ssh.sock",
  NODE_OPTIONS: "--require /evil.js",
  LD_PRELOAD: "/evil.so",
  BASH_ENV: "/evil.sh",
  OCTET_WORKSPACE: "/parent/override",
  OCTET_DEBUG: "1",
  PATHEXT: ".x",
  LC: "no underscore",
  lc_all: "lowercase",
  path: "lowercase",
  UNSET: undefined,
};

test("ENV-05: only the allowlist and LC_* pass through, exact set and values", () => {
  const env = buildChildEnvironment(parent, octet);
  const passed = ["PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "SHELL", "TZ"];
  assert.deepEqual(new Set(Object.keys(env)), new Set([...passed, ...OCTET_KEYS]));
  for (const k of passed) assert.equal(env[k], parent[k], k);
  assert.deepEqual(
    [...ENV_ALLOWLIST].sort(),
    ["HOME", "LANG", "LOGNAME", "PATH", "SHELL", "TERM", "TMPDIR", "TZ", "USER"],
    "docs/decisions.md lists this set",
  );
});

test("ENV-05: an empty parent environment gives exactly the OCTET_* variables", () => {
  assert.deepEqual(Object.keys(buildChildEnvironment({}, octet)).sort(), [...OCTET_KEYS].sort());
});

test("ENV-04: SSH_AUTH_SOCK is absent unless declared", () => {
  assert.equal(Object.hasOwn(buildChildEnvironment(parent, octet), "SSH_AUTH_SOCK"), false);
  assert.equal(Object.hasOwn(buildChildEnvironment(parent, octet, []), "SSH_AUTH_SOCK"), false);
});

test("ENV-06: SSH_AUTH_SOCK is copied only when declared and present", () => {
  assert.equal(buildChildEnvironment(parent, octet, ["SSH_AUTH_SOCK"])["SSH_AUTH_SOCK"], "/run/ssh.sock");
  const without = { ...parent };
  delete without["SSH_AUTH_SOCK"];
  assert.equal(
    Object.hasOwn(buildChildEnvironment(without, octet, ["SSH_AUTH_SOCK"]), "SSH_AUTH_SOCK"),
    false,
    "declared, absent",
  );
  const unset = { ...parent, SSH_AUTH_SOCK: undefined };
  assert.equal(
    Object.hasOwn(buildChildEnvironment(unset, octet, ["SSH_AUTH_SOCK"]), "SSH_AUTH_SOCK"),
    false,
    "declared, undefined",
  );
});

test("ENV-01: every OCTET_* variable is set, and the parent cannot override or add any", () => {
  const env = buildChildEnvironment(parent, octet, ["SSH_AUTH_SOCK"]);
  for (const [k, v] of Object.entries(octet)) assert.equal(env[k], v, k);
  assert.equal(env["OCTET_WORKSPACE"], "/work/space");
  assert.equal(Object.hasOwn(env, "OCTET_DEBUG"), false);
  assert.ok(OCTET_KEYS.includes("OCTET_EXTENSION_SCRATCH"));
});

test("the environment has a null prototype and a polluted Object.prototype does not reach it", () => {
  const proto = Object.prototype as Record<string, unknown>;
  let env: Record<string, string>;
  try {
    proto["POLLUTED"] = "x";
    proto["SSH_AUTH_SOCK"] = "/evil.sock";
    proto["LC_EVIL"] = "x";
    env = buildChildEnvironment({ PATH: "/bin" }, octet, ["SSH_AUTH_SOCK", "POLLUTED"]);
  } finally {
    delete proto["POLLUTED"];
    delete proto["SSH_AUTH_SOCK"];
    delete proto["LC_EVIL"];
  }
  assert.equal(Object.getPrototypeOf(env), null);
  assert.deepEqual(Object.keys(env).sort(), ["PATH", ...OCTET_KEYS].sort());
  assert.equal("POLLUTED" in env, false);
  assert.equal("SSH_AUTH_SOCK" in env, false, "an inherited value is not 'present' in the parent");
  assert.equal("toString" in env, false);
});

test(
  "ENV-05: for random parent environments the child keys are a subset of allowlist, LC_*, declared and " +
    "OCTET_*, with equal values",
  () => {
    const name = fc.oneof(
      fc.constantFrom(
        ...ENV_ALLOWLIST,
        "SSH_AUTH_SOCK",
        "NODE_OPTIONS",
        "LD_PRELOAD",
        "OPENAI_API_KEY",
        "OCTET_WORKSPACE",
        "OCTET_X",
        "__proto__",
        "constructor",
      ),
      fc.string({ minLength: 1, maxLength: 6 }).map((s) => `LC_${s}`),
      fc.string({ minLength: 1, maxLength: 12 }),
    );
    const value = fc.option(fc.string({ maxLength: 20 }), { nil: undefined });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(name, value), { maxLength: 30 }),
        fc.subarray(["SSH_AUTH_SOCK", "TZ", "EXTRA_DECLARED"]),
        (pairs, declared) => {
          const parentEnv = Object.create(null) as Record<string, string | undefined>;
          for (const [k, v] of pairs) parentEnv[k] = v;
          const env = buildChildEnvironment(parentEnv, octet, declared);
          assert.equal(Object.getPrototypeOf(env), null);
          const allowed = (k: string): boolean =>
            ENV_ALLOWLIST.includes(k) || k.startsWith("LC_") || declared.includes(k);
          for (const k of Object.keys(env)) {
            if (OCTET_KEYS.includes(k)) assert.equal(env[k], octet[k as keyof OctetVariables]);
            else {
              assert.ok(allowed(k), `unexpected key ${JSON.stringify(k)}`);
              assert.equal(env[k], parentEnv[k]);
            }
          }
          for (const k of Object.keys(parentEnv)) {
            if (allowed(k) && typeof parentEnv[k] === "string" && !OCTET_KEYS.includes(k))
              assert.equal(env[k], parentEnv[k], `missing ${k}`);
          }
          for (const k of OCTET_KEYS) assert.ok(Object.hasOwn(env, k));
        },
      ),
      { numRuns: 500 },
    );
  },
);
