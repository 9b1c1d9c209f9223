/**
 * The embedding API against real processes: what initialize carries, which requests are routed
 * to whom, hooks and their dispositions, confirmations, reload and shutdown.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost, type HostEvent } from "@octet/host";
import { EXAMPLES, groupMembers, makeExtensions, processesMentioning, waitUntil, type FakeSpec } from "./helpers.js";

async function withHost(
  specs: FakeSpec[],
  options: Partial<Parameters<typeof ExtensionHost.start>[0]>,
  body: (host: ExtensionHost, events: HostEvent[], dir: string) => Promise<void>,
): Promise<void> {
  const { dir, cleanup } = await makeExtensions(specs);
  const events: HostEvent[] = [];
  // Restarts held (scheduled, never fired) unless a test brings its own supervision.
  const held = { now: () => Date.now(), random: () => 0.5, setTimer: () => () => undefined };
  const host = await ExtensionHost.start({
    workspace: dir,
    extensionDirs: [dir],
    enable: specs.map((s) => s.name),
    onEvent: (e) => events.push(e),
    supervision: { clock: held },
    ...options,
  });
  try {
    await body(host, events, dir);
  } finally {
    await host.shutdown();
    await cleanup();
  }
}

async function show(host: ExtensionHost, tool: string, what: "init" | "methods"): Promise<unknown> {
  return JSON.parse((await host.callTool(tool, { __show: what })).text);
}

test(
  "INIT-01, INIT-02, INIT-03, INIT-04, INIT-05, INIT-11, INIT-12, MAN-06: the API 0.1 initialize request has the " +
    "frozen shape",
  async () => {
    await withHost(
      [{ name: "rec", behaviour: "good" }],
      { session: { session_id: "s-1", model: "local-model" } },
      async (host, _e, dir) => {
        const init = (await show(host, "echo", "init")) as Record<string, unknown>;
        assert.deepEqual(Object.keys(init).sort(), [
          "api_version",
          "capabilities",
          "contributes",
          "extension",
          "host",
          "octet_version",
          "workspace",
        ]);
        assert.equal(init["api_version"], "0.1");
        assert.equal(init["octet_version"], "0.1.0");
        assert.equal(init["workspace"], dir);
        assert.deepEqual(init["extension"], {
          name: "rec",
          version: "0.0.1",
          manifest_path: `${dir}/rec/extension.toml`,
          source: "explicit",
        });
        assert.deepEqual(init["capabilities"], { filesystem: "none", process: false, network: false });
        assert.deepEqual(init["contributes"], {
          tools: ["echo", "slow"],
          commands: [],
          hooks: [],
          ui: [],
          context: false,
          tool_renderers: [],
          notifications: false,
          confirmations: false,
        });
        assert.deepEqual(init["host"], {
          session_id: "s-1",
          session_name: null,
          model: "local-model",
          reasoning: null,
          active_skills: [],
        });
        assert.equal(
          ((await show(host, "echo", "methods")) as string[])[0],
          "initialize",
          "initialize is the first request",
        );
      },
    );
  },
);

test(
  "INIT-13, INIT-14, INIT-21: an API 0.2 initialize carries the protocol offer and the negotiated features are " +
    "reported",
  async () => {
    await withHost([{ name: "neg", behaviour: "good", api: "0.2" }], {}, async (host) => {
      const init = (await show(host, "echo", "init")) as {
        protocol: Record<string, unknown>;
        contributes: Record<string, unknown>;
      };
      assert.equal(init.protocol["version"], "0.2");
      assert.deepEqual(init.protocol["required_features"], ["request_cancellation", "content_parts"]);
      assert.deepEqual(init.protocol["limits"], { max_concurrent_requests: 64 });
      assert.equal(init.contributes["presentation"], false);
      const status = host.status().find((s) => s.name === "neg")!;
      assert.deepEqual(status.features, ["request_cancellation", "content_parts"]);
    });
  },
);

test("INIT-48: an extension that never answers initialize is killed at the deadline and parked", async () => {
  await withHost(
    [{ name: "mute", behaviour: "hang-init" }],
    { timeouts: { initializeMs: 300 } },
    async (host, _e, dir) => {
      const s = host.status()[0]!;
      assert.equal(s.state, "parked");
      assert.match(s.lastError ?? "", /no initialize response within 300 ms/);
      assert.deepEqual(processesMentioning(`${dir}/mute`), []);
    },
  );
});

test("INIT-49, MAN-18: calls reach only tools of started extensions' accepted catalogs", async () => {
  const { dir, cleanup } = await makeExtensions([
    { name: "on", behaviour: "good" },
    { name: "off", behaviour: "good", tools: ["off_echo"] },
  ]);
  const host = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["on"] });
  try {
    assert.deepEqual(
      host
        .tools()
        .map((t) => t.name)
        .sort(),
      ["echo", "slow"],
    );
    await assert.rejects(host.callTool("off_echo", {}), /belongs to extension "off", which is not_enabled/);
    assert.deepEqual(processesMentioning(`${dir}/off`), [], "a discovered but not enabled extension never starts");
  } finally {
    await host.shutdown();
    await cleanup();
  }
});

test("REV-01: a notification sent before the initialize response is dropped with a diagnostic", async () => {
  await withHost(
    [{ name: "early", behaviour: "early-notify", extraToml: "notifications = true" }],
    {},
    async (host, events) => {
      assert.equal(host.status()[0]!.state, "ready");
      assert.ok(!events.some((e) => e.type === "notification"));
      assert.ok(
        events.some(
          (e) =>
            e.type === "diagnostic" && /ignored notification sent while the extension was not ready/.test(e.message),
        ),
      );
    },
  );
});

test(
  "CONF-01, CONF-04, REV-11: confirmations go to the embedder's service; without one, or undeclared, they are " +
    "denied",
  async () => {
    const asked: string[] = [];
    await withHost(
      [{ name: "ask", behaviour: "confirm", extraToml: "confirmations = true" }],
      { services: { confirm: async (r) => (asked.push(r.prompt), true) } },
      async (host) => {
        assert.deepEqual(JSON.parse((await host.callTool("echo", {})).text), { confirmed: true });
        assert.deepEqual(asked, ["Proceed?"]);
      },
    );
    await withHost([{ name: "ask", behaviour: "confirm", extraToml: "confirmations = true" }], {}, async (host) => {
      assert.deepEqual(JSON.parse((await host.callTool("echo", {})).text), { confirmed: false }, "no frontend: denied");
    });
    await withHost(
      [{ name: "ask", behaviour: "confirm" }],
      { services: { confirm: async () => true } },
      async (host, events) => {
        assert.deepEqual(
          JSON.parse((await host.callTool("echo", {})).text),
          { confirmed: false },
          "undeclared: denied",
        );
        assert.ok(
          events.some((e) => e.type === "diagnostic" && /does not declare contributes.confirmations/.test(e.message)),
        );
      },
    );
  },
);

test("HOOK-01, CTX-03: hooks and context/collect go only to extensions that declared them", async () => {
  await withHost(
    [
      { name: "plain", behaviour: "good" },
      {
        name: "hooky",
        behaviour: "good",
        tools: ["h_echo", "h_slow"],
        extraToml: 'hooks = ["before_prompt"]\ncontext = true',
      },
    ],
    {},
    async (host) => {
      const outcome = await host.runHook("before_prompt", { prompt: "hi" });
      assert.equal(outcome.denied, null);
      assert.deepEqual(await host.collectContext({ prompt: "hi" }), [
        { label: "fake", content: "fake context", placement: "prompt_suffix", extension: "hooky" },
      ]);
      await host.runHook("after_response", { response: "done" });
      const plain = (await show(host, "echo", "methods")) as string[];
      const hooky = (await show(host, "h_echo", "methods")) as string[];
      assert.ok(!plain.includes("hook/run") && !plain.includes("context/collect"), `plain got ${plain.join(",")}`);
      assert.deepEqual(
        hooky.filter((m) => m !== "tool/call"),
        ["initialize", "hook/run", "context/collect"],
        "after_response was not declared, so not sent",
      );
    },
  );
});

test("HOOK-06: deny blocks before_prompt and before_tool_call but not after_tool_call", async () => {
  await withHost(
    [
      {
        name: "deny",
        behaviour: "deny-hooks",
        extraToml: 'hooks = ["before_prompt", "before_tool_call", "after_tool_call"]',
      },
    ],
    {},
    async (host) => {
      assert.deepEqual((await host.runHook("before_prompt", { prompt: "x" })).denied, {
        extension: "deny",
        reason: "fake denies before_prompt",
      });
      assert.deepEqual((await host.runHook("before_tool_call", { name: "echo", arguments: {} })).denied, {
        extension: "deny",
        reason: "fake denies before_tool_call",
      });
      assert.equal(
        (await host.runHook("after_tool_call", { name: "echo", arguments: {}, output: "", is_error: false })).denied,
        null,
      );
    },
  );
});

test(
  "HOOK-03, HOOK-05, CTX-01, STAT-02, REND-01, REND-02: the hello-world example's hooks, context, status and " +
    "renderer",
  async () => {
    const host = await ExtensionHost.start({ workspace: EXAMPLES, extensionDirs: [EXAMPLES], enable: ["hello-world"] });
    try {
      const before = await host.runHook("before_prompt", { prompt: "hello there" });
      assert.equal(before.denied, null);
      assert.deepEqual(before.context, [
        {
          label: "hello-world",
          content: "The user may want a friendly greeting.",
          placement: "system_suffix",
          extension: "hello-world",
        },
      ]);
      assert.deepEqual((await host.runHook("before_prompt", { prompt: "please #deny-hello" })).denied, {
        extension: "hello-world",
        reason: "the prompt asked hello-world to deny it",
      });
      assert.deepEqual(await host.collectContext({ prompt: null }), [
        {
          label: "hello-world",
          content: "The hello-world extension is active.",
          placement: "system_suffix",
          extension: "hello-world",
        },
      ]);
      await host.callTool("hello_world", { name: "a" });
      assert.deepEqual(await host.collectStatus("status"), [
        {
          surface: "status",
          text: "hello · 1 greeted",
          style_role: "extension.hello_world.status",
          priority: 0,
          extension: "hello-world",
        },
      ]);
      assert.deepEqual(await host.collectStatus("footer"), [], "footer was not declared in contributes.ui");
      const segments = await host.renderTool({
        name: "hello_world",
        arguments: { name: "a" },
        output: "Hello, a!",
        isError: false,
      });
      assert.deepEqual(segments, [
        { text: "hello · ok", style_role: "extension.hello_world.ok" },
        { text: "\n", style_role: null },
        { text: "Hello, a!", style_role: "extension.hello_world.detail" },
      ]);
      assert.equal(
        await host.renderTool({ name: "other_tool", arguments: {}, output: "x", isError: false }),
        null,
        "no renderer declared for other_tool",
      );
    } finally {
      await host.shutdown();
    }
  },
);

test(
  "LIFE-03, SUP-22: an API 0.1 generation stays resident across " + "calls; reload swaps in a new generation first",
  async () => {
    await withHost([{ name: "res", behaviour: "good" }], {}, async (host, events) => {
      const first = host.status()[0]!;
      await host.callTool("echo", { n: 1 });
      await host.callTool("echo", { n: 2 });
      assert.equal(host.status()[0]!.pid, first.pid, "same process for every call");
      const reloaded = await host.reload("res");
      assert.equal(reloaded.generation, first.generation + 1);
      assert.notEqual(reloaded.pid, first.pid);
      assert.deepEqual(groupMembers(first.pgid!), [], "the old generation's processes are gone");
      const readyNew = events.findIndex(
        (e) => e.type === "state" && e.generation === reloaded.generation && e.state === "ready",
      );
      const stoppedOld = events.findIndex(
        (e) => e.type === "state" && e.generation === first.generation && e.state === "stopped",
      );
      assert.ok(
        readyNew !== -1 && stoppedOld > readyNew,
        "the replacement was ready before the old generation stopped",
      );
      assert.equal((await host.callTool("echo", { n: 3 })).text, '{"n":3}');
    });
  },
);

test("SUP-18: a reload whose candidate fails leaves the running generation active", async () => {
  const { dir, cleanup } = await makeExtensions([{ name: "flaky", behaviour: "good" }]);
  const host = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["flaky"] });
  try {
    const before = host.status()[0]!;
    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${dir}/fake-ext-fail-start`, "");
    await assert.rejects(host.reload("flaky"), /reload of "flaky" failed; generation 1 stays active/);
    const after = host.status()[0]!;
    assert.equal(after.state, "ready");
    assert.equal(after.pid, before.pid);
    assert.equal((await host.callTool("echo", { ok: 1 })).text, '{"ok":1}');
  } finally {
    await host.shutdown();
    await cleanup();
  }
});

test(
  "SHUT-01, SHUT-02, SHUT-09, SHUT-10: shutdown is a request that is acknowledged before stdin closes; 0.1 has no " +
    "draining",
  async () => {
    await withHost([{ name: "polite", behaviour: "good" }], {}, async (host, events) => {
      const pid = host.status()[0]!.pgid!;
      await host.shutdown();
      const states = events
        .filter((e) => e.type === "state" && e.extension === "polite")
        .map((e) => (e.type === "state" ? e.state : ""));
      assert.deepEqual(states, ["initializing", "ready", "stopped"]);
      assert.ok(
        !events.some((e) => e.type === "diagnostic" && /no shutdown acknowledgement/.test(e.message)),
        "the ack arrived",
      );
      const lines = events.flatMap((e) => (e.type === "stderr" ? [e.line] : []));
      assert.ok(lines.includes("fake-ext: shutdown received"));
      assert.ok(!lines.includes("fake-ext: stdin ended"), "stdin was not used as the shutdown signal");
      assert.deepEqual(groupMembers(pid), []);
    });
  },
);

test(
  "SHUT-06: several extensions that ignore shutdown are stopped " + "concurrently within the aggregate deadline",
  async () => {
    const specs = ["h1", "h2", "h3"].map((name) => ({
      name,
      behaviour: "hang-shutdown",
      tools: [`${name}_echo`, `${name}_slow`],
    }));
    await withHost(specs, {}, async (host, _e, dir) => {
      const pids = host.status().map((s) => s.pgid!);
      const started = Date.now();
      await host.shutdown();
      const took = Date.now() - started;
      for (const pid of pids) assert.deepEqual(groupMembers(pid), []);
      assert.deepEqual(processesMentioning(dir), []);
      // Sequential ladders would take 3 x 4 s; the aggregate is 3 s, plus at most 1 s to reap.
      assert.ok(took < 4_500, `all three stopped together within the aggregate (took ${took} ms)`);
    });
  },
);

test(
  "MAN-17: capability declarations do not sandbox: a " + "filesystem=none extension can still read the workspace",
  async () => {
    await withHost([{ name: "nofs", behaviour: "dump-env" }], {}, async (host, _e, dir) => {
      const { cwd } = JSON.parse((await host.callTool("echo", {})).text) as { cwd: string };
      assert.equal(cwd, dir, "it runs in the workspace with the user's authority; no OS confinement is claimed");
    });
  },
);

test(
  "FRAME-04, FRAME-05: 16 MiB of stderr never blocks the extension; " + "the embedder sees bounded, rate-limited lines",
  async () => {
    await withHost([{ name: "chat", behaviour: "stderr-flood" }], {}, async (host, events) => {
      assert.equal(
        host.status()[0]!.state,
        "ready",
        "initialize completed although the child wrote 16 MiB to stderr first",
      );
      assert.equal((await host.callTool("echo", { a: 1 })).text, '{"a":1}');
      const lines = events.flatMap((e) => (e.type === "stderr" ? [e.line] : []));
      assert.ok(lines.length < 16 * 1024, `stderr events are rate-limited (${lines.length} of 16384 lines)`);
      assert.ok(lines.every((l) => Buffer.byteLength(l) <= 4096));
    });
  },
);

test("HOOK-07: the host never sends after_response by itself: not on a cancelled or timed-out call", async () => {
  await withHost([{ name: "obs", behaviour: "good", extraToml: 'hooks = ["after_response"]' }], {}, async (host) => {
    const controller = new AbortController();
    const slow = host.callTool("slow", {}, { signal: controller.signal });
    controller.abort();
    await assert.rejects(slow, /cancelled/);
    await assert.rejects(host.callTool("slow", {}, { timeoutMs: 50 }), /no response within 50 ms/);
    const methods = (await show(host, "echo", "methods")) as string[];
    assert.ok(!methods.includes("hook/run"), `no hook/run was sent: ${methods.join(",")}`);
    // Only the embedder, after a successful, complete response, runs it.
    const outcome = await host.runHook("after_response", { response: "done" });
    assert.equal(outcome.denied, null);
    assert.ok(((await show(host, "echo", "methods")) as string[]).includes("hook/run"));
  });
});

test("SUP-07, SHUT-06: a reload still initializing when shutdown starts leaves no process behind", async () => {
  await withHost([{ name: "slowre", behaviour: "good" }], {}, async (host, _e, dir) => {
    const { writeFile } = await import("node:fs/promises");
    await writeFile(`${dir}/fake-ext-slow-init`, "");
    const reloading = host.reload("slowre");
    const before = processesMentioning(`${dir}/slowre`).length;
    await waitUntil(() => processesMentioning(`${dir}/slowre`).length > before, 5_000, "the candidate to be spawned");
    await host.shutdown();
    await assert.rejects(reloading, /shutting down|stopped|closed/);
    assert.deepEqual(processesMentioning(`${dir}/slowre`), []);
  });
});

test("SUP-09: reload never revives an extension refused for a tool-name conflict", async () => {
  await withHost(
    [
      { name: "first", behaviour: "good" },
      { name: "second", behaviour: "good" },
    ],
    {},
    async (host) => {
      const second = host.status().find((s) => s.name === "second")!;
      assert.equal(second.state, "parked");
      assert.match(second.lastError ?? "", /tool "echo" is already provided by extension "first"/);
      await assert.rejects(
        host.reload("second"),
        /reload of "second" refused: tool "echo" is already provided by extension "first"/,
      );
      assert.deepEqual(
        host
          .tools()
          .map((t) => `${t.name}@${t.extension}`)
          .sort(),
        ["echo@first", "slow@first"],
      );
    },
  );
});

test("REV-04, REV-06: the 129th outstanding child request is refused with -32002; the first 128 wait", async () => {
  const never = async ({ signal }: { signal: AbortSignal }): Promise<boolean> =>
    new Promise((resolve) => signal.addEventListener("abort", () => resolve(false), { once: true }));
  await withHost(
    [{ name: "flood", behaviour: "confirm-flood", extraToml: "confirmations = true" }],
    { services: { confirm: never } },
    async (host) => {
      const codes = JSON.parse((await host.callTool("echo", {})).text) as Record<string, number>;
      assert.deepEqual(codes, { "-32002": 72 }, "200 sent, 128 outstanding, 72 refused");
    },
  );
});

test("FRAME-05: a flood of bad notifications yields a bounded number of diagnostics and one summary", async () => {
  await withHost([{ name: "noisy", behaviour: "notify-flood" }], {}, async (host, events) => {
    assert.equal((await host.callTool("echo", {})).text, "flooded");
    await host.shutdown();
    const diags = events.filter((e) => e.type === "diagnostic" && e.extension === "noisy");
    assert.ok(diags.length <= 45, `at most 20 per second plus summaries (${diags.length} for 5,000 bad messages)`);
    assert.ok(diags.some((e) => e.type === "diagnostic" && /more diagnostics suppressed/.test(e.message)));
  });
});

test(
  "MAN-21: an enabled, trusted API 0.1 extension gets a process only under the full-access policy; under controlled " +
    "it stays discovered with none",
  async () => {
    const { dir, cleanup } = await makeExtensions([
      { name: "legacy", behaviour: "good", api: "0.1", tools: ["l_echo", "l_slow"] },
      { name: "modern", behaviour: "good", api: "0.2", tools: ["m_echo", "m_slow"] },
    ]);
    try {
      const controlled = await ExtensionHost.start({
        workspace: dir,
        extensionDirs: [dir],
        enable: ["legacy", "modern"],
        policy: "controlled",
      });
      try {
        const legacy = controlled.status().find((s) => s.name === "legacy")!;
        assert.equal(legacy.state, "not_enabled");
        assert.equal(legacy.pid, null);
        assert.match(legacy.reason, /API 0\.1.*full-access policy.*without a process/);
        assert.deepEqual(processesMentioning(`${dir}/legacy`), [], "no resident child");
        assert.equal(controlled.status().find((s) => s.name === "modern")!.state, "ready");
      } finally {
        await controlled.shutdown();
      }
      const full = await ExtensionHost.start({ workspace: dir, extensionDirs: [dir], enable: ["legacy", "modern"] });
      try {
        assert.equal(
          full.status().find((s) => s.name === "legacy")!.state,
          "ready",
          "full-access (the default) starts it",
        );
      } finally {
        await full.shutdown();
      }
    } finally {
      await cleanup();
    }
  },
);
