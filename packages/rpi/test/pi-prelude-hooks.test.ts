// pi.on inside QuickJS: event names, aliases, pi's hook reductions, the log frame, and pi.events.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PreludeHarness, loaded, invoke, ok, ext, type Frame } from "./helpers/quickjs-harness.js";
import { PI_EVENTS_33, PI_EVENTS_NEWER } from "../src/index.js";

const hooks = { capabilities: ["event_hooks"] };
const fire = (id: string, name: string, data: unknown): object => invoke(id, { kind: "hook", event: { name, data } });
const logged = (level: string, message: string): Frame => ({ type: "log", level, message });

async function reduce(body: string, name: string, data: unknown): Promise<{ frames: Frame[]; h: PreludeHarness }> {
  const { h } = await loaded(ext(body), hooks);
  h.send(fire("req-2", name, data));
  return { frames: h.take(), h };
}

test("QJS-07: pi.on sends one hook registration per distinct event, in order", async () => {
  const { h, load } = await loaded(
    ext(`
    pi.on("tool_call", () => {});
    pi.on("session_start", () => {});
    pi.on("tool_call", () => {});
    pi.on("ui_prompt_start", () => {});`),
    hooks,
  );
  try {
    assert.deepEqual(load.slice(1), [
      { type: "register", registration: { kind: "hook", hook: { event: "tool_call" } } },
      { type: "register", registration: { kind: "hook", hook: { event: "session_start" } } },
      { type: "register", registration: { kind: "hook", hook: { event: "ui_prompt_start" } } },
      ok("req-1", {}),
    ]);
  } finally {
    h.dispose();
  }
});

test("QJS-07: an unknown event name throws at registration with the list of known names", async () => {
  const h = await PreludeHarness.start(
    ext(`
    try { pi.on("tool_called", () => {}); } catch (e) { globalThis.why = e.name + ": " + e.message; }
    try { pi.on("tool_call", "not a function"); } catch (e) { globalThis.notFn = e.name + ": " + e.message; }`),
    hooks,
  );
  try {
    assert.deepEqual(h.handshake().slice(1), [ok("req-1", {})]);
    assert.equal(
      h.evaluate("globalThis.why"),
      `Error: pi.on: unknown event "tool_called"; the known events are ` +
        `${[...PI_EVENTS_33, ...PI_EVENTS_NEWER].join(", ")}`,
    );
    assert.equal(h.evaluate("globalThis.notFn"), 'TypeError: pi.on("tool_call"): the handler must be a function');
  } finally {
    h.dispose();
  }
});

test(
  "QJS-07: an older event name is accepted, mapped and warned about once (a log frame); its handlers run on the " +
    "current event, for the reasons the old name meant (a session_switch handler never runs at start-up)",
  async () => {
    const { h, load } = await loaded(
      ext(`
    globalThis.seen = [];
    pi.on("session_switch", (e) => { seen.push("switch:" + e.type + ":" + e.reason); });
    pi.on("session_switch", () => { seen.push("switch again"); });
    pi.on("session_fork", () => { seen.push("fork"); });
    pi.on("session_start", () => { seen.push("start"); });`),
      hooks,
    );
    try {
      assert.deepEqual(load.slice(1), [
        logged(
          "warning",
          'pi.on("session_switch") uses an older event name; the handler receives "session_start" events instead ' +
            'whose reason is "new" or "resume"',
        ),
        logged(
          "warning",
          'pi.on("session_fork") uses an older event name; the handler receives "session_start" events instead ' +
            'whose reason is "fork"',
        ),
        { type: "register", registration: { kind: "hook", hook: { event: "session_start" } } },
        ok("req-1", {}),
      ]);
      h.send(fire("req-2", "session_start", { reason: "resume" }));
      h.send(fire("req-3", "session_switch", { reason: "new" }));
      h.send(fire("req-4", "session_start", { reason: "startup" }));
      h.send(fire("req-5", "session_start", { reason: "fork" }));
      assert.deepEqual(h.take(), [ok("req-2", null), ok("req-3", null), ok("req-4", null), ok("req-5", null)]);
      assert.deepEqual(h.evaluate("globalThis.seen"), [
        "switch:session_start:resume",
        "switch again",
        "start",
        "switch:session_start:new",
        "switch again",
        "start",
        "start",
        "fork",
        "start",
      ]);
    } finally {
      h.dispose();
    }
  },
);

test("QJS-13: tool_call: the first {block: true} wins and later handlers do not run", async () => {
  const { frames, h } = await reduce(
    `
    globalThis.calls = [];
    pi.on("tool_call", (e) => { calls.push("1:" + e.toolName); return undefined; });
    pi.on("tool_call", () => { calls.push("2"); return { block: false }; });
    pi.on("tool_call", async () => { calls.push("3"); return { block: true, reason: "no rm -rf" }; });
    pi.on("tool_call", () => { calls.push("4"); return { block: true, reason: "never" }; });`,
    "tool_call",
    { toolName: "bash", toolCallId: "c1", input: { command: "rm -rf /" } },
  );
  try {
    assert.deepEqual(frames, [ok("req-2", { block: true, reason: "no rm -rf" })]);
    assert.deepEqual(h.evaluate("globalThis.calls"), ["1:bash", "2", "3"]);
  } finally {
    h.dispose();
  }
});

test("QJS-13: tool_call fails closed: a handler that throws blocks the call", async () => {
  const { frames, h } = await reduce(
    `pi.on("tool_call", () => { throw new Error("policy unavailable"); });`,
    "tool_call",
    { toolName: "bash", input: {} },
  );
  try {
    assert.deepEqual(frames, [
      ok("req-2", { block: true, reason: 'a tool_call handler of extension "pi-test" threw: policy unavailable' }),
    ]);
  } finally {
    h.dispose();
  }
});

test(
  "QJS-13: tool_call: arguments changed in place on event.input come back as `input`; no opinion is " + "null",
  async () => {
    const { frames, h } = await reduce(
      `pi.on("tool_call", (e) => { if (e.toolName === "read") e.input.path = "/safe/" + e.input.path; });`,
      "tool_call",
      { toolName: "read", input: { path: "a.txt" } },
    );
    try {
      assert.deepEqual(frames, [ok("req-2", { input: { path: "/safe/a.txt" } })]);
      h.send(fire("req-3", "tool_call", { toolName: "bash", input: { command: "ls" } }));
      assert.deepEqual(h.take(), [ok("req-3", null)]);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-13: tool_result is chained: each handler sees the previous changes; a throw is logged and " + "skipped",
  async () => {
    const { frames, h } = await reduce(
      `
    pi.on("tool_result", () => ({ content: [{ type: "text", text: "redacted" }] }));
    pi.on("tool_result", () => { throw new Error("flaky"); });
    pi.on("tool_result", (e) => ({ details: { saw: e.content[0].text, wasError: e.isError } }));
    pi.on("tool_result", () => undefined);`,
      "tool_result",
      {
        toolName: "read",
        toolCallId: "c1",
        input: {},
        content: [{ type: "text", text: "secret" }],
        details: { n: 1 },
        isError: false,
      },
    );
    try {
      assert.deepEqual(frames, [
        logged("error", 'a "tool_result" handler threw: flaky'),
        ok("req-2", {
          content: [{ type: "text", text: "redacted" }],
          details: { saw: "redacted", wasError: false },
          isError: false,
        }),
      ]);
      h.send(fire("req-3", "tool_result", { content: [], isError: true }));
      assert.deepEqual(h.take(), [
        logged("error", 'a "tool_result" handler threw: flaky'),
        ok("req-3", {
          content: [{ type: "text", text: "redacted" }],
          details: { saw: "redacted", wasError: true },
          isError: true,
        }),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test('QJS-13: input: transforms chain, "handled" stops, nothing to do is null', async () => {
  const { frames, h } = await reduce(
    `
    globalThis.calls = 0;
    pi.on("input", (e) => e.text.startsWith("!") ? { action: "handled" } : { action: "transform", text: e.text + "!" });
    pi.on("input", (e) => ({ action: "transform", text: e.text + "?" }));
    pi.on("input", () => { calls++; return { action: "continue" }; });`,
    "input",
    { text: "hello", source: "interactive" },
  );
  try {
    assert.deepEqual(frames, [ok("req-2", { action: "transform", text: "hello!?" })]);
    h.send(fire("req-3", "input", { text: "!stop", source: "interactive" }));
    assert.deepEqual(h.take(), [ok("req-3", { action: "handled" })]);
    assert.equal(h.evaluate("globalThis.calls"), 1);
  } finally {
    h.dispose();
  }
  const quiet = await reduce(`pi.on("input", () => ({ action: "continue" }));`, "input", { text: "x", source: "rpc" });
  try {
    assert.deepEqual(quiet.frames, [ok("req-2", null)]);
  } finally {
    quiet.h.dispose();
  }
});

test("QJS-13: before_agent_start chains systemPrompt and collects messages; context chains messages", async () => {
  const { frames, h } = await reduce(
    `
    pi.on("before_agent_start", (e) => ({ systemPrompt: e.systemPrompt + " A" }));
    pi.on("before_agent_start", (e) => ({ message: { customType: "note", content: "from " + e.prompt, display: true ` +
      `}, systemPrompt: e.systemPrompt + " B" }));
    pi.on("context", (e) => ({ messages: e.messages.concat([{ role: "user", content: "extra" }]) }));
    pi.on("context", (e) => ({ messages: e.messages.filter((m) => m.content !== "drop") }));
    pi.on("context", () => ({}));`,
    "before_agent_start",
    { prompt: "hi", systemPrompt: "base" },
  );
  try {
    assert.deepEqual(frames, [
      ok("req-2", { messages: [{ customType: "note", content: "from hi", display: true }], systemPrompt: "base A B" }),
    ]);
    h.send(
      fire("req-3", "context", {
        messages: [
          { role: "user", content: "keep" },
          { role: "user", content: "drop" },
        ],
      }),
    );
    assert.deepEqual(h.take(), [
      ok("req-3", {
        messages: [
          { role: "user", content: "keep" },
          { role: "user", content: "extra" },
        ],
      }),
    ]);
  } finally {
    h.dispose();
  }
});

test(
  "QJS-13: session_before_* stops at {cancel: true}; user_bash takes the first result; resources_discover merges; " +
    "before_provider_request chains the payload",
  async () => {
    const { frames, h } = await reduce(
      `
    globalThis.calls = [];
    pi.on("session_before_switch", () => ({ cancel: false, note: 1 }));
    pi.on("session_before_switch", () => ({ cancel: true }));
    pi.on("session_before_switch", () => { calls.push("after cancel"); });
    pi.on("user_bash", () => undefined);
    pi.on("user_bash", (e) => ({ result: { output: "ran " + e.command, exitCode: 0 } }));
    pi.on("user_bash", () => { calls.push("after result"); });
    pi.on("resources_discover", () => ({ skillPaths: ["/a"] }));
    pi.on("resources_discover", () => ({ skillPaths: ["/b"], promptPaths: ["/p"] }));
    pi.on("before_provider_request", (e) => ({ ...e.payload, temperature: 0 }));
    pi.on("before_provider_request", (e) => ({ ...e.payload, seen: e.payload.temperature }));`,
      "session_before_switch",
      { reason: "new" },
    );
    try {
      assert.deepEqual(frames, [ok("req-2", { cancel: true })]);
      h.send(fire("req-3", "user_bash", { command: "ls", excludeFromContext: false, cwd: "/" }));
      h.send(fire("req-4", "resources_discover", { cwd: "/", reason: "startup" }));
      h.send(fire("req-5", "before_provider_request", { payload: { model: "m" } }));
      assert.deepEqual(h.take(), [
        ok("req-3", { result: { output: "ran ls", exitCode: 0 } }),
        ok("req-4", { skillPaths: ["/a", "/b"], promptPaths: ["/p"], themePaths: [] }),
        ok("req-5", { model: "m", temperature: 0, seen: 0 }),
      ]);
      assert.deepEqual(h.evaluate("globalThis.calls"), []);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-13: other events answer the last value that is not undefined, or null; handlers get {type, ...data} and " +
    "ctx",
  async () => {
    const { frames, h } = await reduce(
      `
    pi.on("agent_end", () => "first");
    pi.on("agent_end", (e, ctx) => e.type + ":" + e.messages.length + ":" + ctx.cwd);
    pi.on("agent_end", () => undefined);
    pi.on("turn_start", () => undefined);`,
      "agent_end",
      { messages: [1, 2] },
    );
    try {
      assert.deepEqual(frames, [ok("req-2", "agent_end:2:/work/project")]);
      h.send(fire("req-3", "turn_start", { turnIndex: 0 }));
      h.send(fire("req-4", "model_select", {}));
      assert.deepEqual(h.take(), [ok("req-3", null), ok("req-4", null)]);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-13: a hook cancelled mid-way answers cancelled and runs no further handler; session_before_compact gets " +
    "the live signal",
  async () => {
    const { h } = await loaded(
      ext(`
    globalThis.calls = [];
    pi.on("session_before_compact", (e) => new Promise((resolve) => {
      calls.push("first:" + (e.signal === undefined ? "no signal" : e.signal.aborted));
      e.signal.addEventListener("abort", () => resolve({ cancel: true }));
    }));
    pi.on("session_before_compact", () => { calls.push("second"); });`),
      hooks,
    );
    try {
      h.send(fire("req-2", "session_before_compact", { customInstructions: "x" }));
      assert.deepEqual(h.take(), []);
      h.send({ type: "cancel", id: "req-2" });
      assert.deepEqual(h.take(), [{ type: "response", id: "req-2", result: { status: "cancelled" } }]);
      assert.deepEqual(h.evaluate("globalThis.calls"), ["first:false"]);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-06: pi.events is an in-process bus: on returns an unsubscribe, emit calls handlers in order, a throwing " +
    "handler is logged",
  async () => {
    const { h, load } = await loaded(
      ext(`
    globalThis.seen = [];
    const off = pi.events.on("ping", (d) => seen.push("a:" + d));
    pi.events.on("ping", (d) => seen.push("b:" + d));
    pi.events.on("ping", () => { throw new Error("bad listener"); });
    pi.events.on("ping", async () => { throw new Error("bad async listener"); });
    pi.events.emit("ping", 1);
    off();
    off();
    pi.events.emit("ping", 2);
    pi.events.emit("nobody", 3);`),
      {},
    );
    try {
      assert.deepEqual(h.evaluate("globalThis.seen"), ["a:1", "b:1", "b:2"]);
      assert.deepEqual(load.slice(1), [
        logged("error", 'a pi.events handler of "ping" threw: bad listener'),
        logged("error", 'a pi.events handler of "ping" threw: bad listener'),
        logged("error", 'a pi.events handler of "ping" threw: bad async listener'),
        logged("error", 'a pi.events handler of "ping" threw: bad async listener'),
        ok("req-1", {}),
      ]);
    } finally {
      h.dispose();
    }
  },
);
