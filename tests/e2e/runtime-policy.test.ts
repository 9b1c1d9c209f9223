/**
 * policy/evaluate and secret/get through real processes: the real TypeScript SDK (ext.policy,
 * ext.secrets) in tests/fixtures/policy-ext.mjs, the wire-level fixture for what the SDK refuses
 * to send, and the guarded example.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ExtensionHost, type ExtensionHostOptions, type HostEvent, type PolicyApproveRequest } from "@octet/host";
import { EXAMPLES, ROOT, groupMembers, processesMentioning } from "./helpers.js";
import { withRuntime, REQUIRED } from "./runtime-helpers.js";

const FIXTURE = join(ROOT, "tests", "fixtures", "policy-ext.mjs");
const SECRET = "sEcReT-e2e-4b1d9f0c";
const INTENT = {
  operation: "browser.submit_form",
  target: { origin: "https://example.com", label: "Publish comment" },
  dataClasses: ["user_text"],
};
const WIRE_INTENT = {
  kind: "external_side_effect",
  operation: "browser.submit_form",
  target: { origin: "https://example.com", label: "Publish comment" },
  data_classes: ["user_text"],
  adapter_hints: { read_only: false, destructive: false },
};

interface SdkRun {
  host: ExtensionHost;
  events: HostEvent[];
  call(tool: string, args?: Record<string, unknown>): Promise<any>;
}

async function withSdkExtension(
  secrets: string[],
  services: ExtensionHostOptions["services"],
  body: (r: SdkRun) => Promise<void>,
  env?: Record<string, string>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "octet-pol-"));
  await mkdir(join(dir, "guard"));
  await writeFile(
    join(dir, "guard", "extension.toml"),
    `name = "guard"
version = "0.0.1"
api_version = "0.2"

[entrypoint]
command = ${JSON.stringify(process.execPath)}
args = [${JSON.stringify(FIXTURE)}, ${JSON.stringify(SECRET)}]

[capabilities]
filesystem = "none"
process = false
network = false
secrets = ${JSON.stringify(secrets)}

[contributes]
tools = ["authorize", "evaluate", "secret", "env"]
`,
  );
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: ["guard"],
    onEvent: (e) => events.push(e),
    ...(services ? { services } : {}),
    ...(env ? { env } : {}),
  });
  try {
    assert.equal(host.status()[0]?.state, "ready", JSON.stringify(host.status()[0]?.lastError));
    await body({ host, events, call: async (tool, args = {}) => JSON.parse((await host.callTool(tool, args)).text) });
  } finally {
    await host.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
  assert.deepEqual(processesMentioning(dir), []);
}

test(
  "POL-07, POL-09, POL-03: through the SDK an approved ask yields a token, and authorize() spends it on the one " +
    "retry to get allow",
  async () => {
    const asked: PolicyApproveRequest[] = [];
    await withSdkExtension(
      [],
      { policy: { classify: () => "ask", approve: async (r) => (asked.push(r), true) } },
      async (r) => {
        const features = (await r.call("env")).features as string[];
        assert.ok(features.includes("policy_intents") && features.includes("approvals"), features.join(","));
        assert.deepEqual(await r.call("evaluate", { intent: INTENT }), { decision: "ask", approvalToken: 64 });
        assert.deepEqual(await r.call("authorize", { intent: INTENT }), { allowed: true });
        assert.equal(asked.length, 2);
        assert.deepEqual(asked[0]!.intent, WIRE_INTENT);
        assert.equal(asked[0]!.extension, "guard");
      },
    );
  },
);

test(
  "POL-04, POL-05: through the SDK a declined ask and a deny are not allowed; a destructive hint turns allow into " +
    "ask",
  async () => {
    await withSdkExtension(
      [],
      {
        policy: {
          classify: (r) => (r.intent.operation === "fs.delete" ? "deny" : "allow"),
          approve: async () => false,
        },
      },
      async (r) => {
        assert.deepEqual(await r.call("evaluate", { intent: INTENT }), { decision: "allow" });
        assert.deepEqual(await r.call("authorize", { intent: { ...INTENT, operation: "fs.delete" } }), {
          allowed: false,
        });
        assert.deepEqual(
          await r.call("evaluate", { intent: { ...INTENT, hints: { destructive: true } } }),
          { decision: "deny" },
          "raised to ask, which the person declined",
        );
        assert.deepEqual(
          await r.call("evaluate", { intent: { ...INTENT, operation: "fs.delete", hints: { readOnly: true } } }),
          { decision: "deny" },
          "read_only does not lower deny",
        );
      },
    );
  },
);

test(
  "INIT-29, POL-01: without a bound policy service the feature " + "is not offered and the SDK refuses locally",
  async () => {
    await withSdkExtension([], undefined, async (r) => {
      const features = (await r.call("env")).features as string[];
      assert.equal(features.includes("policy_intents"), false);
      const result = await r.host.callTool("authorize", { intent: INTENT });
      assert.equal(result.is_error, true);
      assert.match(result.text, /needs the policy_intents feature, which the host did not offer/);
    });
  },
);

test(
  "POL-01, POL-12: over the wire, policy/evaluate unnegotiated is " + "-32601 and a token without approvals is -32602",
  async () => {
    const services = { policy: { classify: () => "ask" as const, approve: async () => true } };
    await withRuntime([{ name: "wire", config: { features: [...REQUIRED] } }], { services }, async (rt) => {
      const r = JSON.parse(
        (
          await rt.host.callTool("ask", {
            method: "policy/evaluate",
            params: { parent_request_id: "self", intent: WIRE_INTENT },
          })
        ).text,
      );
      assert.equal(r.error?.code, -32601);
      assert.match(r.error.message, /^unsupported_feature /);
    });
    await withRuntime(
      [{ name: "wire", config: { features: [...REQUIRED, "policy_intents"] } }],
      { services },
      async (rt) => {
        const plain = JSON.parse(
          (
            await rt.host.callTool("ask", {
              method: "policy/evaluate",
              params: { parent_request_id: "self", intent: WIRE_INTENT },
            })
          ).text,
        );
        assert.deepEqual(plain, { result: { decision: "ask" } }, "no approvals negotiated: a plain ask, no token");
        const r = JSON.parse(
          (
            await rt.host.callTool("ask", {
              method: "policy/evaluate",
              params: { parent_request_id: "self", intent: WIRE_INTENT, approval_token: "a".repeat(64) },
            })
          ).text,
        );
        assert.equal(r.error?.code, -32602);
      },
    );
  },
);

test(
  "SEC-02, SEC-05, SEC-06, SEC-07: through the SDK a declared secret arrives exactly; a missing one is -32004; the " +
    "value is in no event, diagnostic, stderr or status",
  async () => {
    const seen: unknown[] = [];
    const broker = (r: { name: string; owner: unknown; parentRequestId: number }) => (
      seen.push(r), r.name === "api.token" ? SECRET : null
    );
    await withSdkExtension(["api.token", "missing.one"], { secrets: broker }, async (r) => {
      const got = await r.call("secret", { name: "api.token" });
      assert.equal(got.length, SECRET.length);
      const { createHash } = await import("node:crypto");
      assert.equal(got.sha256, createHash("sha256").update(SECRET).digest("hex"));
      const missing = await r.call("secret", { name: "missing.one" });
      assert.deepEqual(missing.error, { code: -32004, message: "secret_unavailable secret is unavailable" });
      const undeclared = await r.call("secret", { name: "not.declared" });
      assert.equal(undeclared.error.code, -32602, "SEC-03");
      const owner = r.host.status()[0];
      assert.ok(owner);
      assert.equal((seen[0] as { owner: { process_generation: number } }).owner.process_generation, owner.generation);
      assert.equal(seen.length, 2, "the undeclared name never reached the broker");
      const everything = JSON.stringify([r.events, r.host.status(), r.host.status().map((s) => s.name)]);
      assert.equal(everything.includes(SECRET), false, "SEC-07: not in events (diagnostics, stderr lines) or status");
    });
  },
);

test(
  "ENV-07, SEC-01: declared secret names are a broker allowlist, never launch environment; without a broker secrets " +
    "is not offered",
  async () => {
    const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", API_TOKEN: SECRET, "api.token": SECRET };
    await withSdkExtension(
      ["api.token"],
      undefined,
      async (r) => {
        const seen = await r.call("env");
        assert.equal(seen.probeFound, false);
        assert.equal(
          seen.names.some((n: string) => /token/i.test(n)),
          false,
          seen.names.join(","),
        );
        assert.equal((seen.features as string[]).includes("secrets"), false);
        const refused = await r.call("secret", { name: "api.token" });
        assert.match(refused.error.message, /needs the secrets feature, which the host did not offer/);
      },
      env,
    );
  },
);

test(
  "POL-09, SEC-02: the guarded example asks policy, spends the approval, reads its secret and shows only a " +
    "fingerprint",
  async () => {
    const events: HostEvent[] = [];
    const approvals: string[] = [];
    const host = await ExtensionHost.start({
      workspace: EXAMPLES,
      extensionDirs: [EXAMPLES],
      enable: ["guarded"],
      onEvent: (e) => events.push(e),
      services: {
        policy: {
          classify: (r) => (r.intent.operation === "guarded.preview" ? "allow" : "ask"),
          approve: async (r) => (approvals.push(r.intent.operation), true),
        },
        secrets: ({ name }) => (name === "guarded.api_token" ? new TextEncoder().encode(SECRET) : null),
      },
    });
    // This host's group, not every guarded process: cli-policy runs the example meanwhile.
    const pgid = host.status().find((s) => s.name === "guarded")?.pgid ?? null;
    try {
      const { createHash } = await import("node:crypto");
      const fp = createHash("sha256").update(SECRET).digest("hex").slice(0, 12);
      const published = await host.callTool("publish", { text: "hello" });
      assert.equal(published.is_error, false, published.text);
      assert.equal(published.text, `published "hello" with token sha256:${fp}`);
      assert.deepEqual(approvals, ["guarded.publish"]);
      const preview = await host.callTool("publish", { text: "hi", preview: true });
      assert.equal(preview.text, `previewed "hi" with token sha256:${fp}`);
      assert.deepEqual(approvals, ["guarded.publish"], "an allowed operation is not put to the person");
      assert.equal(JSON.stringify([events, host.status()]).includes(SECRET), false);
    } finally {
      await host.shutdown();
    }
    assert.equal(typeof pgid, "number", "guarded ran in a process group");
    assert.deepEqual(groupMembers(pgid as number), [], "its group is empty after shutdown");
  },
);
