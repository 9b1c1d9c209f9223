/**
 * API 0.2/0.4 negotiation against real processes: what the host offers, which answers it refuses
 * (and that a refused child is gone), what the accepted selection changes, the contexts of each
 * request, and the negotiated concurrency bound.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { processesMentioning } from "./helpers.js";
import { REQUIRED, json, withRuntime, type V2Spec } from "./runtime-helpers.js";

const BOUND_02 = ["request_progress", "progress_decoration", "lifecycle_events", "runtime_commands"];

test(
  "INIT-13, INIT-14, INIT-15, INIT-16, INIT-29, INIT-30: the offer lists exactly the features the host binds; " +
    "tool_prompt_metadata_v1 only on 0.4",
  async () => {
    const specs: V2Spec[] = [
      { name: "v02", api: "0.2", tools: ["echo"] },
      { name: "v04", api: "0.4", tools: ["echo4"] },
    ];
    await withRuntime(specs, {}, async ({ received }) => {
      for (const [name, api, optional] of [
        ["v02", "0.2", BOUND_02],
        ["v04", "0.4", [...BOUND_02, "tool_prompt_metadata_v1"]],
      ] as const) {
        const init = received(name, "initialize");
        assert.equal(init.length, 1);
        const params = init[0]!.params;
        assert.equal(params.api_version, api);
        assert.deepEqual(params.protocol, {
          version: api,
          required_features: REQUIRED,
          optional_features: optional,
          limits: { max_concurrent_requests: 64 },
        });
        for (const unbound of [
          "artifacts",
          "policy_intents",
          "dynamic_tools",
          "approvals",
          "secrets",
          "agent_sessions",
          "tool_composition_v1",
        ]) {
          assert.ok(
            !params.protocol.optional_features.includes(unbound),
            `${unbound} has no bound service and is not offered`,
          );
        }
        assert.equal(params.contributes.presentation, false);
        assert.equal(params.contributes.menu, false);
      }
    });
  },
);

test(
  "INIT-19, INIT-20, INIT-29, INIT-30: a response selecting a feature that was not offered rejects initialization " +
    "and kills the child",
  async () => {
    const bad: [string, "0.2" | "0.4", string[], RegExp][] = [
      ["artifacts", "0.2", [...REQUIRED, "artifacts"], /"artifacts" was not offered/],
      ["approvals", "0.2", [...REQUIRED, "approvals"], /"approvals" was not offered/],
      ["dynamic", "0.2", [...REQUIRED, "dynamic_tools"], /"dynamic_tools" was not offered/],
      ["unknown", "0.2", [...REQUIRED, "time_travel"], /"time_travel" is not a known feature/],
      ["dup", "0.2", [...REQUIRED, "request_progress", "request_progress"], /duplicate "request_progress"/],
      ["meta02", "0.2", [...REQUIRED, "tool_prompt_metadata_v1"], /"tool_prompt_metadata_v1" was not offered/],
    ];
    const specs: V2Spec[] = bad.map(([name, api, features]) => ({
      name,
      api,
      tools: [`${name}_echo`],
      config: { features },
    }));
    specs.push({ name: "fine", tools: ["echo"] });
    await withRuntime(specs, {}, async ({ host, dir }) => {
      for (const [name, , , pattern] of bad) {
        const s = host.status().find((x) => x.name === name)!;
        assert.equal(s.state, "parked", name);
        assert.match(s.lastError ?? "", pattern, name);
        assert.deepEqual(processesMentioning(`${dir}/${name}`), [], `no process of ${name} is left`);
      }
      assert.deepEqual(
        host.tools().map((t) => t.name),
        ["echo"],
      );
      assert.deepEqual(json(await host.callTool("echo", { ok: 1 })), { ok: 1 });
    });
  },
);

test(
  "INIT-18, INIT-21, INIT-23, INIT-25, INIT-26: missing required features, zero concurrency, a wrong protocol " +
    "version and bad subscriptions are rejected",
  async () => {
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ["noparts", { features: ["request_cancellation"] }, /missing required "content_parts"/],
      ["zero", { max: 0 }, /max_concurrent_requests.*below the minimum 1/],
      ["version", { protocol: { version: "0.4" } }, /protocol.version.*"0.4" does not equal api_version "0.2"/],
      [
        "badsub",
        { features: [...REQUIRED, "lifecycle_events"], lifecycle: ["turn/started", "turn/paused"] },
        /"turn\/paused" is not one of the six lifecycle events/,
      ],
      ["nosub", { lifecycle: ["turn/started"] }, /subscriptions without the lifecycle_events feature negotiated/],
    ];
    const specs: V2Spec[] = bad.map(([name, config]) => ({ name, tools: [`${name}_echo`], config }));
    await withRuntime(specs, {}, async ({ host, dir }) => {
      for (const [name, , pattern] of bad) {
        const s = host.status().find((x) => x.name === name)!;
        assert.equal(s.state, "parked", name);
        assert.match(s.lastError ?? "", pattern, name);
        assert.deepEqual(processesMentioning(`${dir}/${name}`), [], `no process of ${name} is left`);
      }
    });
  },
);

test(
  "INIT-21, INIT-22, LIFE-02: a max_concurrent_requests above the cap is clamped to 64 and status shows the " +
    "effective value",
  async () => {
    await withRuntime(
      [
        {
          name: "greedy",
          tools: ["echo"],
          config: { max: 10_000, features: [...REQUIRED, "request_progress", "progress_decoration"] },
        },
      ],
      {},
      async ({ host }) => {
        const s = host.status()[0]!;
        assert.equal(s.state, "ready");
        assert.equal(s.maxConcurrentRequests, 64);
        assert.deepEqual(s.features, [...REQUIRED, "request_progress", "progress_decoration"]);
        assert.equal(s.pendingRequests, 0);
      },
    );
  },
);

test(
  "INIT-27: with runtime_commands the initialize command list is authoritative; commands/register is answered " +
    "-32601",
  async () => {
    const spec: V2Spec = {
      name: "rc",
      tools: ["echo", "ask"],
      commands: ["declared"],
      config: { commands: ["alpha", "beta"], features: [...REQUIRED, "runtime_commands"] },
    };
    await withRuntime([spec], {}, async ({ host }) => {
      assert.deepEqual(
        host.commands().map((c) => c.name),
        ["alpha", "beta"],
      );
      assert.deepEqual(JSON.parse((await host.runCommand("beta", ["x"])).text), { name: "beta", arguments: ["x"] });
      for (const method of ["commands/register", "commands/unregister"]) {
        const answer = json(
          await host.callTool("ask", {
            method,
            params: { commands: [{ name: "gamma", description: "g", usage: "/gamma" }] },
          }),
        );
        assert.equal(answer.error.code, -32601, method);
      }
    });
    // Without the feature the list must equal contributes.commands (INIT-08).
    await withRuntime([{ ...spec, config: { commands: ["alpha"] } }], {}, async ({ host }) => {
      assert.equal(host.status()[0]!.state, "parked");
      assert.match(host.status()[0]!.lastError ?? "", /"alpha" not declared in contributes.commands/);
    });
  },
);

test(
  "INIT-30: on API 0.4 with tool_prompt_metadata_v1 a tool's " + "prompt metadata is accepted and published",
  async () => {
    await withRuntime(
      [{ name: "meta", api: "0.4", tools: ["meta"], config: { features: [...REQUIRED, "tool_prompt_metadata_v1"] } }],
      {},
      async ({ host }) => {
        const tool = host.tools().find((t) => t.name === "meta")!;
        assert.equal(tool.prompt_snippet, "Use meta for metadata.");
        assert.deepEqual(tool.prompt_guidelines, ["Be brief."]);
      },
    );
    await withRuntime([{ name: "meta", api: "0.4", tools: ["meta"] }], {}, async ({ host }) => {
      assert.equal(host.status()[0]!.state, "parked", "metadata without the feature rejects the catalog");
      assert.match(host.status()[0]!.lastError ?? "", /tool_prompt_metadata_v1/);
    });
  },
);

test(
  "CALL-03, CALL-05, CALL-06, CALL-07, CALL-10: tools, commands, hooks and context/collect carry the host-derived " +
    "owner (session_id is the host's session); status and render are process-scoped",
  async () => {
    const spec: V2Spec = {
      name: "ctx",
      tools: ["echo"],
      commands: ["run"],
      contributes: 'hooks = ["before_prompt"]\nui = ["status"]\ncontext = true\ntool_renderers = ["echo"]',
    };
    await withRuntime([spec], { session: { session_id: "s-42", model: "m" } }, async ({ host, received }) => {
      await host.callTool("echo", {});
      await host.runCommand("run", []);
      await host.runHook("before_prompt", { prompt: "p" });
      await host.collectContext({ prompt: "p" });
      await host.collectStatus("status");
      assert.deepEqual(await host.renderTool({ name: "echo", arguments: {}, output: "o", isError: false }), [
        { text: "rendered echo", style_role: null },
      ]);
      const owner = { session_id: "s-42", extension_instance_id: host.instanceId, process_generation: 1 };
      const call = received("ctx", "tool/call")[0]!.params;
      assert.deepEqual(
        Object.keys(call).sort(),
        ["arguments", "context", "name"],
        "no catalog_revision without dynamic_tools",
      );
      for (const method of ["tool/call", "command/execute", "hook/run", "context/collect"]) {
        assert.deepEqual(received("ctx", method)[0]!.params.context.resource_owner, owner, method);
      }
      for (const method of ["status/collect", "tool/render"]) {
        const context = received("ctx", method)[0]!.params.context;
        assert.ok(!("resource_owner" in context), `${method} carries no resource_owner`);
        assert.deepEqual(context, {
          workspace: host.workspace,
          execution_scope: null,
          host: { session_id: "s-42", session_name: null, model: "m", reasoning: null, active_skills: [] },
        });
      }
    });
  },
);

test(
  "FRAME-13: outstanding requests to a generation never exceed the negotiated max_concurrent_requests, however many " +
    "callers wait",
  async () => {
    for (const max of [1, 2]) {
      await withRuntime([{ name: `sem${max}`, tools: ["hold"], config: { max } }], {}, async ({ host }) => {
        let peak = 0;
        const watch = setInterval(() => (peak = Math.max(peak, host.status()[0]!.pendingRequests)), 5);
        try {
          const results = await Promise.all(Array.from({ length: 6 }, () => host.callTool("hold", { ms: 100 })));
          const maxes = results.map((r) => json(r).max as number);
          assert.equal(
            Math.max(...maxes),
            max,
            `the extension saw at most ${max} calls at once (and the callers did fill it)`,
          );
        } finally {
          clearInterval(watch);
        }
        assert.ok(peak <= max, `the host counted at most ${max} in flight (saw ${peak})`);
      });
    }
  },
);

test(
  "CALL-08: a complete host rebuild issues a new " + "extension_instance_id, even though generation numbering restarts",
  async () => {
    const spec = { name: "inst", tools: ["echo"] };
    let first: { extension_instance_id: string; process_generation: number } | undefined;
    await withRuntime([spec], { session: { session_id: "s-1" } }, async ({ host, received }) => {
      await host.callTool("echo", {});
      first = received("inst", "tool/call")[0]!.params.context.resource_owner;
      assert.equal(first?.extension_instance_id, host.instanceId);
    });
    await withRuntime([spec], { session: { session_id: "s-1" } }, async ({ host, received }) => {
      await host.callTool("echo", {});
      const second = received("inst", "tool/call")[0]!.params.context.resource_owner;
      assert.equal(second.process_generation, first?.process_generation, "numbering restarts with the rebuild");
      assert.notEqual(second.extension_instance_id, first?.extension_instance_id, "but the instance fence changes");
    });
  },
);

test(
  "INIT-47, REV-10, WAVE1-20: an unknown or unspecified feature name (editor_handoff, remote_ui) is never offered " +
    "and is refused; parent correlation needs no feature string",
  async () => {
    for (const name of ["editor_handoff", "remote_ui"])
      await withRuntime(
        [{ name: "odd", tools: ["echo"], config: { features: [...REQUIRED, name] } }],
        {},
        async ({ host }) => {
          const s = host.status()[0]!;
          assert.equal(s.state, "parked");
          assert.match(s.lastError ?? "", new RegExp(name));
        },
      );
    // Only the two required features: input/request, parented to the call, still works (base 0.2).
    await withRuntime(
      [{ name: "base", tools: ["input"], config: { features: REQUIRED } }],
      { services: { input: async () => "typed" } },
      async ({ host }) => {
        assert.deepEqual(host.status()[0]!.features, REQUIRED);
        const r = await host.callTool("input", { prompt: "Name?" });
        assert.match(r.text, /typed/);
      },
    );
  },
);
