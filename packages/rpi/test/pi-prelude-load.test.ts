// The pi prelude in a real QuickJS runtime: handshake, load, registrations, globals, unknown frames.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PreludeHarness, loaded, invoke, ok, err, ext, overLimit } from "./helpers/quickjs-harness.js";

const hello = {
  type: "hello",
  protocolVersion: 1,
  instance: { extensionId: "pi-weather", generation: 1 },
  cwd: "/w",
  mode: "tui",
  projectTrusted: true,
};
const initialize = { type: "request", id: "req-1", generation: 1, request: { kind: "initialize" } };

test(
  "QJS-02, RPI-22: the host hello is answered with the extension hello, its manifest from the " + "environment",
  async () => {
    const h = await PreludeHarness.start(ext(""), {
      id: "pi-weather",
      capabilities: ["tools", "ui"],
      uiCapabilities: ["notify"],
    });
    try {
      h.send(hello);
      assert.deepEqual(h.take(), [
        {
          type: "hello",
          protocolVersion: 1,
          manifest: {
            id: "pi-weather",
            name: "pi-weather",
            version: "0.0.0",
            capabilities: ["tools", "ui"],
            uiCapabilities: ["notify"],
          },
        },
      ]);
      h.send(hello);
      assert.deepEqual(h.take(), [], "a second hello is not answered again");
    } finally {
      h.dispose();
    }
  },
);

test("QJS-03: a missing or non-function default export fails the load, naming what it was", async () => {
  for (const [source, got] of [
    ["export const x = 1;\n", "undefined"],
    ["export default { name: 'x' };\n", "an object"],
    ["export default 'pi';\n", "a string"],
  ] as const) {
    const h = await PreludeHarness.start(source);
    try {
      const frames = h.handshake();
      assert.deepEqual(frames.slice(1), [
        err("req-1", `the entry must default-export a function (pi) => void; got ${got}`),
      ]);
      h.send(invoke("req-2", { kind: "command", name: "x", arguments: "" }));
      assert.deepEqual(h.take(), [err("req-2", "the extension failed to load")]);
      h.send(initialize);
      assert.deepEqual(h.take(), [err("req-1", "the extension failed to load")]);
    } finally {
      h.dispose();
    }
  }
});

test(
  "QJS-03: a factory that throws or rejects fails the load with its message, and sends no " + "registration",
  async () => {
    const sources = [
      ext(`pi.registerTool({ name: "t", description: "d", execute: async () => "x" }); throw new Error("no config");`),
      `export default async function (pi) { pi.registerTool({ name: "t", description: "d", execute: async () => "x" ` +
        `}); await null; throw new Error("no config"); }\n`,
    ];
    for (const source of sources) {
      const h = await PreludeHarness.start(source, { capabilities: ["tools"] });
      try {
        const frames = h.handshake();
        assert.equal(frames[0]?.type, "hello");
        assert.deepEqual(frames.slice(1), [err("req-1", "the extension factory failed: no config")]);
      } finally {
        h.dispose();
      }
    }
  },
);

test(
  "QJS-03, RPI-27: an async factory is awaited; its registrations are sent after it returns, then the success " +
    "answer",
  async () => {
    const h = await PreludeHarness.start(
      `export default async function (pi) {
    pi.registerTool({ name: "weather", label: "Weather", description: "Get current weather",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] }, execute: async ` +
        `() => "15" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    pi.registerCommand("forecast", { description: "Forecast", handler: async () => {} });
  }\n`,
      { capabilities: ["tools", "commands"] },
    );
    try {
      assert.deepEqual(
        h.handshake().map((f) => f.type),
        ["hello"],
        "nothing is registered before the factory returns",
      );
      const frames = await h.until((f) => f.some((x) => x.type === "response"));
      assert.deepEqual(frames, [
        {
          type: "register",
          registration: {
            kind: "tool",
            tool: {
              name: "weather",
              label: "Weather",
              description: "Get current weather",
              parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
            },
          },
        },
        { type: "register", registration: { kind: "command", command: { name: "forecast", description: "Forecast" } } },
        ok("req-1", {}),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test("RPI-38: session actions are refused during the load phase, without a frame", async () => {
  const h = await PreludeHarness.start(
    `export default async function (pi) {
    const why = [];
    for (const call of [() => pi.setSessionName("n"), () => pi.sendMessage({ customType: "c", content: "x" }), () => ` +
      `pi.setActiveTools(["read"])]) {
      try { await call(); why.push("sent"); } catch (e) { why.push(e.message + " [" + e.code + "]"); }
    }
    pi.registerCommand("why", { description: why.join(" | "), handler() {} });
  }\n`,
    { capabilities: ["commands", "session_actions"] },
  );
  try {
    const frames = h.handshake();
    const load =
      "is unavailable while the extension loads (actions are refused in the registration-only load phase); call it " +
      "from a handler [denied]";
    assert.deepEqual(frames.slice(1), [
      {
        type: "register",
        registration: {
          kind: "command",
          command: {
            name: "why",
            description: `pi.setSessionName ${load} | pi.sendMessage ${load} | pi.setActiveTools ${load}`,
          },
        },
      },
      ok("req-1", {}),
    ]);
  } finally {
    h.dispose();
  }
});

test(
  "RPI-27: after the load a registerTool is sent at once and replaces the tool (octet's dynamic catalog); " +
    "a command changes nothing and sends a warning; a late pi.on joins a hooked event or is sent as a hook; " +
    "inside the load, a name again replaces it",
  async () => {
    const late =
      "after the load is ignored: octet fixes an extension's commands and shortcuts when it loads (its dynamic " +
      "catalog, tools/register, carries tools only), so register them in the extension's factory";
    const { h, load } = await loaded(
      ext(`
    pi.registerTool({ name: "tool", description: "first", execute: async () => "first" });
    pi.registerTool({ name: "tool", description: "second", execute: async () => "second" });
    pi.on("input", () => ({ action: "transform", text: "from the load" }));
    pi.registerCommand("grow", { handler: async () => {
      pi.registerTool({ name: "late", description: "late", execute: async () => "late" });
      pi.registerTool({ name: "tool", description: "replaced", execute: async () => "replaced" });
      pi.registerCommand("grow", { handler: async () => "replaced" });
      pi.on("input", () => ({ action: "transform", text: "late handler" }));
      pi.on("agent_end", () => {});
      return "grown";
    } });`),
      { capabilities: ["tools", "commands", "event_hooks"] },
    );
    try {
      assert.deepEqual(load.slice(1, -1), [
        {
          type: "register",
          registration: {
            kind: "tool",
            tool: { name: "tool", description: "second", parameters: { type: "object", properties: {} } },
          },
        },
        { type: "register", registration: { kind: "hook", hook: { event: "input" } } },
        { type: "register", registration: { kind: "command", command: { name: "grow" } } },
      ]);
      h.send(invoke("req-2", { kind: "command", name: "grow", arguments: "" }));
      const params = { type: "object", properties: {} };
      assert.deepEqual(h.take(), [
        {
          type: "register",
          registration: { kind: "tool", tool: { name: "late", description: "late", parameters: params } },
        },
        {
          type: "register",
          registration: { kind: "tool", tool: { name: "tool", description: "replaced", parameters: params } },
        },
        { type: "log", level: "warning", message: `the registration of command "grow" ${late}` },
        { type: "register", registration: { kind: "hook", hook: { event: "agent_end" } } },
        ok("req-2", "grown"),
      ]);
      // The tools are the late ones; the load's command and hook handler still answer.
      h.send(invoke("req-3", { kind: "tool", name: "tool", callId: "c1", arguments: {} }));
      h.send(invoke("req-4", { kind: "tool", name: "late", callId: "c2", arguments: {} }));
      h.send(invoke("req-5", { kind: "command", name: "grow", arguments: "" }));
      h.send(invoke("req-6", { kind: "hook", event: { name: "input", data: { text: "hi" } } }));
      assert.deepEqual(
        h.take().filter((f) => f.type === "response"),
        [
          ok("req-3", { content: [{ type: "text", text: "replaced" }] }),
          ok("req-4", { content: [{ type: "text", text: "late" }] }),
          ok("req-5", "grown"),
          ok("req-6", { action: "transform", text: "late handler" }),
        ],
      );
    } finally {
      h.dispose();
    }
  },
);

test("QJS-18: a registration over the frame limit fails the load, saying so", async () => {
  const h = await PreludeHarness.start(
    ext(`pi.registerTool({ name: "big", description: "x".repeat(5000), execute: async () => "" });`),
    { capabilities: ["tools"], maxFrameBytes: 2048 },
  );
  try {
    const frame = {
      type: "register",
      registration: {
        kind: "tool",
        tool: { name: "big", description: "x".repeat(5000), parameters: { type: "object", properties: {} } },
      },
    };
    assert.deepEqual(h.handshake().slice(1), [err("req-1", overLimit('the registration of tool "big"', frame, 2048))]);
  } finally {
    h.dispose();
  }
});

test("QJS-17: the prelude defines no host globals and removes __octet_host; the web-style globals exist", async () => {
  const h = await PreludeHarness.start(ext(""));
  try {
    assert.deepEqual(
      h.evaluate(
        `[typeof console, typeof process, typeof require, typeof fetch, typeof __octet_host, "__octet_host" in ` +
          `globalThis]`,
      ),
      ["undefined", "undefined", "undefined", "undefined", "undefined", false],
    );
    assert.deepEqual(
      h.evaluate(
        `[setTimeout, clearTimeout, setInterval, clearInterval, AbortController, AbortSignal, structuredClone, ` +
          `queueMicrotask].map((f) => typeof f)`,
      ),
      Array(8).fill("function"),
    );
    assert.deepEqual(
      h.evaluate(`Object.keys(globalThis).filter((k) => /timeout|interval|abort|clone|microtask/i.test(k))`),
      [],
      "the globals are not enumerable, like built-ins",
    );
  } finally {
    h.dispose();
  }
});

test(
  "timers: setTimeout passes its arguments, clearTimeout cancels, setInterval repeats until cleared, string " +
    "callbacks are refused",
  async () => {
    const { h } = await loaded(
      ext(
        `
    pi.registerCommand("wait", { handler: () => new Promise((resolve) => {
      const cancelled = setTimeout(() => resolve("cancelled timer fired"), 1);
      clearTimeout(cancelled);
      let ticks = 0;
      const every = setInterval(() => { ticks++; if (ticks === 3) { clearInterval(every); setTimeout(resolve, 5, ` +
          `"ticks:" + ticks); } }, 1);
    }) });
    pi.registerCommand("eval", { handler: () => { try { setTimeout("1 + 1", 1); return "accepted"; } catch (e) { ` +
          `return e.name + ": " + e.message; } } });`,
      ),
      { capabilities: ["commands"] },
    );
    try {
      h.send(invoke("req-2", { kind: "command", name: "wait", arguments: "" }));
      assert.deepEqual(await h.until((f) => f.length > 0), [ok("req-2", "ticks:3")]);
      assert.equal(h.pendingTimers, 0);
      h.send(invoke("req-3", { kind: "command", name: "eval", arguments: "" }));
      assert.deepEqual(h.take(), [
        ok("req-3", "TypeError: the timer callback must be a function (string callbacks are not supported)"),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test("AbortController/AbortSignal shim and the JSON structuredClone", async () => {
  const h = await PreludeHarness.start(ext(""));
  try {
    assert.deepEqual(
      h.evaluate(
        `(() => {
      const c = new AbortController();
      const seen = [];
      c.signal.onabort = (e) => seen.push("onabort:" + e.type + ":" + (e.target === c.signal));
      const gone = () => seen.push("removed");
      c.signal.addEventListener("abort", gone);
      c.signal.addEventListener("abort", { handleEvent: () => seen.push("object") });
      c.signal.addEventListener("abort", () => seen.push("fn"));
      c.signal.removeEventListener("abort", gone);
      const before = c.signal.aborted;
      c.abort();
      c.abort("again");
      let thrown;
      try { c.signal.throwIfAborted(); } catch (e) { thrown = e.name; }
      let constructed;
      try { new AbortSignal(); constructed = "yes"; } catch (e) { constructed = e.name; }
      const any = AbortSignal.any([new AbortController().signal, AbortSignal.abort("first")]);
      return [before, c.signal.aborted, c.signal.reason.name, c.signal.reason.message, seen, thrown, constructed, ` +
          `AbortSignal.abort("why").reason, any.reason];
    })()`,
      ),
      [
        false,
        true,
        "AbortError",
        "This operation was aborted",
        ["onabort:abort:true", "object", "fn"],
        "AbortError",
        "TypeError",
        "why",
        "first",
      ],
    );
    assert.deepEqual(
      h.evaluate(`(() => {
      const v = { a: [1, { b: 2 }], u: undefined, d: new Date(0) };
      const c = structuredClone(v);
      return [c, c.a !== v.a];
    })()`),
      [{ a: [1, { b: 2 }], d: "1970-01-01T00:00:00.000Z" }, true],
    );
  } finally {
    h.dispose();
  }
});

test("AbortSignal shim: an untouched signal reads as fresh, its state is private, an abort is its own", async () => {
  const h = await PreludeHarness.start(ext(""));
  try {
    assert.deepEqual(
      h.evaluate(
        `(() => {
      const a = new AbortController();
      const b = new AbortController();
      const fresh = [b.signal.aborted, b.signal.reason, Reflect.ownKeys(b.signal)];
      b.signal.removeEventListener("abort", () => {});
      b.signal.throwIfAborted();
      a.abort("why");
      const get = Object.getOwnPropertyDescriptor(AbortSignal.prototype, "aborted").get;
      const refused = [];
      for (const v of [{}, 1, null, AbortSignal.prototype]) {
        try { get.call(v); refused.push("read"); } catch (e) { refused.push(e.name + ": " + e.message); }
      }
      return [fresh, a.signal.aborted, a.signal.reason, b.signal.aborted, b.signal.reason, refused];
    })()`,
      ),
      [
        [false, null, ["onabort"]],
        true,
        "why",
        false,
        null,
        [
          "TypeError: not an AbortSignal",
          "TypeError: not an AbortSignal",
          "TypeError: not an AbortSignal",
          "TypeError: not an AbortSignal",
        ],
      ],
    );
  } finally {
    h.dispose();
  }
});

test(
  "RPI-29: unknown frame types and malformed text are ignored; unknown request and invocation kinds, and an " +
    "invoke before initialize, get an error",
  async () => {
    const h = await PreludeHarness.start(ext(""));
    try {
      h.send({
        type: "request",
        id: "req-0",
        generation: 1,
        request: { kind: "invoke", invocation: { kind: "command", name: "x", arguments: "" } },
      });
      assert.deepEqual(h.take(), [
        err("req-0", "the extension is not initialized: invoke came before initialize was answered"),
      ]);
      h.handshake();
      h.send({ type: "telemetry", id: "x" });
      h.sendText("{not json");
      h.sendText("[1,2]");
      h.send({ type: "response", id: "e99", result: { status: "success", value: 1 } });
      h.send({ type: "cancel", id: "req-404" });
      assert.deepEqual(h.take(), []);
      h.send({ type: "request", id: "req-2", generation: 1, request: { kind: "reticulate" } });
      h.send(invoke("req-3", { kind: "overlay", name: "x" }));
      h.send(invoke("req-4", { kind: "tool", name: "nope", callId: "c", arguments: {} }));
      h.send(invoke("req-5", { kind: "command", name: "nope", arguments: "" }));
      assert.deepEqual(h.take(), [
        err("req-2", 'unknown request kind "reticulate" (expected "initialize" or "invoke")'),
        err("req-3", 'unknown invocation kind "overlay" (expected "tool", "command" or "hook")'),
        err("req-4", 'unknown tool "nope"'),
        err("req-5", 'unknown command "nope"'),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test(
  'QJS-04, QJS-21: the document\'s reference example (registerCommand "hello" with ctx.ui.notify) loads and ' + "runs",
  async () => {
    const { h, load } = await loaded(
      `export default function (pi) {
  pi.registerCommand("hello", {
    description: "Say hello",
    handler: async (_args, ctx) => {
      ctx.ui.notify("Hello from QuickJS", "info");
    },
  });
}
`,
      {
        id: "pi-weather",
        capabilities: ["commands", "tools", "event_hooks", "session_actions", "ui"],
        uiCapabilities: ["notify", "status"],
      },
    );
    try {
      assert.deepEqual(load.slice(1, -1), [
        { type: "register", registration: { kind: "command", command: { name: "hello", description: "Say hello" } } },
      ]);
      h.send(invoke("req-2", { kind: "command", name: "hello", arguments: "" }));
      assert.deepEqual(h.take(), [
        {
          type: "request",
          id: "e1",
          request: { kind: "ui", ui: { request: { type: "notify", message: "Hello from QuickJS", level: "info" } } },
        },
        ok("req-2", null),
      ]);
      h.send(ok("e1", {}));
      assert.deepEqual(h.take(), []);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-21: an example in the shape of the reference fixture (commands, a tool, a hook, a session action, UI) runs " +
    "end to end",
  async () => {
    const { h, load } = await loaded(
      `export default function (pi) {
  pi.registerCommand("greet", {
    description: "Greets through a notification",
    handler: async (args, ctx) => { ctx.ui.notify(args === "" ? "Greetings" : args, "info"); },
  });
  pi.registerTool({
    name: "shout",
    label: "Shout",
    description: "Upper-cases text",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: async (_id, params) => ({ content: [{ type: "text", text: params.text.toUpperCase() }] }),
  });
  pi.registerCommand("rename", { description: "Renames the session", ` +
        `handler: async () => { await pi.setSessionName("renamed"); } });
  pi.on("session_start", async (event, ctx) => { ctx.ui.setStatus("example", "started: " + ` +
        `(event.reason === undefined ? "-" : event.reason)); });
}
`,
      {
        capabilities: ["commands", "tools", "event_hooks", "session_actions", "ui"],
        uiCapabilities: ["notify", "status"],
      },
    );
    try {
      assert.deepEqual(
        load.slice(1, -1).map((f) => JSON.stringify(f["registration"])),
        [
          '{"kind":"command","command":{"name":"greet","description":"Greets through a notification"}}',
          '{"kind":"tool","tool":{"name":"shout","label":"Shout","description":"Upper-cases ' +
            'text","parameters":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}}}',
          '{"kind":"command","command":{"name":"rename","description":"Renames the session"}}',
          '{"kind":"hook","hook":{"event":"session_start"}}',
        ],
      );
      h.send(invoke("req-2", { kind: "command", name: "greet", arguments: "hi there" }));
      assert.deepEqual(h.take()[0], {
        type: "request",
        id: "e1",
        request: { kind: "ui", ui: { request: { type: "notify", message: "hi there", level: "info" } } },
      });
      h.send(invoke("req-3", { kind: "tool", name: "shout", callId: "call-1", arguments: { text: "abc" } }));
      assert.deepEqual(h.take(), [ok("req-3", { content: [{ type: "text", text: "ABC" }] })]);
      h.send(invoke("req-4", { kind: "command", name: "rename", arguments: "" }));
      assert.deepEqual(h.take(), [
        {
          type: "request",
          id: "e2",
          request: { kind: "action", action: { kind: "set_session_name", name: "renamed" } },
        },
      ]);
      h.send(ok("e2", null));
      assert.deepEqual(h.take(), [ok("req-4", null)]);
      h.send(invoke("req-5", { kind: "hook", event: { name: "session_start", data: { reason: "startup" } } }));
      assert.deepEqual(h.take(), [
        {
          type: "request",
          id: "e3",
          request: { kind: "ui", ui: { request: { type: "status", key: "example", text: "started: startup" } } },
        },
        ok("req-5", null),
      ]);
    } finally {
      h.dispose();
    }
  },
);
