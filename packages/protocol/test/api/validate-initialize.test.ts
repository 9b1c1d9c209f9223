import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { validateInitializeResult, type InitializeExpectation } from "../../src/api/validate-initialize.js";
import { BASE_OPTIONAL_FEATURES, KNOWN_FEATURES, LIFECYCLE_EVENTS, REQUIRED_FEATURES } from "../../src/features.js";
import { MAX_COMMANDS, MAX_TOOL_CATALOG_BYTES, MAX_TOOLS } from "../../src/bounds.js";
import type { ApiVersion } from "../../src/version.js";
import { accepted, clone, refused } from "../helpers/checked.js";
import { CONTRIBUTES, INIT_RESULT_V01, PROTOCOL_OFFER_V02, PROTOCOL_SELECTION_V02 } from "../helpers/spec-fixtures.js";

const V01: InitializeExpectation = { api: "0.1", contributes: CONTRIBUTES };

function expectV02(
  optional: readonly string[] = PROTOCOL_OFFER_V02.optional_features,
  api: ApiVersion = "0.2",
): InitializeExpectation {
  return {
    api,
    contributes: CONTRIBUTES,
    offered: {
      required: PROTOCOL_OFFER_V02.required_features,
      optional,
      maxConcurrentRequests: PROTOCOL_OFFER_V02.limits.max_concurrent_requests,
    },
  };
}

/** The spec's 0.2 response: the 0.1 catalog plus the example protocol member. */
function responseV02(protocol: Record<string, unknown> = {}, api: ApiVersion = "0.2"): Record<string, unknown> {
  return {
    ...clone(INIT_RESULT_V01),
    api_version: api,
    protocol: { ...clone(PROTOCOL_SELECTION_V02), version: api, ...protocol },
  };
}

/** A 0.2 response selecting only `features` (plus the required ones). */
function selecting(
  features: string[],
  extra: Record<string, unknown> = {},
  api: ApiVersion = "0.2",
): Record<string, unknown> {
  const r = responseV02({ features: [...REQUIRED_FEATURES, ...features], ...extra }, api);
  if (!("lifecycle_events" in extra)) delete (r["protocol"] as Record<string, unknown>)["lifecycle_events"];
  return r;
}

function commands(n: number): Array<{ name: string; description: string; usage: string }> {
  return Array.from({ length: n }, (_, i) => ({ name: `c${i}`, description: "d", usage: `/c${i}` }));
}

function tools(n: number): Array<Record<string, unknown>> {
  return Array.from({ length: n }, (_, i) => ({ name: `t${i}`, description: "d", parameters: { type: "object" } }));
}

test(
  "INIT-07: the API 0.1 response of the spec is accepted, with no features, concurrency 1 and no " + "lifecycle events",
  () => {
    const init = accepted(validateInitializeResult(INIT_RESULT_V01, V01));
    assert.deepEqual(init.result, INIT_RESULT_V01);
    assert.deepEqual(init.features, []);
    assert.equal(init.maxConcurrentRequests, 1);
    assert.deepEqual(init.lifecycleEvents, []);
  },
);

test("INIT-07: api_version, tools and commands are all required, and the result is a closed object", () => {
  for (const key of ["tools", "commands"]) {
    const r = clone(INIT_RESULT_V01) as Record<string, unknown>;
    delete r[key];
    refused(validateInitializeResult(r, V01), `${key}: missing; expected an array`);
  }
  refused(validateInitializeResult({ ...INIT_RESULT_V01, extra: 1 }, V01), "extra: unknown member");
  refused(validateInitializeResult([], V01), "expected an object, got array");
});

test("INIT-06: an api_version other than the manifest-selected one is refused, naming both", () => {
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, api_version: "0.2" }, V01),
    'api_version: "0.2" does not equal the manifest-selected "0.1"',
  );
  refused(validateInitializeResult({ ...INIT_RESULT_V01, api_version: 0.1 }, V01), "api_version: 0.1 does not equal");
  const r = clone(INIT_RESULT_V01) as Record<string, unknown>;
  delete r["api_version"];
  refused(validateInitializeResult(r, V01), 'api_version: missing; expected "0.1"');
  refused(
    validateInitializeResult(responseV02({}, "0.2"), expectV02(undefined, "0.4")),
    'api_version: "0.2" does not equal the manifest-selected "0.4"',
  );
});

test(
  "INIT-08: without dynamic_tools the tool names must equal contributes.tools; missing and extra names " + "are listed",
  () => {
    refused(
      validateInitializeResult({ ...INIT_RESULT_V01, tools: [] }, V01),
      'tools: missing "hello_world" declared in contributes.tools',
    );
    const more = [...INIT_RESULT_V01.tools, { name: "bonus", description: "d", parameters: { type: "object" } }];
    refused(
      validateInitializeResult({ ...INIT_RESULT_V01, tools: more }, V01),
      'tools: "bonus" not declared in contributes.tools',
    );
    // On 0.2, runtime_commands frees commands only.
    refused(
      validateInitializeResult({ ...selecting(["runtime_commands"]), tools: more }, expectV02()),
      'tools: "bonus" not declared in contributes.tools',
    );
  },
);

test("INIT-08: without runtime_commands the command names must equal contributes.commands", () => {
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, commands: [] }, V01),
    'commands: missing "hello" declared in contributes.commands',
  );
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, commands: commands(2) }, V01),
    'commands: "c0", "c1" not declared in contributes.commands',
  );
  const r = selecting(["dynamic_tools"]);
  r["commands"] = commands(1);
  refused(validateInitializeResult(r, expectV02()), 'commands: "c0" not declared in contributes.commands');
});

test("INIT-08: a long list of missing names is cut and counted", () => {
  const names = Array.from({ length: 20 }, (_, i) => `n${i}`);
  const problems = refused(
    validateInitializeResult(INIT_RESULT_V01, {
      ...V01,
      contributes: { tools: ["hello_world"], commands: ["hello", ...names] },
    }),
    "and 12 more",
  );
  assert.ok(
    problems.every((p) => p.length < 400),
    problems.join("\n"),
  );
});

test("INIT-09: duplicate tool names are refused, even with dynamic_tools negotiated", () => {
  const twice = [...INIT_RESULT_V01.tools, ...INIT_RESULT_V01.tools];
  refused(validateInitializeResult({ ...INIT_RESULT_V01, tools: twice }, V01), 'tools: duplicate names "hello_world"');
  refused(
    validateInitializeResult({ ...selecting(["dynamic_tools"]), tools: twice }, expectV02()),
    'tools: duplicate names "hello_world"',
  );
});

test("INIT-09: duplicate command names are refused, even with runtime_commands negotiated", () => {
  const twice = [...INIT_RESULT_V01.commands, ...INIT_RESULT_V01.commands];
  refused(validateInitializeResult({ ...INIT_RESULT_V01, commands: twice }, V01), 'commands: duplicate names "hello"');
  refused(
    validateInitializeResult({ ...selecting(["runtime_commands"]), commands: twice }, expectV02()),
    'commands: duplicate names "hello"',
  );
});

test("INIT-10: 256 commands are accepted, 257 are refused naming count and limit", () => {
  const ok = commands(MAX_COMMANDS);
  const expect = { ...V01, contributes: { tools: ["hello_world"], commands: ok.map((c) => c.name) } };
  assert.equal(
    accepted(validateInitializeResult({ ...INIT_RESULT_V01, commands: ok }, expect)).result.commands.length,
    256,
  );
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, commands: commands(MAX_COMMANDS + 1) }, expect),
    "commands: 257 definitions, over the 256-definition limit",
  );
  // The bound holds with runtime_commands too.
  refused(
    validateInitializeResult({ ...selecting(["runtime_commands"]), commands: commands(MAX_COMMANDS + 1) }, expectV02()),
    "commands: 257 definitions, over the 256-definition limit",
  );
});

test("bound MAX_TOOLS: 256 tools are accepted, 257 are refused naming count and limit", () => {
  const ok = tools(MAX_TOOLS);
  const expect = { ...V01, contributes: { tools: ok.map((t) => t.name as string), commands: ["hello"] } };
  assert.equal(accepted(validateInitializeResult({ ...INIT_RESULT_V01, tools: ok }, expect)).result.tools.length, 256);
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, tools: tools(MAX_TOOLS + 1) }, expect),
    "tools: 257 definitions, over the 256-definition limit",
  );
});

test("INIT-11: an API 0.1 response containing protocol is refused", () => {
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, protocol: PROTOCOL_SELECTION_V02 }, V01),
    "protocol: not allowed on API 0.1",
  );
  refused(validateInitializeResult({ ...INIT_RESULT_V01, protocol: {} }, V01), "protocol: not allowed on API 0.1");
  // A 0.1 protocol member negotiates nothing: the catalogs stay bound to the manifest.
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, tools: [], protocol: { features: ["dynamic_tools"] } }, V01),
    'tools: missing "hello_world"',
  );
});

test("TDEF-02: an API 0.1 tool declaring output_schema rejects initialization, naming the tool", () => {
  const tool = { ...INIT_RESULT_V01.tools[0], output_schema: { type: "object" } };
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, tools: [tool] }, V01),
    "tools[0].output_schema: not allowed on API 0.1",
  );
});

test("TDEF-01: an invalid definition rejects initialization with its index in the path", () => {
  const bad = { ...INIT_RESULT_V01.commands[0], name: "bad name!" };
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, commands: [bad] }, V01),
    'commands[0].name: "bad name!" does not match ^[A-Za-z0-9_-]{1,128}$',
  );
  const noDesc = { ...INIT_RESULT_V01.tools[0], description: "" };
  refused(
    validateInitializeResult({ ...INIT_RESULT_V01, tools: [noDesc] }, V01),
    "tools[0].description: must not be empty",
  );
});

test("INIT-17: the API 0.2 response of the spec is accepted with its features, concurrency and subscriptions", () => {
  const init = accepted(validateInitializeResult(responseV02(), expectV02()));
  assert.deepEqual(init.features, PROTOCOL_SELECTION_V02.features);
  assert.equal(init.maxConcurrentRequests, 4);
  assert.deepEqual(init.lifecycleEvents, [...LIFECYCLE_EVENTS]);
  assert.deepEqual(init.result.protocol, PROTOCOL_SELECTION_V02);
  assert.deepEqual(init.result.tools, INIT_RESULT_V01.tools);
});

test("INIT-17: an API 0.2/0.4 response without protocol is refused; protocol is closed", () => {
  for (const api of ["0.2", "0.4"] as const) {
    const r = responseV02({}, api);
    delete r["protocol"];
    refused(validateInitializeResult(r, expectV02(undefined, api)), "protocol: missing; expected an object");
  }
  refused(validateInitializeResult(responseV02({ extras: true }), expectV02()), "protocol.extras: unknown member");
  refused(
    validateInitializeResult(responseV02({ features: undefined }), expectV02()),
    "protocol.features: missing; expected an array",
  );
  refused(
    validateInitializeResult(responseV02({ limits: undefined }), expectV02()),
    "protocol.limits: missing; expected an object",
  );
});

test("INIT-17: unknown members of protocol.limits are ignored", () => {
  const init = accepted(
    validateInitializeResult(
      responseV02({ limits: { max_concurrent_requests: 2, resource_refs_v1: { max_records: 256 } } }),
      expectV02(),
    ),
  );
  assert.equal(init.maxConcurrentRequests, 2);
});

test("INIT-18: a selection lacking request_cancellation or content_parts is refused", () => {
  for (const required of REQUIRED_FEATURES) {
    const features = PROTOCOL_SELECTION_V02.features.filter((f) => f !== required);
    refused(
      validateInitializeResult(responseV02({ features }), expectV02()),
      `protocol.features: missing required "${required}"`,
    );
  }
});

test("INIT-19: an unoffered or unknown feature name is refused", () => {
  const offer = BASE_OPTIONAL_FEATURES.filter((f) => f !== "artifacts");
  refused(
    validateInitializeResult(responseV02(), expectV02(offer)),
    'protocol.features[3]: "artifacts" was not offered',
  );
  refused(
    validateInitializeResult(selecting(["telepathy"]), expectV02()),
    'protocol.features[2]: "telepathy" is not a known feature',
  );
  refused(
    validateInitializeResult(selecting([7 as unknown as string]), expectV02()),
    "protocol.features[2]: expected a string, got number",
  );
});

test("INIT-19: a duplicate feature name is refused", () => {
  refused(
    validateInitializeResult(selecting(["artifacts", "artifacts"]), expectV02()),
    'protocol.features: duplicate "artifacts"',
  );
  refused(
    validateInitializeResult(selecting(["content_parts"]), expectV02()),
    'protocol.features: duplicate "content_parts"',
  );
});

test("INIT-20: a conditional feature returned without having been offered is refused; offered, it is accepted", () => {
  for (const feature of ["approvals", "secrets", "agent_sessions", "provider_credentials"]) {
    refused(
      validateInitializeResult(selecting([feature, "policy_intents"]), expectV02()),
      `"${feature}" was not offered`,
    );
  }
  const offer = [...BASE_OPTIONAL_FEATURES, "approvals", "secrets"];
  const init = accepted(
    validateInitializeResult(selecting(["secrets", "policy_intents", "approvals"]), expectV02(offer)),
  );
  assert.deepEqual(init.features, [...REQUIRED_FEATURES, "secrets", "policy_intents", "approvals"]);
});

test("INIT-21: max_concurrent_requests must be an integer greater than zero", () => {
  for (const [bad, says] of [
    [0, "0 is below the minimum 1"],
    [-3, "-3 is below the minimum 1"],
    [1.5, "expected an integer, got 1.5"],
    ["4", 'expected an integer, got "4"'],
    [null, "expected an integer, got null"],
  ] as const) {
    refused(
      validateInitializeResult(responseV02({ limits: { max_concurrent_requests: bad } }), expectV02()),
      `protocol.limits.max_concurrent_requests: ${says}`,
    );
  }
  refused(
    validateInitializeResult(responseV02({ limits: {} }), expectV02()),
    "protocol.limits.max_concurrent_requests: missing; expected an integer",
  );
  assert.equal(
    accepted(validateInitializeResult(responseV02({ limits: { max_concurrent_requests: 1 } }), expectV02()))
      .maxConcurrentRequests,
    1,
  );
});

test(
  "INIT-22: a request above the offered cap is clamped to it, and the requested value is kept in " + "result.protocol",
  () => {
    const init = accepted(
      validateInitializeResult(responseV02({ limits: { max_concurrent_requests: 1000 } }), expectV02()),
    );
    assert.equal(init.maxConcurrentRequests, 64);
    assert.equal(init.result.protocol?.limits.max_concurrent_requests, 1000);
    assert.equal(
      accepted(validateInitializeResult(responseV02({ limits: { max_concurrent_requests: 64 } }), expectV02()))
        .maxConcurrentRequests,
      64,
    );
  },
);

test("INIT-23: protocol.version must equal the manifest api_version, on 0.2 and 0.4", () => {
  refused(
    validateInitializeResult(responseV02({ version: "0.2" }, "0.4"), expectV02(undefined, "0.4")),
    'protocol.version: "0.2" does not equal api_version "0.4"',
  );
  refused(
    validateInitializeResult(responseV02({ version: undefined }), expectV02()),
    'protocol.version: missing; expected "0.2"',
  );
  accepted(validateInitializeResult(responseV02({}, "0.4"), expectV02(undefined, "0.4")));
});

test("INIT-24: with lifecycle_events negotiated, an omitted, null or empty subscription means all six", () => {
  for (const lifecycle of [undefined, null, []]) {
    const r = selecting(["lifecycle_events"], lifecycle === undefined ? {} : { lifecycle_events: lifecycle });
    assert.deepEqual(accepted(validateInitializeResult(r, expectV02())).lifecycleEvents, [...LIFECYCLE_EVENTS]);
  }
});

test("INIT-25: a non-empty subscription must be an exact subset of the six names", () => {
  const some = ["tool/started", "tool/settled"];
  assert.deepEqual(
    accepted(validateInitializeResult(selecting(["lifecycle_events"], { lifecycle_events: some }), expectV02()))
      .lifecycleEvents,
    some,
  );
  refused(
    validateInitializeResult(
      selecting(["lifecycle_events"], { lifecycle_events: ["tool/started", "tool/progress"] }),
      expectV02(),
    ),
    'protocol.lifecycle_events[1]: "tool/progress" is not one of the six lifecycle events',
  );
  refused(
    validateInitializeResult(
      selecting(["lifecycle_events"], { lifecycle_events: ["turn/started", "turn/started"] }),
      expectV02(),
    ),
    'protocol.lifecycle_events: duplicate "turn/started"',
  );
  refused(
    validateInitializeResult(selecting(["lifecycle_events"], { lifecycle_events: "all" }), expectV02()),
    "protocol.lifecycle_events: expected an array, got string",
  );
});

test("INIT-26: a non-empty subscription without the lifecycle_events feature is refused; an empty one is fine", () => {
  refused(
    validateInitializeResult(selecting([], { lifecycle_events: ["turn/started"] }), expectV02()),
    "protocol.lifecycle_events: 1 subscriptions without the lifecycle_events feature negotiated",
  );
  assert.deepEqual(
    accepted(validateInitializeResult(selecting([], { lifecycle_events: [] }), expectV02())).lifecycleEvents,
    [],
  );
  assert.deepEqual(accepted(validateInitializeResult(selecting([]), expectV02())).lifecycleEvents, []);
});

test("INIT-27: with runtime_commands the command list need not equal contributes.commands", () => {
  const r = { ...selecting(["runtime_commands"]), commands: commands(3) };
  assert.deepEqual(
    accepted(validateInitializeResult(r, expectV02())).result.commands.map((c) => c.name),
    ["c0", "c1", "c2"],
  );
  // Tools stay bound to the manifest.
  refused(validateInitializeResult({ ...r, tools: [] }, expectV02()), 'tools: missing "hello_world"');
});

test("INIT-28: with dynamic_tools the tool list need not equal contributes.tools", () => {
  const r = { ...selecting(["dynamic_tools"]), tools: tools(2) };
  assert.deepEqual(
    accepted(validateInitializeResult(r, expectV02())).result.tools.map((t) => t.name),
    ["t0", "t1"],
  );
  assert.deepEqual(accepted(validateInitializeResult({ ...r, tools: [] }, expectV02())).result.tools, []);
  refused(validateInitializeResult({ ...r, commands: [] }, expectV02()), 'commands: missing "hello"');
  // A refusal for another reason does not also report the catalog difference dynamic_tools allows.
  const problems = refused(
    validateInitializeResult(
      {
        ...r,
        protocol: { ...(selecting(["dynamic_tools"])["protocol"] as object), limits: { max_concurrent_requests: 0 } },
      },
      expectV02(),
    ),
    "max_concurrent_requests",
  );
  assert.equal(
    problems.some((p) => p.startsWith("tools:")),
    false,
    problems.join("\n"),
  );
});

const DEPENDENCIES = [
  ["INIT-34", "session_compaction_v1", "session_control_v1"],
  ["INIT-37", "agent_model_selection_v1", "agent_sessions"],
  ["INIT-38", "agent_session_events_v1", "agent_sessions"],
  ["INIT-38", "agent_session_lifetime_v1", "agent_sessions"],
  ["INIT-39", "approvals", "policy_intents"],
  ["INIT-42", "autocomplete_edit_v1", "autocomplete"],
] as const;
for (const [id, feature, requires] of DEPENDENCIES) {
  test(`${id}: selecting ${feature} without ${requires} rejects initialization; with it, it is accepted`, () => {
    const offer = [...KNOWN_FEATURES];
    refused(
      validateInitializeResult(selecting([feature], {}, "0.4"), expectV02(offer, "0.4")),
      `protocol.features: "${feature}" requires "${requires}"`,
    );
    accepted(validateInitializeResult(selecting([feature, requires], {}, "0.4"), expectV02(offer, "0.4")));
  });
}

const PM = "tool_prompt_metadata_v1";
const OFFER_04 = [...BASE_OPTIONAL_FEATURES, PM];
const WITH_METADATA = { ...INIT_RESULT_V01.tools[0], prompt_snippet: "Greets.", prompt_guidelines: ["Be brief."] };

test(
  "TDEF-09: API 0.4 initialize accepts prompt metadata when the same response selects " + "tool_prompt_metadata_v1",
  () => {
    const init = accepted(
      validateInitializeResult({ ...selecting([PM], {}, "0.4"), tools: [WITH_METADATA] }, expectV02(OFFER_04, "0.4")),
    );
    assert.equal(init.result.tools[0]?.prompt_snippet, "Greets.");
    assert.deepEqual(init.result.tools[0]?.prompt_guidelines, ["Be brief."]);
    assert.ok(init.features.includes(PM));
  },
);

test(
  "TDEF-14: prompt metadata without tool_prompt_metadata_v1 selected rejects initialization, even when it " +
    "was offered",
  () => {
    refused(
      validateInitializeResult({ ...selecting([], {}, "0.4"), tools: [WITH_METADATA] }, expectV02(OFFER_04, "0.4")),
      "tools[0].prompt_snippet: not allowed without tool_prompt_metadata_v1 negotiated",
    );
    // Selected but not offered: the feature is refused, and it admits no metadata either.
    const problems = refused(
      validateInitializeResult({ ...selecting([PM], {}, "0.4"), tools: [WITH_METADATA] }, expectV02(undefined, "0.4")),
      '"tool_prompt_metadata_v1" was not offered',
    );
    assert.ok(
      problems.some((p) => p.startsWith("tools[0].prompt_snippet: not allowed without")),
      problems.join("\n"),
    );
    // A selection with other problems still lets the offered feature decide, so only those are reported.
    const other = refused(
      validateInitializeResult(
        { ...selecting([PM], { limits: { max_concurrent_requests: 0 } }, "0.4"), tools: [WITH_METADATA] },
        expectV02(OFFER_04, "0.4"),
      ),
      "max_concurrent_requests",
    );
    assert.equal(
      other.some((p) => p.startsWith("tools")),
      false,
      other.join("\n"),
    );
  },
);

test("TDEF-14: API 0.2 tools cannot declare prompt metadata, whatever is selected", () => {
  refused(
    validateInitializeResult({ ...selecting([PM], {}, "0.2"), tools: [WITH_METADATA] }, expectV02(OFFER_04, "0.2")),
    "tools[0].prompt_snippet: not allowed on API 0.2",
  );
});

/** 70 tools named t0..t69 (each within the description bound) whose compact JSON encoding is exactly `size` bytes. */
function catalogOf(size: number, extra: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  const make = (n: number): Array<Record<string, unknown>> =>
    Array.from({ length: 70 }, (_, i) => ({
      name: `t${i}`,
      description: "d".repeat(n),
      parameters: { type: "object" },
      ...extra,
    }));
  // Spread the difference over every description, then settle the remainder on the last one.
  const base = 15_000 + Math.floor((size - JSON.stringify(make(15_000)).length) / 70);
  const list = make(base);
  const last = list[list.length - 1]!;
  last["description"] = "d".repeat(base + size - JSON.stringify(list).length);
  assert.equal(JSON.stringify(list).length, size);
  return list;
}

function expectCatalog(
  list: Array<Record<string, unknown>>,
  api: ApiVersion = "0.1",
  optional: readonly string[] = [],
): InitializeExpectation {
  const contributes = { tools: list.map((t) => t["name"] as string), commands: ["hello"] };
  return api === "0.1" ? { ...V01, contributes } : { ...expectV02(optional, api), contributes };
}

test(
  "TDEF-13: an encoded tool catalog of exactly 1 MiB is accepted, one byte more is refused naming size " + "and limit",
  () => {
    const ok = catalogOf(MAX_TOOL_CATALOG_BYTES);
    assert.equal(
      accepted(validateInitializeResult({ ...INIT_RESULT_V01, tools: ok }, expectCatalog(ok))).result.tools.length,
      70,
    );
    const over = catalogOf(MAX_TOOL_CATALOG_BYTES + 1);
    refused(
      validateInitializeResult({ ...INIT_RESULT_V01, tools: over }, expectCatalog(over)),
      "tools: tool catalog of at least",
      "bytes encoded, over the 1048576-byte limit",
    );
    // The bound holds when dynamic_tools frees the catalog from the manifest too.
    refused(
      validateInitializeResult({ ...selecting(["dynamic_tools"]), tools: over }, expectV02()),
      "tools: tool catalog of at least",
      "over the 1048576-byte limit",
    );
  },
);

test("TDEF-12: prompt metadata counts against the encoded catalog bound", () => {
  const guidelines = { prompt_guidelines: ["g".repeat(1_000)] };
  const ok = catalogOf(MAX_TOOL_CATALOG_BYTES, guidelines);
  const response = (tools: unknown[]): Record<string, unknown> => ({ ...selecting([PM], {}, "0.4"), tools });
  accepted(validateInitializeResult(response(ok), expectCatalog(ok, "0.4", OFFER_04)));
  const over = clone(ok);
  over[0]!["prompt_guidelines"] = ["g".repeat(1_001)];
  refused(
    validateInitializeResult(response(over), expectCatalog(over, "0.4", OFFER_04)),
    "tools: tool catalog of at least",
    "over the 1048576-byte limit",
  );
});

test("validateInitializeResult never throws, whatever the input", () => {
  fc.assert(
    fc.property(fc.anything(), fc.anything(), (v, w) => {
      validateInitializeResult(v, expectV02());
      validateInitializeResult({ ...INIT_RESULT_V01, tools: v, commands: w }, V01);
      validateInitializeResult(responseV02({ features: v, limits: w, lifecycle_events: v }), expectV02());
      return true;
    }),
    { numRuns: 300 },
  );
});
