import { test } from "node:test";
import assert from "node:assert/strict";
import { METHODS, POLICY_EVALUATE, TOOL_CALL, WireError, type RequestMessage } from "@octet/protocol";
import { ChildInbox } from "../../src/generation/child-inbox.js";
import { buildInitializeRequest } from "../../src/generation/initialize-request.js";
import { parseManifest } from "../../src/manifest/manifest.js";
import {
  defineModule,
  type ChildRequestScope,
  type HostModule,
  type ServiceGeneration,
} from "../../src/modules/module.js";
import { GenerationModules, dispatchTable } from "../../src/modules/module-set.js";
import { BARE_HOST, HOST_MODULES, bindModules, embedderSurface, policyModule } from "../../src/modules/registry.js";

function manifest(api: string) {
  const text =
    `name = "x"\nversion = "1"\napi_version = "${api}"\n` +
    `[entrypoint]\ncommand = "x"\n[contributes]\ntools = ["t"]\n`;
  const r = parseManifest(text, "/x/extension.toml");
  assert.ok(r.ok);
  return r.manifest;
}

function generation(api: string, diagnostics: string[] = []): ServiceGeneration {
  return {
    name: "x",
    api: api as ServiceGeneration["api"],
    number: 1,
    manifest: manifest(api),
    scratchDir: () => null,
    owner: () => ({ session_id: "s", extension_instance_id: "i", process_generation: 1 }),
    catalog: { tools: () => [], publish: () => 0, features: () => [] },
    ended: new AbortController().signal,
    activeRequest: () => undefined,
    diagnose: (_level, message) => void diagnostics.push(message),
    emit: () => {},
  };
}

/** A module standing in for a new service: it answers policy/evaluate, so the real policy module is left out. */
function fakeModule(seen: ChildRequestScope[]): HostModule {
  return defineModule<{ answer: string }>({
    feature: "fake",
    bind: (o) => ((o as { fake?: string }).fake !== undefined ? { answer: (o as { fake: string }).fake } : null),
    offer: () => ["policy_intents"],
    open: (_g, b) => ({
      features: [],
      requests: { "policy/evaluate": async (scope) => (seen.push(scope), { decision: b.answer }) },
    }),
    childRequests: [POLICY_EVALUATE],
    childNotifications: [],
  });
}

function inboxOf(modules: GenerationModules, api: string, features: readonly string[]): ChildInbox {
  const g = generation(api);
  return new ChildInbox({
    name: g.name,
    api: g.api,
    generation: 1,
    manifest: g.manifest,
    accepting: () => true,
    activeRequest: () => undefined,
    generationSignal: new AbortController().signal,
    emit: () => {},
    diagnose: () => {},
    features: () => features,
    modules,
  });
}

const req = (id: number, method: string, params: unknown = {}): RequestMessage => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});
const refused =
  (code: number, message: RegExp) =>
  (e: unknown): boolean =>
    e instanceof WireError && e.code === code && message.test(e.message);
/** The registry with the fake module in the policy module's place. */
const withFake = (seen: ChildRequestScope[]): HostModule[] => [
  ...HOST_MODULES.filter((m) => m !== policyModule),
  fakeModule(seen),
];

test("issue 14.2: a module in the registry list is offered in initialize and its method dispatched to it", async () => {
  const seen: ChildRequestScope[] = [];
  const bound = bindModules({ fake: "allow" } as never, BARE_HOST, withFake(seen));
  const modules = new GenerationModules(bound, generation("0.4"));
  assert.ok(modules.features.includes("policy_intents"), modules.features.join(", "));
  const { params } = buildInitializeRequest(manifest("0.4"), {
    manifestPath: "/x/extension.toml",
    source: "explicit",
    workspace: "/w",
    host: { session_id: null, session_name: null, model: null, reasoning: null, active_skills: [] },
    optional: modules.features,
  });
  assert.ok(params.protocol?.optional_features.includes("policy_intents"));
  const box = inboxOf(modules, "0.4", ["policy_intents"]);
  assert.deepEqual(await box.request(req(1, "policy/evaluate", { probe: 1 })), { decision: "allow" });
  assert.deepEqual(
    seen.map((s) => s.params),
    [{ probe: 1 }],
  );
});

test("issue 14.2: a module not bound is not offered nor dispatched; a feature not negotiated is refused", async () => {
  const seen: ChildRequestScope[] = [];
  const unbound = new GenerationModules(bindModules({}, BARE_HOST, withFake(seen)), generation("0.4"));
  assert.ok(!unbound.features.includes("policy_intents"));
  await assert.rejects(
    inboxOf(unbound, "0.4", ["policy_intents"]).request(req(1, "policy/evaluate")),
    refused(-32601, /^unsupported_feature policy\/evaluate is not offered/),
  );
  const bound = new GenerationModules(
    bindModules({ fake: "deny" } as never, BARE_HOST, withFake(seen)),
    generation("0.4"),
  );
  await assert.rejects(
    inboxOf(bound, "0.4", []).request(req(2, "policy/evaluate")),
    refused(-32601, /needs the policy_intents feature, which was not negotiated/),
  );
  assert.equal(seen.length, 0, "the module never saw a refused request");
});

test("issue 14.2: the method table's API versions gate dispatch: input/request is unsupported on API 0.1", async () => {
  const modules = new GenerationModules(bindModules({ input: async () => "typed" }, BARE_HOST), generation("0.1"));
  const ask = req(1, "input/request", { parent_request_id: 1, prompt: "?" });
  await assert.rejects(inboxOf(modules, "0.1", []).request(ask), refused(-32601, /unsupported_feature/));
});

test("issue 14.2: the registry answers every child->host method of the method table exactly once", () => {
  const table = dispatchTable(HOST_MODULES);
  // $/progress and $/cancelRequest belong to the generation's own request ledger, not to a module.
  const own = new Set(["$/progress", "$/cancelRequest"]);
  const expected = [...METHODS.values()].filter((s) => s.direction !== "host->child" && !own.has(s.method));
  for (const spec of expected) {
    const where = spec.kind === "request" ? table.requests : table.notifications;
    assert.ok(where.has(spec.method), `no host module answers ${spec.method}`);
  }
  assert.equal(table.requests.size + table.notifications.size, expected.length);
});

test("issue 14.2: modules that list a host request, reclaim a method or answer an unlisted one are refused", () => {
  const base = { feature: "bad", offer: () => [], open: () => null, childNotifications: [] };
  assert.throws(
    () => dispatchTable([defineModule({ ...base, childRequests: [TOOL_CALL] })]),
    /lists tool\/call as a child request, but it is a host->child request/,
  );
  const twice = defineModule({ ...base, feature: "twice", childRequests: [POLICY_EVALUATE] });
  assert.throws(
    () => dispatchTable([policyModule, twice]),
    /"policy_intents" and "twice" both answer policy\/evaluate/,
  );
  const answers = { features: [], requests: { "policy/evaluate": async () => ({}) } };
  const sneaky = defineModule<true>({ ...base, childRequests: [], open: () => answers });
  assert.throws(
    () => new GenerationModules(bindModules({}, BARE_HOST, [sneaky]), generation("0.4")),
    /answers policy\/evaluate without listing it/,
  );
});

test("issue 14.2: the embedder surface merges the embedder APIs of the modules; a name twice is refused", async () => {
  const view = { ready: () => [], env: () => ({ collectMs: 10, emit: () => {}, diagnoseFailure: () => {} }) };
  const surface = embedderSurface(view);
  assert.deepEqual(await surface.collectContext({ prompt: null }, {}), [], "no ready extension: nothing collected");
  assert.equal(await surface.compactionFrames({} as never, {}), null);
  const extra = defineModule({
    feature: "extra",
    offer: () => [],
    open: () => null,
    childRequests: [],
    childNotifications: [],
    embedderApi: () => ({ ping: () => "pong" }),
  });
  assert.equal((embedderSurface(view, [extra]) as unknown as { ping(): string }).ping(), "pong");
  const clash = defineModule({ ...extra, feature: "clash", embedderApi: () => ({ collectContext: () => [] }) });
  assert.throws(
    () => embedderSurface(view, [...HOST_MODULES, clash]),
    /"collection" and "clash" both export collectContext/,
  );
});
