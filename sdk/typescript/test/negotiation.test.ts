/**
 * API 0.2/0.4 feature negotiation: the pure rules of negotiate() (every offer, the concurrency
 * limit) and, through a real child process, the initialize results the SDK sends for lifecycle
 * subscriptions and tool prompt metadata, each checked with the host's own validator.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import {
  KNOWN_FEATURES,
  REQUIRED_FEATURES,
  validateInitializeResult,
  type ApiVersion,
  type ToolDefinition,
} from "@octet/protocol";
import { negotiate } from "../src/negotiation.js";
import { WireHost, killAll, offer, resultOf } from "./harness.js";

afterEach(killAll);

const TOOLS = ["progress", "late", "cancellable", "ask", "count"];
const COMMANDS = ["ask", "push_status"];
const SUPPORTED = [
  "request_progress",
  "progress_decoration",
  "artifacts",
  "lifecycle_events",
  "tool_prompt_metadata_v1",
  "policy_intents",
  "approvals",
  "secrets",
  "session_entries",
  "message_injection",
  "active_tools",
  "session_control_v1",
  "session_compaction_v1",
  "terminal_handoff",
  "composer",
];

interface Protocol {
  version: string;
  features: string[];
  limits: { max_concurrent_requests: number };
  lifecycle_events?: string[];
}

/** Initializes `host` with the offer, checks the host's validator accepts it, returns it. */
async function init(
  host: WireHost,
  api: ApiVersion,
  optional: readonly string[],
  tools = TOOLS,
): Promise<{ protocol: Protocol; tools: ToolDefinition[] }> {
  const result = resultOf(await host.initialize(api, { protocol: offer(api, optional) })) as {
    protocol: Protocol;
    tools: ToolDefinition[];
  };
  const checked = validateInitializeResult(result, {
    api,
    contributes: { tools, commands: COMMANDS },
    offered: { required: REQUIRED_FEATURES, optional, maxConcurrentRequests: 64 },
  });
  assert.ok(checked.ok, checked.ok ? "" : checked.problems.join("; "));
  return result;
}

const tool = (name: string, extra: Partial<ToolDefinition> = {}): ToolDefinition => ({
  name,
  description: name,
  parameters: { type: "object" },
  ...extra,
});

test("INIT-19/INIT-20: negotiate() never selects a feature that was not offered, whatever the offer", () => {
  // Every subset drawn by a fixed pseudo-random walk over the known names plus unknown ones.
  const names = [...KNOWN_FEATURES, "not_a_feature", "Request_Progress"];
  let seed = 7;
  const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let round = 0; round < 300; round++) {
    const offered = names.filter(() => next() % 3 === 0);
    for (const api of ["0.2", "0.4"] as const) {
      const n = negotiate(offer(api, offered), {
        api,
        maxConcurrent: 4,
        lifecycleEvents: ["turn/settled"],
        tools: [tool("a", { prompt_snippet: "s" })],
      });
      const features = n.protocol["features"] as string[];
      for (const f of features)
        assert.ok(
          REQUIRED_FEATURES.includes(f as never) || offered.includes(f),
          `${f} was not offered: ${offered.join(",")}`,
        );
      assert.deepEqual(features.slice(0, 2), [...REQUIRED_FEATURES]);
      assert.equal(new Set(features).size, features.length, "no duplicates");
      const expected = SUPPORTED.filter(
        (f) =>
          offered.includes(f) &&
          !(f === "tool_prompt_metadata_v1" && api === "0.2") &&
          !(f === "progress_decoration" && !offered.includes("request_progress")) &&
          !(f === "approvals" && !offered.includes("policy_intents")) &&
          !(f.startsWith("session_co") && api === "0.2") &&
          !(f === "session_compaction_v1" && !offered.includes("session_control_v1")),
      );
      assert.deepEqual(features.slice(2), expected, `offer ${offered.join(",")} on ${api}`);
    }
  }
});

test("INIT-21/INIT-22: max_concurrent_requests is min(own limit, host offer), an integer of at least 1", () => {
  const limit = (own: number, cap: unknown): number => {
    const protocol = { ...offer("0.2", []), limits: { max_concurrent_requests: cap } };
    return negotiate(protocol, { api: "0.2", maxConcurrent: own, lifecycleEvents: [], tools: [] }).maxConcurrent;
  };
  assert.equal(limit(8, 3), 3);
  assert.equal(limit(4, 64), 4);
  assert.equal(limit(16, 2.7), 2, "a fractional cap is rounded down");
  assert.equal(limit(16, 1), 1);
  // A cap that is no limit at all is ignored rather than turned into 0 (the response needs >= 1).
  for (const bad of [0, -3, Number.NaN, "8", null, undefined]) assert.equal(limit(5, bad), 5, `cap ${String(bad)}`);
  assert.equal(
    negotiate(undefined, { api: "0.2", maxConcurrent: 6, lifecycleEvents: [], tools: [] }).maxConcurrent,
    6,
    "no protocol offer at all",
  );
});

test("INIT-17/INIT-19: the SDK selects the offered features it supports and nothing else", async () => {
  const host = new WireHost("negotiated", ["0.2", "lifecycle"]);
  const optional = [
    "request_progress",
    "artifacts",
    "lifecycle_events",
    "policy_intents",
    "dynamic_tools",
    "runtime_commands",
    "progress_decoration",
    "approvals",
  ];
  const { protocol } = await init(host, "0.2", optional);
  assert.deepEqual(protocol.features, [
    "request_cancellation",
    "content_parts",
    "request_progress",
    "progress_decoration",
    "artifacts",
    "lifecycle_events",
    "policy_intents",
    "approvals",
  ]);
  assert.equal(protocol.version, "0.2");
});

test(
  "INIT-19: with no optional feature offered only the required ones are returned, and unusable handlers " +
    "are reported",
  async () => {
    const host = new WireHost("negotiated", ["0.2", "lifecycle"]);
    const { protocol } = await init(host, "0.2", []);
    assert.deepEqual(protocol.features, [...REQUIRED_FEATURES]);
    assert.equal(Object.hasOwn(protocol, "lifecycle_events"), false, "INIT-26: no subscription without the feature");
    await host.waitForStderr(
      "did not offer lifecycle_events; the handlers for session/settled, turn/started, turn/settled, " +
        "tool/started will not run",
    );
  },
);

test("INIT-24/INIT-25: lifecycle_events lists exactly the events with a handler, in protocol order", async () => {
  const host = new WireHost("negotiated", ["0.2", "lifecycle"]);
  const { protocol } = await init(host, "0.2", ["request_progress", "lifecycle_events"]);
  assert.ok(protocol.features.includes("lifecycle_events"));
  assert.deepEqual(protocol.lifecycle_events, ["session/settled", "turn/started", "turn/settled", "tool/started"]);
});

test("INIT-19: without a lifecycle handler lifecycle_events is not selected even when offered", async () => {
  const host = new WireHost("negotiated", ["0.2"]);
  const { protocol } = await init(host, "0.2", ["lifecycle_events", "request_progress"]);
  assert.deepEqual(protocol.features, ["request_cancellation", "content_parts", "request_progress"]);
  assert.equal(Object.hasOwn(protocol, "lifecycle_events"), false);
});

test("INIT-22: the limit the extension asked for is clamped to the host's offer on API 0.4 too", async () => {
  const host = new WireHost("negotiated", ["0.4", "max=8"]);
  const result = resultOf(await host.initialize("0.4", { protocol: offer("0.4", [], 5) })) as { protocol: Protocol };
  assert.deepEqual(result.protocol.limits, { max_concurrent_requests: 5 });
  assert.equal(result.protocol.version, "0.4");
});

test(
  "TDEF-09/TDEF-10: on API 0.4 with tool_prompt_metadata_v1 offered, tools carry their " + "prompt metadata",
  async () => {
    const host = new WireHost("negotiated", ["0.4", "prompt"]);
    const { protocol, tools } = await init(
      host,
      "0.4",
      ["request_progress", "tool_prompt_metadata_v1"],
      [...TOOLS, "documented"],
    );
    assert.deepEqual(protocol.features, [
      "request_cancellation",
      "content_parts",
      "request_progress",
      "tool_prompt_metadata_v1",
    ]);
    const documented = tools.find((t) => t.name === "documented");
    assert.equal(documented?.prompt_snippet, "Use documented for docs.");
    assert.deepEqual(documented?.prompt_guidelines, ["Call it once.", "Tabs\tand\nlines are fine."]);
    // TDEF-10: a 17th guideline is refused at registration, with the limit in the message.
    assert.match(host.stderr, /seventeen guidelines refused: tool "overlong" is invalid: .*16/);
    assert.equal(
      tools.some((t) => t.name === "overlong"),
      false,
    );
  },
);

test(
  "TDEF-14: on API 0.4 without tool_prompt_metadata_v1 offered, the metadata is left out and the feature " +
    "not selected",
  async () => {
    const host = new WireHost("negotiated", ["0.4", "prompt"]);
    const { protocol, tools } = await init(host, "0.4", ["request_progress"], [...TOOLS, "documented"]);
    assert.equal(protocol.features.includes("tool_prompt_metadata_v1"), false);
    const documented = tools.find((t) => t.name === "documented");
    assert.deepEqual(Object.keys(documented ?? {}).sort(), ["description", "name", "parameters"]);
    await host.waitForStderr("did not offer tool_prompt_metadata_v1; the prompt metadata of documented is not sent");
  },
);

test("TDEF-09: tool_prompt_metadata_v1 is not selected when no tool declares prompt metadata", async () => {
  const host = new WireHost("negotiated", ["0.4"]);
  const { protocol } = await init(host, "0.4", ["tool_prompt_metadata_v1"]);
  assert.deepEqual(protocol.features, [...REQUIRED_FEATURES]);
});

test("TDEF-14: promptSnippet/promptGuidelines are refused at registration on API 0.1 and 0.2", async () => {
  for (const api of ["0.1", "0.2"] as const) {
    const host = new WireHost("negotiated", [api, "prompt"]);
    await host.waitForStderr("prompt metadata refused");
    assert.match(
      host.stderr,
      new RegExp(
        `prompt metadata refused: tool "documented": promptSnippet and promptGuidelines need API 0\\.4 ` +
          `\\(this extension speaks API ${api.replace(".", "\\.")}\\)`,
      ),
    );
    const result = resultOf(
      await host.initialize(api, api === "0.1" ? {} : { protocol: offer(api, ["tool_prompt_metadata_v1"]) }),
    ) as { tools: ToolDefinition[]; protocol?: Protocol };
    assert.equal(
      result.tools.some((t) => t.name === "documented"),
      false,
    );
    assert.equal(result.protocol?.features.includes("tool_prompt_metadata_v1") ?? false, false);
  }
});
