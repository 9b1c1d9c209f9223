// pi.registerTool inside QuickJS: invocation, updates, errors, cancellation and the frame limit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PreludeHarness, loaded, invoke, ok, err, ext, overLimit } from "./helpers/quickjs-harness.js";

const tools = { capabilities: ["tools"] };
const call = (id: string, name: string, args: object = {}): object =>
  invoke(id, { kind: "tool", name, callId: `call-${id}`, arguments: args });

test(
  "QJS-05: execute gets (toolCallId, params, signal, onUpdate, ctx) and its AgentToolResult is the success " + "answer",
  async () => {
    const { h, load } = await loaded(
      ext(
        `
    pi.registerTool({
      name: "echo", label: "Echo", description: "Echoes text",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      async execute(toolCallId, params, signal, onUpdate, ctx) {
        return {
          content: [{ type: "text", text: "echo:" + params.text }],
          details: { toolCallId, aborted: signal.aborted, same: signal === ctx.signal, onUpdate: typeof onUpdate, ` +
          `cwd: ctx.cwd, self: this.label },
          extra: "dropped",
        };
      },
    });`,
      ),
      tools,
    );
    try {
      assert.deepEqual(load.slice(1, -1), [
        {
          type: "register",
          registration: {
            kind: "tool",
            tool: {
              name: "echo",
              label: "Echo",
              description: "Echoes text",
              parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
            },
          },
        },
      ]);
      h.send(
        invoke(
          "req-2",
          { kind: "tool", name: "echo", callId: "call-1", arguments: { text: "London" } },
          { cwd: "/repo", mode: "tui", projectTrusted: true },
        ),
      );
      assert.deepEqual(h.take(), [
        ok("req-2", {
          content: [{ type: "text", text: "echo:London" }],
          details: {
            toolCallId: "call-1",
            aborted: false,
            same: true,
            onUpdate: "function",
            cwd: "/repo",
            self: "Echo",
          },
        }),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-05: the rpi `handler` shape is accepted; a string result is text content, undefined is empty; parameters " +
    "default to an empty object schema",
  async () => {
    const { h, load } = await loaded(
      ext(`
    pi.registerTool({ name: "hi", description: "Says hi", handler: async (_id, params) => "hi " + params.who });
    pi.registerTool({ name: "quiet", execute: async () => undefined });`),
      tools,
    );
    try {
      assert.deepEqual(load.slice(1, -1), [
        {
          type: "register",
          registration: {
            kind: "tool",
            tool: { name: "hi", description: "Says hi", parameters: { type: "object", properties: {} } },
          },
        },
        {
          type: "register",
          registration: {
            kind: "tool",
            tool: { name: "quiet", description: "", parameters: { type: "object", properties: {} } },
          },
        },
      ]);
      h.send(call("req-2", "hi", { who: "there" }));
      h.send(call("req-3", "quiet"));
      assert.deepEqual(h.take(), [
        ok("req-2", { content: [{ type: "text", text: "hi there" }] }),
        ok("req-3", { content: [] }),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test("QJS-13: onUpdate sends update frames with the request id before the answer; isError passes through", async () => {
  const { h } = await loaded(
    ext(`
    pi.registerTool({ name: "slow", description: "d", async execute(_id, _p, _s, onUpdate) {
      onUpdate({ content: [{ type: "text", text: "50%" }], details: { pct: 50 } });
      await null;
      onUpdate(undefined);
      return { content: [{ type: "text", text: "done" }], isError: true };
    } });`),
    tools,
  );
  try {
    h.send(call("req-2", "slow"));
    assert.deepEqual(h.take(), [
      { type: "update", id: "req-2", value: { content: [{ type: "text", text: "50%" }], details: { pct: 50 } } },
      { type: "update", id: "req-2", value: null },
      ok("req-2", { content: [{ type: "text", text: "done" }], isError: true }),
    ]);
  } finally {
    h.dispose();
  }
});

test(
  "QJS-13: a throw is an error answer with its message; a result that is not an AgentToolResult is an error " + "too",
  async () => {
    const { h } = await loaded(
      ext(`
    pi.registerTool({ name: "boom", description: "d", execute: async () => { throw new Error("city not found"); } });
    pi.registerTool({ name: "sync", description: "d", execute() { throw new RangeError("bad range"); } });
    pi.registerTool({ name: "num", description: "d", execute: async () => 42 });
    pi.registerTool({ name: "obj", description: "d", execute: async () => ({ text: "no content" }) });
    pi.registerTool({ name: "big", description: "d", execute: async () => ({ content: [], details: 10n }) });`),
      tools,
    );
    try {
      for (const [i, name] of ["boom", "sync", "num", "obj", "big"].entries()) h.send(call(`req-${i + 2}`, name));
      const frames = h.take();
      assert.deepEqual(frames.slice(0, 4), [
        err("req-2", "city not found"),
        err("req-3", "RangeError: bad range"),
        err("req-4", 'tool "num" returned a number; expected an AgentToolResult {content: [...], details?}'),
        err(
          "req-5",
          'tool "obj" returned an object without a content array; expected an AgentToolResult {content: [...], ' +
            "details?}",
        ),
      ]);
      assert.match(
        JSON.stringify(frames[4]),
        new RegExp(
          /^\{"type":"response","id":"req-6","result":\{"status":"error","error":\{"message":"the result of /.source +
            /tool \\"big\\" cannot be encoded as JSON: [^"]+"\}\}\}$/.source,
        ),
      );
      assert.equal(frames.length, 5);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-05, QJS-13: cancel aborts the handler's signal and answers cancelled at once; the late result is " + "dropped",
  async () => {
    const { h } = await loaded(
      ext(`
    pi.registerTool({ name: "wait", description: "d", execute: (_id, _p, signal) => new Promise((resolve) => {
      signal.addEventListener("abort", () => {
        globalThis.reason = signal.reason.name + ": " + signal.reason.message;
        setTimeout(() => resolve("too late"), 1);
      });
    }) });`),
      tools,
    );
    try {
      h.send(call("req-2", "wait"));
      assert.deepEqual(h.take(), []);
      h.send({ type: "cancel", id: "req-2" });
      assert.deepEqual(h.take(), [{ type: "response", id: "req-2", result: { status: "cancelled" } }]);
      assert.equal(h.evaluate("globalThis.reason"), "AbortError: the host cancelled the request");
      await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(h.take(), [], "the handler's late result is not sent");
      h.send({ type: "cancel", id: "req-2" });
      assert.deepEqual(h.take(), [], "a second cancel does nothing");
    } finally {
      h.dispose();
    }
  },
);

test("QJS-05: a cancel after the answer changes nothing", async () => {
  const { h } = await loaded(
    ext(
      `pi.registerTool({ name: "fast", description: "d", execute: async (_i, _p, signal) => { globalThis.signal = ` +
        `signal; return "ok"; } });`,
    ),
    tools,
  );
  try {
    h.send(call("req-2", "fast"));
    assert.deepEqual(h.take(), [ok("req-2", { content: [{ type: "text", text: "ok" }] })]);
    h.send({ type: "cancel", id: "req-2" });
    assert.deepEqual(h.take(), []);
    assert.equal(h.evaluate("globalThis.signal.aborted"), false);
  } finally {
    h.dispose();
  }
});

test(
  "QJS-18: a result over the frame limit is an error answer that says so, with the engine's message naming the " +
    "size and the limit",
  async () => {
    const { h } = await loaded(
      ext(`pi.registerTool({ name: "huge", description: "d", execute: async () => "x".repeat(10000) });`),
      { ...tools, maxFrameBytes: 4096 },
    );
    try {
      h.send(call("req-2", "huge"));
      const frame = {
        type: "response",
        id: "req-2",
        result: { status: "success", value: { content: [{ type: "text", text: "x".repeat(10000) }] } },
      };
      assert.deepEqual(h.take(), [err("req-2", overLimit('the result of tool "huge"', frame, 4096))]);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-18: an update over the frame limit ends the invocation with an error, aborts the signal and throws in the " +
    "handler",
  async () => {
    const { h } = await loaded(
      ext(
        `
    pi.registerTool({ name: "chatty", description: "d", async execute(_id, _p, signal, onUpdate) {
      try { onUpdate({ content: [{ type: "text", text: "y".repeat(10000) }] }); } catch (e) { globalThis.thrown = ` +
          `e.message; }
      globalThis.aborted = signal.aborted;
      return "finished anyway";
    } });`,
      ),
      { ...tools, maxFrameBytes: 4096 },
    );
    try {
      h.send(call("req-2", "chatty"));
      const problem = overLimit(
        'an update of tool "chatty"',
        { type: "update", id: "req-2", value: { content: [{ type: "text", text: "y".repeat(10000) }] } },
        4096,
      );
      assert.deepEqual(h.take(), [err("req-2", problem)]);
      assert.deepEqual(h.evaluate("[globalThis.thrown, globalThis.aborted]"), [problem, true]);
    } finally {
      h.dispose();
    }
  },
);

test("QJS-05: registerTool needs the tools capability, and malformed definitions throw clear errors", async () => {
  const h = await PreludeHarness.start(
    ext(`
    const why = [];
    const attempt = (f) => { try { f(); why.push("ok"); } catch (e) { why.push(e.name + ": " + e.message); } };
    attempt(() => pi.registerTool({ name: "t", description: "d", execute: async () => "" }));
    attempt(() => pi.registerCommand("c", { handler() {} }));
    attempt(() => pi.on("tool_call", () => {}));
    globalThis.why = why;`),
    { capabilities: [] },
  );
  try {
    h.handshake();
    assert.deepEqual(h.evaluate("globalThis.why"), [
      'Error: pi.registerTool needs the "tools" capability; add it to "capabilities" in pi-extension.json',
      'Error: pi.registerCommand needs the "commands" capability; add it to "capabilities" in pi-extension.json',
      'Error: pi.on needs the "event_hooks" capability; add it to "capabilities" in pi-extension.json',
    ]);
  } finally {
    h.dispose();
  }
  const m = await PreludeHarness.start(
    ext(
      `
    const why = [];
    for (const d of [undefined, { description: "d", execute() {} }, { name: "t" }, { name: "t", execute() {}, ` +
        `parameters: [] },
                     { name: "t", execute() {}, description: 3 }, { name: "t", execute() {}, label: {} }]) {
      try { pi.registerTool(d); why.push("ok"); } catch (e) { why.push(e.name + ": " + e.message); }
    }
    globalThis.why = why;`,
    ),
    tools,
  );
  try {
    m.handshake();
    assert.deepEqual(m.evaluate("globalThis.why"), [
      "TypeError: pi.registerTool takes a tool definition {name, label, description, parameters, execute}",
      "TypeError: pi.registerTool: name must be a non-empty string",
      'TypeError: pi.registerTool("t"): execute (or handler) must be a function',
      'TypeError: pi.registerTool("t"): parameters must be a JSON Schema object',
      'TypeError: pi.registerTool("t"): description must be a string',
      'TypeError: pi.registerTool("t"): label must be a string',
    ]);
  } finally {
    m.dispose();
  }
});
