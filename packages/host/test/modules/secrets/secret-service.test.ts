import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, bounds } from "@octet/protocol";
import {
  providerCredentialsService,
  secretService,
  type SecretBroker,
  type SecretRequest,
} from "../../../src/modules/secrets/secret-service.js";
import { call, fakeGeneration, wireError, type FakeGeneration } from "../fake-generation.js";
import type { GenerationService } from "../../../src/modules/module.js";

const SECRET = "tok-7f3a9c-very-secret";

function setup(
  broker: SecretBroker,
  o: { secrets?: string[]; features?: string[] } = {},
): { g: FakeGeneration; s: GenerationService } {
  const g = fakeGeneration({ secrets: o.secrets ?? ["browser.api_token", "other"] });
  const s = secretService(broker)(g);
  assert.ok(s);
  s.negotiated?.(o.features ?? ["secrets"]);
  g.addParent(2);
  return { g, s };
}
const get = (g: FakeGeneration, s: GenerationService, params: unknown): Promise<any> =>
  call(g, s, "secret/get", params);

test(
  "SEC-01, INIT-29: secrets is offered only with a broker and a non-empty allowlist; unnegotiated it " + "is -32601",
  async () => {
    assert.equal(secretService(() => SECRET)(fakeGeneration({ secrets: [] })), null);
    assert.deepEqual(secretService(() => SECRET)(fakeGeneration({ secrets: ["a"] }))?.features, ["secrets"]);
    const { g, s } = setup(() => SECRET, { features: [] });
    const err = await wireError(get(g, s, { parent_request_id: 2, name: "browser.api_token" }));
    assert.equal(err.code, ErrorCode.MethodNotFound);
    assert.match(err.message, /^unsupported_feature /);
  },
);

test(
  "SEC-02, SEC-05: the broker gets the host-derived identity, owner, parent and exact name; the answer " + "is {value}",
  async () => {
    const seen: SecretRequest[] = [];
    const { g, s } = setup((r) => (seen.push(r), SECRET));
    assert.deepEqual(
      await get(g, s, {
        parent_request_id: 2,
        name: "browser.api_token",
        extension: "forged",
        owner: { session_id: "forged" },
      }),
      { value: SECRET },
    );
    assert.equal(seen.length, 1);
    const r = seen[0]!;
    assert.equal(r.extension, "ext");
    assert.deepEqual(r.owner, { session_id: "s-1", extension_instance_id: "i-1", process_generation: 1 });
    assert.equal(r.parentRequestId, 2);
    assert.equal(r.name, "browser.api_token");
    assert.ok(r.signal instanceof AbortSignal);
    // An empty value is a value (W 2.10: "may be empty").
    const empty = setup(() => "");
    assert.deepEqual(await get(empty.g, empty.s, { parent_request_id: 2, name: "other" }), { value: "" });
  },
);

test("SEC-03: an undeclared or invalid name is -32602 and never reaches the broker; matching is exact", async () => {
  let calls = 0;
  const { g, s } = setup(() => (calls++, SECRET));
  for (const name of ["browser.API_TOKEN", "browser", "browser.api_token.x", "undeclared"]) {
    const err = await wireError(get(g, s, { parent_request_id: 2, name }));
    assert.equal(err.code, ErrorCode.InvalidParams, name);
    assert.match(err.message, /not declared in the manifest's \[capabilities\]\.secrets/);
  }
  for (const name of ["9bad", "a b", "x".repeat(bounds.MAX_SECRET_NAME_BYTES + 1)]) {
    assert.equal((await wireError(get(g, s, { parent_request_id: 2, name }))).code, ErrorCode.InvalidParams, name);
  }
  assert.equal(calls, 0);
});

test("SEC-04: a missing or settled parent is -32002 and never reaches the broker", async () => {
  let calls = 0;
  const { g, s } = setup(() => (calls++, SECRET));
  assert.equal((await wireError(get(g, s, { name: "other" }))).code, ErrorCode.Unavailable);
  assert.equal((await wireError(get(g, s, { parent_request_id: 77, name: "other" }))).code, ErrorCode.Unavailable);
  assert.equal(calls, 0);
});

test(
  "SEC-06: no value, a throw, a wrong type, invalid UTF-8 or an oversized value are one " + "identical -32004",
  async () => {
    const brokers: SecretBroker[] = [
      () => null,
      () => undefined,
      () => {
        throw new Error(`vault at 10.0.0.7 said 403 for ${SECRET}`);
      },
      async () => Promise.reject(new Error("timeout")),
      () => 42 as unknown as string,
      () => new Uint8Array([0xff, 0xfe]),
      () => "x".repeat(bounds.MAX_SECRET_VALUE_BYTES + 1),
    ];
    const answers = new Set<string>();
    for (const broker of brokers) {
      const { g, s } = setup(broker);
      const err = await wireError(get(g, s, { parent_request_id: 2, name: "browser.api_token" }));
      assert.equal(err.code, ErrorCode.SecretUnavailable);
      answers.add(JSON.stringify(err.toJSON()));
      for (const d of g.diagnostics)
        assert.doesNotMatch(d, /10\.0\.0\.7|403|timeout|tok-/, "provider details stay out of diagnostics too");
    }
    assert.deepEqual(
      [...answers],
      [JSON.stringify({ code: -32004, message: "secret_unavailable secret is unavailable" })],
    );
    // At the bound exactly it is delivered.
    const atLimit = setup(() => "x".repeat(bounds.MAX_SECRET_VALUE_BYTES));
    assert.equal(
      (await get(atLimit.g, atLimit.s, { parent_request_id: 2, name: "other" })).value.length,
      bounds.MAX_SECRET_VALUE_BYTES,
    );
  },
);

test(
  "SEC-07: a byte buffer from the broker is zero-filled after use, and the value is in no " + "diagnostic or event",
  async () => {
    const buffer = new TextEncoder().encode(SECRET);
    const { g, s } = setup(() => buffer);
    assert.deepEqual(await get(g, s, { parent_request_id: 2, name: "browser.api_token" }), { value: SECRET });
    assert.ok(
      buffer.every((b) => b === 0),
      "the broker's buffer was wiped",
    );
    const bad = new Uint8Array([0x61, 0xff]);
    const failed = setup(() => bad);
    await wireError(get(failed.g, failed.s, { parent_request_id: 2, name: "other" }));
    assert.ok(
      bad.every((b) => b === 0),
      "wiped on failure as well",
    );
    const everything = JSON.stringify([g.diagnostics, g.events, failed.g.diagnostics, failed.g.events]);
    assert.equal(everything.includes(SECRET), false);
  },
);

test("CANCEL-10: a parent settling while the broker works answers -32800 and drops the value", async () => {
  let release: (v: string) => void = () => undefined;
  const g = fakeGeneration({ secrets: ["a"] });
  const s = secretService(() => new Promise<string>((r) => (release = r)))(g)!;
  s.negotiated?.(["secrets"]);
  const parent = g.addParent(2);
  const pending = get(g, s, { parent_request_id: 2, name: "a" });
  await new Promise((r) => setImmediate(r));
  parent.abort();
  assert.equal((await wireError(pending)).code, ErrorCode.RequestCancelled);
  release(SECRET);
});

test(
  "SEC-08, SEC-09, MAN-16: provider/credentials: only with the manifest's declaration, only the one " +
    "named identity",
  async () => {
    const resolve = async () => "sk-live-123";
    const options = { provider: "acme", model: "m-1", resolve };
    assert.equal(
      providerCredentialsService(options)(fakeGeneration({ providerCredentials: false })),
      null,
      "no declaration, no feature",
    );
    const g = fakeGeneration({ providerCredentials: true });
    const s = providerCredentialsService(options)(g)!;
    assert.deepEqual(s.features, ["provider_credentials"]);
    g.addParent(2);
    const unnegotiated = await wireError(
      call(g, s, "provider/credentials", { parent_request_id: 2, provider: "acme", model: "m-1" }),
    );
    assert.equal(unnegotiated.code, ErrorCode.MethodNotFound);
    s.negotiated?.(["provider_credentials"]);
    assert.deepEqual(
      await call(g, s, "provider/credentials", { parent_request_id: 2, provider: "acme", model: "m-1" }),
      {
        credential: "sk-live-123",
      },
    );
    for (const other of [
      { provider: "acme", model: "m-2" },
      { provider: "other", model: "m-1" },
      { provider: "ACME", model: "m-1" },
    ]) {
      const err = await wireError(call(g, s, "provider/credentials", { parent_request_id: 2, ...other }));
      assert.equal(err.code, ErrorCode.InvalidParams);
      assert.match(err.message, /refused/);
    }
    const none = providerCredentialsService({ ...options, resolve: async () => null })(g)!;
    none.negotiated?.(["provider_credentials"]);
    assert.equal(
      (await wireError(call(g, none, "provider/credentials", { parent_request_id: 2, provider: "acme", model: "m-1" })))
        .code,
      ErrorCode.SecretUnavailable,
    );
    assert.equal(JSON.stringify([g.diagnostics, g.events]).includes("sk-live"), false);
  },
);
