// The invocation context, snapshot getters, session actions, ctx.ui and shutdown inside QuickJS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PreludeHarness, loaded, invoke, ok, ext, overLimit } from "./helpers/quickjs-harness.js";

const command = (id: string, name: string, context?: object, args = ""): object =>
  invoke(id, { kind: "command", name, arguments: args }, context);
const action = (id: string, body: object): object => ({
  type: "request",
  id,
  request: { kind: "action", action: body },
});
const ui = (id: string, request: object, timeoutMs?: number): object => ({
  type: "request",
  id,
  request: { kind: "ui", ui: timeoutMs === undefined ? { request } : { request, timeoutMs } },
});
const ALL_UI = ["select", "confirm", "input", "editor", "notify", "status", "widget", "title", "set_editor_text"];

test(
  "QJS-08: ctx carries cwd, mode, hasUI, trust, the model and the signal from the snapshot, else from the host " +
    "hello",
  async () => {
    const { h } = await loaded(
      ext(
        `
    pi.registerCommand("ctx", { handler: async (_args, ctx) => ({
      cwd: ctx.cwd, mode: ctx.mode, hasUI: ctx.hasUI, trusted: ctx.isProjectTrusted(), model: ctx.model === ` +
          `undefined ? "none" : ctx.model,
      aborted: ctx.signal.aborted,
    }) });`,
      ),
      { capabilities: ["commands"] },
    );
    try {
      h.send(
        command("req-2", "ctx", {
          cwd: "/repo",
          mode: "rpc",
          projectTrusted: false,
          model: { provider: "anthropic", id: "claude" },
        }),
      );
      h.send(command("req-3", "ctx"));
      assert.deepEqual(
        h.take(),
        [
          ok("req-2", {
            cwd: "/repo",
            mode: "rpc",
            hasUI: true,
            trusted: false,
            model: { provider: "anthropic", id: "claude" },
            aborted: false,
          }),
          ok("req-3", {
            cwd: "/repo",
            mode: "rpc",
            hasUI: true,
            trusted: false,
            model: { provider: "anthropic", id: "claude" },
            aborted: false,
          }),
        ],
        "without a new snapshot the latest one holds",
      );
      for (const [mode, hasUI] of [
        ["print", false],
        ["json", false],
        ["tui", true],
      ] as const) {
        h.send(command("req-4", "ctx", { cwd: "/repo", mode, projectTrusted: true }));
        assert.equal(
          (h.take()[0] as { result: { value: { hasUI: boolean } } } | undefined)?.result.value.hasUI,
          hasUI,
          mode,
        );
      }
    } finally {
      h.dispose();
    }
    const fresh = await loaded(
      ext(
        `pi.registerCommand("ctx", { handler: async (_a, ctx) => [ctx.cwd, ctx.mode, ctx.hasUI, ` +
          `ctx.isProjectTrusted(), ctx.model === undefined] });`,
      ),
      { capabilities: ["commands"] },
    );
    try {
      fresh.h.send(command("req-2", "ctx"));
      assert.deepEqual(
        fresh.h.take(),
        [ok("req-2", ["/work/project", "tui", true, true, true])],
        "no snapshot yet: the hello's values",
      );
    } finally {
      fresh.h.dispose();
    }
  },
);

test("QJS-09: the snapshot getters return the latest host snapshot without a round trip", async () => {
  const { h } = await loaded(
    ext(
      `
    globalThis.atLoad = [pi.getSessionName(), pi.getThinkingLevel(), pi.getActiveTools(), pi.getAllTools(), ` +
        `pi.getCommands()];
    pi.registerCommand("get", { handler: async () => {
      const active = pi.getActiveTools();
      active.push("mutated");
      return [pi.getSessionName(), pi.getThinkingLevel(), pi.getActiveTools(), pi.getAllTools(), pi.getCommands()];
    } });`,
    ),
    { capabilities: ["commands"] },
  );
  try {
    assert.deepEqual(h.evaluate("globalThis.atLoad"), [null, null, [], [], []], "undefined dumps as null");
    h.send(
      command("req-2", "get", {
        cwd: "/r",
        mode: "tui",
        projectTrusted: true,
        sessionName: "refactor",
        thinkingLevel: "high",
        activeTools: ["read", "bash"],
        allTools: ["read", "bash", "write"],
        commands: [{ name: "get", description: "d" }],
      }),
    );
    assert.deepEqual(h.take(), [
      ok("req-2", [
        "refactor",
        "high",
        ["read", "bash"],
        [
          { name: "read", description: "" },
          { name: "bash", description: "" },
          { name: "write", description: "" },
        ],
        [{ name: "get", description: "d" }],
      ]),
    ]);
  } finally {
    h.dispose();
  }
});

test(
  "QJS-10: with session_actions every action sends its catalog frame and resolves with the host's " + "answer",
  async () => {
    const { h } = await loaded(
      ext(
        `
    pi.registerCommand("act", { handler: async (_a, ctx) => Promise.all([
      pi.sendMessage({ customType: "note", content: "hi", display: true }, { triggerTurn: true, deliverAs: ` +
          `"followUp" }),
      pi.sendUserMessage("go on"),
      pi.appendEntry("state", { n: 1 }),
      pi.setSessionName("renamed"),
      pi.setLabel("entry-1", "checkpoint"),
      pi.setActiveTools(["read"]),
      pi.setModel({ provider: "anthropic", id: "claude" }),
      pi.setThinkingLevel("low"),
      ctx.abort(),
      ctx.shutdown(),
      ctx.compact({ customInstructions: "keep the plan" }),
      ctx.reload(),
      ctx.waitForIdle(),
    ]).then((values) => values.concat([pi.getSessionName(), pi.getActiveTools(), pi.getThinkingLevel()])) });`,
      ),
      { capabilities: ["commands", "session_actions"] },
    );
    try {
      h.send(command("req-2", "act"));
      assert.deepEqual(h.take(), [
        action("e1", {
          kind: "send_message",
          message: { customType: "note", content: "hi", display: true },
          options: { triggerTurn: true, deliverAs: "followUp" },
        }),
        action("e2", { kind: "send_user_message", content: "go on" }),
        action("e3", { kind: "append_entry", customType: "state", data: { n: 1 } }),
        action("e4", { kind: "set_session_name", name: "renamed" }),
        action("e5", { kind: "set_label", entryId: "entry-1", label: "checkpoint" }),
        action("e6", { kind: "set_active_tools", toolNames: ["read"] }),
        action("e7", { kind: "set_model", model: { provider: "anthropic", id: "claude" } }),
        action("e8", { kind: "set_thinking_level", level: "low" }),
        action("e9", { kind: "abort" }),
        action("e10", { kind: "shutdown" }),
        action("e11", { kind: "compact", customInstructions: "keep the plan" }),
        action("e12", { kind: "reload" }),
        action("e13", { kind: "wait_for_idle" }),
      ]);
      for (let i = 1; i <= 13; i++) h.send(ok(`e${i}`, i === 7 ? true : null));
      assert.deepEqual(h.take(), [
        ok("req-2", [
          null,
          null,
          null,
          null,
          null,
          null,
          true,
          null,
          null,
          null,
          null,
          null,
          null,
          "renamed",
          ["read"],
          "low",
        ]),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-10, RPI-39: an error answer rejects with the host's message and code; a cancelled action " + "rejects",
  async () => {
    const { h } = await loaded(
      ext(`
    pi.registerCommand("act", { handler: async () => {
      const out = [];
      for (const name of ["a", "b"]) {
        try { await pi.setSessionName(name); out.push("ok"); } catch (e) { out.push(e.message + " [" + e.code + "]"); }
      }
      return out.concat([pi.getSessionName() === undefined ? "unchanged" : pi.getSessionName()]);
    } });`),
      { capabilities: ["commands", "session_actions"] },
    );
    try {
      h.send(command("req-2", "act"));
      h.send({
        type: "response",
        id: "e1",
        result: { status: "error", error: { code: "denied", message: "the host cannot rename sessions" } },
      });
      h.send({ type: "response", id: "e2", result: { status: "cancelled" } });
      assert.deepEqual(h.take(), [
        action("e1", { kind: "set_session_name", name: "a" }),
        action("e2", { kind: "set_session_name", name: "b" }),
        ok("req-2", ["the host cannot rename sessions [denied]", "the request was cancelled [cancelled]", "unchanged"]),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test("RPI-39: without session_actions every action rejects naming the capability, and nothing is sent", async () => {
  const { h } = await loaded(
    ext(
      `
    pi.registerCommand("act", { handler: async (_a, ctx) => {
      const calls = [() => pi.sendMessage({}), () => pi.sendUserMessage("x"), () => pi.appendEntry("t"), () => ` +
        `pi.setSessionName("n"),
        () => pi.setLabel("e"), () => pi.setActiveTools([]), () => pi.setModel({}), () => pi.setThinkingLevel("low"),
        () => ctx.abort(), () => ctx.shutdown(), () => ctx.compact(), () => ctx.reload(), () => ctx.waitForIdle()];
      const out = [];
      for (const c of calls) { try { await c(); out.push("sent"); } catch (e) { out.push(e.message); } }
      return out;
    } });`,
    ),
    { capabilities: ["commands"] },
  );
  try {
    h.send(command("req-2", "act"));
    const names = [
      "pi.sendMessage",
      "pi.sendUserMessage",
      "pi.appendEntry",
      "pi.setSessionName",
      "pi.setLabel",
      "pi.setActiveTools",
      "pi.setModel",
      "pi.setThinkingLevel",
      "ctx.abort",
      "ctx.shutdown",
      "ctx.compact",
      "ctx.reload",
      "ctx.waitForIdle",
    ];
    assert.deepEqual(h.take(), [
      ok(
        "req-2",
        names.map((n) => `${n} needs the "session_actions" capability; add it to "capabilities" in pi-extension.json`),
      ),
    ]);
  } finally {
    h.dispose();
  }
});

test(
  "QJS-10: ctx.waitForIdle and ctx.reload belong to command handlers; from a tool they reject without a " + "frame",
  async () => {
    const { h } = await loaded(
      ext(
        `
    pi.registerTool({ name: "t", description: "d", execute: async (_i, _p, _s, _u, ctx) => {
      const out = [];
      for (const c of [() => ctx.waitForIdle(), () => ctx.reload()]) { try { await c(); } catch (e) { ` +
          `out.push(e.message); } }
      return out.join(" | ");
    } });`,
      ),
      { capabilities: ["tools", "session_actions"] },
    );
    try {
      h.send(invoke("req-2", { kind: "tool", name: "t", callId: "c", arguments: {} }));
      assert.deepEqual(h.take(), [
        ok("req-2", {
          content: [
            {
              type: "text",
              text:
                "ctx.waitForIdle is only available to command handlers (pi's ExtensionCommandContext) | ctx.reload " +
                "is only available to command handlers (pi's ExtensionCommandContext)",
            },
          ],
        }),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test("QJS-11: every UI method sends its catalog request and maps the host's answer to pi's return value", async () => {
  const { h } = await loaded(
    ext(`
    pi.registerCommand("ui", { handler: async (_a, ctx) => {
      const answers = Promise.all([
        ctx.ui.select("Pick", ["a", "b"], { timeout: 5000 }),
        ctx.ui.confirm("Sure?", "This deletes it"),
        ctx.ui.input("Name", "type here"),
        ctx.ui.editor("Edit", "draft"),
        ctx.ui.getEditorText(),
        ctx.ui.getAllThemes(),
        ctx.ui.getTheme("dark"),
        ctx.ui.setTheme("dark"),
        ctx.ui.getToolsExpanded(),
      ]);
      ctx.ui.notify("done", "warning");
      ctx.ui.notify("plain");
      ctx.ui.setStatus("k", "busy");
      ctx.ui.setStatus("k", undefined);
      ctx.ui.setWidget("w", ["line 1", "line 2"]);
      ctx.ui.setWidget("w", undefined);
      ctx.ui.setTitle("octet");
      ctx.ui.setEditorText("hello");
      return (await answers).concat([ctx.ui.theme.fg("accent", "plain text"), ctx.ui.theme.bold("b")]);
    } });`),
    { capabilities: ["commands", "ui"], uiCapabilities: ALL_UI },
  );
  try {
    h.send(command("req-2", "ui"));
    assert.deepEqual(h.take(), [
      ui("e1", { type: "select", title: "Pick", options: ["a", "b"] }, 5000),
      ui("e2", { type: "confirm", title: "Sure?", message: "This deletes it" }),
      ui("e3", { type: "input", title: "Name", placeholder: "type here" }),
      ui("e4", { type: "editor", title: "Edit", prefill: "draft" }),
      ui("e5", { type: "get_editor_text" }),
      ui("e6", { type: "get_all_themes" }),
      ui("e7", { type: "get_theme", name: "dark" }),
      ui("e8", { type: "set_theme", name: "dark" }),
      ui("e9", { type: "get_tools_expanded" }),
      ui("e10", { type: "notify", message: "done", level: "warning" }),
      ui("e11", { type: "notify", message: "plain", level: "info" }),
      ui("e12", { type: "status", key: "k", text: "busy" }),
      ui("e13", { type: "status", key: "k" }),
      ui("e14", { type: "widget", key: "w", lines: ["line 1", "line 2"] }),
      ui("e15", { type: "widget", key: "w" }),
      ui("e16", { type: "title", title: "octet" }),
      ui("e17", { type: "set_editor_text", text: "hello" }),
    ]);
    const answers = [
      { value: "b" },
      { confirmed: true },
      { value: "Ada" },
      { value: null },
      { value: "draft text" },
      { themes: [{ name: "dark" }, { name: "light" }] },
      { theme: { name: "dark" } },
      { success: false, error: "read-only" },
      { expanded: true },
    ];
    answers.forEach((value, i) => h.send(ok(`e${i + 1}`, value)));
    assert.deepEqual(h.take(), [
      ok("req-2", [
        "b",
        true,
        "Ada",
        null,
        "draft text",
        [{ name: "dark" }, { name: "light" }],
        { name: "dark" },
        { success: false, error: "read-only" },
        true,
        "plain text",
        "b",
      ]),
    ]);
  } finally {
    h.dispose();
  }
});

test(
  "QJS-11: a cancelled dialog resolves as a dismissed one; opts.signal and a host cancel of the invocation " +
    "withdraw open dialogs",
  async () => {
    const { h } = await loaded(
      ext(
        `
    pi.registerCommand("ask", { handler: async (_a, ctx) => {
      const c = new AbortController();
      const dismissed = ctx.ui.select("Pick", ["a"], { signal: c.signal });
      c.abort();
      return [await dismissed, await ctx.ui.confirm("Sure?", "m"), await ctx.ui.input("Name")];
    } });
    pi.registerCommand("hang", { handler: async (_a, ctx) => { globalThis.hung = await ctx.ui.confirm("Wait?", "m"); ` +
          `return "late"; } });`,
      ),
      { capabilities: ["commands", "ui"], uiCapabilities: ALL_UI },
    );
    try {
      h.send(command("req-2", "ask"));
      assert.deepEqual(h.take(), [
        ui("e1", { type: "select", title: "Pick", options: ["a"] }),
        { type: "cancel", id: "e1" },
        ui("e2", { type: "confirm", title: "Sure?", message: "m" }),
      ]);
      h.send({ type: "response", id: "e2", result: { status: "cancelled" } });
      h.send({ type: "response", id: "e3", result: { status: "cancelled" } });
      assert.deepEqual(h.take(), [ui("e3", { type: "input", title: "Name" }), ok("req-2", [null, false, null])]);
      h.send(command("req-3", "hang"));
      assert.deepEqual(h.take(), [ui("e4", { type: "confirm", title: "Wait?", message: "m" })]);
      h.send({ type: "cancel", id: "req-3" });
      assert.deepEqual(h.take(), [
        { type: "response", id: "req-3", result: { status: "cancelled" } },
        { type: "cancel", id: "e4" },
      ]);
      assert.equal(h.evaluate("globalThis.hung"), false);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-12: each UI method needs `ui` and its grant; synchronous ones throw, the others reject, naming what is " +
    "missing, and nothing is sent",
  async () => {
    const source = ext(
      `
    pi.registerCommand("ui", { handler: async (_a, ctx) => {
      const out = [];
      const sync = { notify: () => ctx.ui.notify("m"), setStatus: () => ctx.ui.setStatus("k", "t"), setWidget: () => ` +
        `ctx.ui.setWidget("w", []),
        setTitle: () => ctx.ui.setTitle("t"), setEditorText: () => ctx.ui.setEditorText("t") };
      for (const [name, c] of Object.entries(sync)) { try { c(); out.push(name + " sent"); } catch (e) { ` +
        `out.push("throws " + e.message); } }
      const async = { select: () => ctx.ui.select("t", ["a"]), confirm: () => ctx.ui.confirm("t", "m"), input: () => ` +
        `ctx.ui.input("t"),
        editor: () => ctx.ui.editor("t"), getEditorText: () => ctx.ui.getEditorText(), getToolsExpanded: () => ` +
        `ctx.ui.getToolsExpanded() };
      for (const [name, c] of Object.entries(async)) {
        const p = c();
        try { await p; out.push(name + " sent"); } catch (e) { out.push("rejects " + e.message); }
      }
      return out;
    } });`,
    );
    const grant = (m: string, g: string): string =>
      `ctx.ui.${m} needs the "${g}" uiCapability; add it to "uiCapabilities" in pi-extension.json`;
    const noUi = (m: string): string =>
      `ctx.ui.${m} needs the "ui" capability; add it to "capabilities" in pi-extension.json`;
    const granted = await loaded(source, { capabilities: ["commands", "ui"], uiCapabilities: [] });
    try {
      granted.h.send(command("req-2", "ui"));
      assert.deepEqual(granted.h.take(), [ui("e1", { type: "get_editor_text" })], "the query methods need `ui` only");
      granted.h.send(ok("e1", { value: "x" }));
      assert.deepEqual(granted.h.take(), [ui("e2", { type: "get_tools_expanded" })]);
      granted.h.send(ok("e2", { expanded: false }));
      assert.deepEqual(granted.h.take(), [
        ok("req-2", [
          `throws ${grant("notify", "notify")}`,
          `throws ${grant("setStatus", "status")}`,
          `throws ${grant("setWidget", "widget")}`,
          `throws ${grant("setTitle", "title")}`,
          `throws ${grant("setEditorText", "set_editor_text")}`,
          `rejects ${grant("select", "select")}`,
          `rejects ${grant("confirm", "confirm")}`,
          `rejects ${grant("input", "input")}`,
          `rejects ${grant("editor", "editor")}`,
          "getEditorText sent",
          "getToolsExpanded sent",
        ]),
      ]);
    } finally {
      granted.h.dispose();
    }
    const bare = await loaded(source, { capabilities: ["commands"], uiCapabilities: ALL_UI });
    try {
      bare.h.send(command("req-2", "ui"));
      assert.deepEqual(bare.h.take(), [
        ok("req-2", [
          ...["notify", "setStatus", "setWidget", "setTitle", "setEditorText"].map((m) => `throws ${noUi(m)}`),
          ...["select", "confirm", "input", "editor", "getEditorText", "getToolsExpanded"].map(
            (m) => `rejects ${noUi(m)}`,
          ),
        ]),
      ]);
    } finally {
      bare.h.dispose();
    }
  },
);

test(
  "QJS-11, QJS-18: setWidget takes string arrays only; a UI request over the frame limit throws, saying " + "so",
  async () => {
    const { h } = await loaded(
      ext(
        `
    pi.registerCommand("w", { handler: async (_a, ctx) => {
      const out = [];
      for (const c of [() => ctx.ui.setWidget("w", () => ({})), () => ctx.ui.notify("z".repeat(10000)), () => ` +
          `ctx.ui.custom(() => ({}))]) {
        try { c(); out.push("sent"); } catch (e) { out.push(e.name + ": " + e.message); }
      }
      return out;
    } });`,
      ),
      { capabilities: ["commands", "ui"], uiCapabilities: ALL_UI, maxFrameBytes: 4096 },
    );
    try {
      h.send(command("req-2", "w"));
      assert.deepEqual(h.take(), [
        ok("req-2", [
          "TypeError: ctx.ui.setWidget takes an array of strings (component factories cannot cross the extension " +
            "protocol)",
          "Error: " +
            overLimit(
              "ctx.ui.notify's request",
              {
                type: "request",
                id: "e1",
                request: {
                  kind: "ui",
                  ui: { request: { type: "notify", message: "z".repeat(10000), level: "info" } },
                  parentId: "req-2",
                },
              },
              4096,
            ),
          "Error: ctx.ui.custom is not available to QuickJS extensions: components cannot cross the extension protocol",
        ]),
      ]);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-13: shutdown aborts every in-flight signal, rejects open requests, clears timers and stops " + "answering",
  async () => {
    const { h } = await loaded(
      ext(`
    pi.registerTool({ name: "wait", description: "d", execute: (_i, _p, signal) => new Promise((resolve) => {
      signal.addEventListener("abort", () => { globalThis.reason = signal.reason.message; resolve("after shutdown"); });
    }) });
    pi.registerCommand("rename", { handler: async () => {
      setTimeout(() => { globalThis.timerRan = true; }, 20);
      try { await pi.setSessionName("x"); } catch (e) { globalThis.rejected = e.message; }
      return "renamed";
    } });`),
      { capabilities: ["tools", "commands", "session_actions"] },
    );
    try {
      h.send(invoke("req-2", { kind: "tool", name: "wait", callId: "c", arguments: {} }));
      h.send(command("req-3", "rename"));
      assert.deepEqual(h.take(), [action("e1", { kind: "set_session_name", name: "x" })]);
      assert.equal(h.pendingTimers, 1);
      h.send({ type: "shutdown", reason: "session ended" });
      assert.deepEqual(h.take(), [], "nothing is answered after shutdown");
      assert.equal(h.pendingTimers, 0);
      assert.deepEqual(h.evaluate("[globalThis.reason, globalThis.rejected]"), [
        "the extension is shutting down",
        "the extension is shutting down",
      ]);
      h.send(invoke("req-4", { kind: "tool", name: "wait", callId: "c", arguments: {} }));
      h.send(ok("e1", null));
      await new Promise((resolve) => setTimeout(resolve, 30));
      assert.deepEqual(h.take(), []);
      assert.equal(h.evaluate("globalThis.timerRan"), undefined);
    } finally {
      h.dispose();
    }
  },
);

test(
  "QJS-03: other pi methods: flags and shortcuts are registrations (getFlag reads the hello's flags as pi " +
    "does), renderers/providers/exec refuse clearly",
  async () => {
    const h = await PreludeHarness.start(
      ext(`
    pi.registerFlag("verbose", { type: "boolean", default: false });
    pi.registerFlag("preset", { type: "string", default: "none" });
    pi.registerFlag("mode", { type: "string", default: "plain" });
    pi.registerShortcut("ctrl+x", { description: "Cut", handler(ctx) { return "x in " + ctx.cwd; } });
    pi.registerShortcut("ctrl+y", { handler() {} });
    pi.registerShortcut("ctrl+y", { handler() { return "second"; } });
    const out = [pi.getFlag("verbose"), pi.getFlag("preset"), pi.getFlag("mode"),
      pi.getFlag("unregistered") === undefined];
    for (const c of [() => pi.registerEntryRenderer("t", () => null), () => pi.registerProvider("p", {})]) {
      try { c(); out.push("ok"); } catch (e) { out.push(e.message); }
    }
    pi.exec("ls", []).catch((e) => { out.push(e.message); });
    globalThis.out = out;`),
      { capabilities: ["commands"] },
    );
    try {
      const flag = (name: string) => ({ type: "register", registration: { kind: "flag", flag: { name } } });
      assert.deepEqual(
        h.handshake({ flags: { verbose: "yes", preset: "fast", mode: true, unregistered: "x" } }).slice(1),
        [
          flag("verbose"),
          flag("preset"),
          flag("mode"),
          { type: "register", registration: { kind: "shortcut", shortcut: { key: "ctrl+x", description: "Cut" } } },
          { type: "register", registration: { kind: "shortcut", shortcut: { key: "ctrl+y" } } },
          ok("req-1", {}),
        ],
      );
      assert.deepEqual(h.evaluate("globalThis.out"), [
        true, // a boolean flag given any value is true (pi)
        "fast",
        "plain", // a string flag given without a value keeps its default
        true, // undefined: pi gives only the flags this extension registered
        "pi.registerEntryRenderer is not available to QuickJS extensions: renderers cannot cross the extension " +
          "protocol",
        'pi.registerProvider needs the "provider_metadata" capability, which QuickJS extensions cannot have; run ' +
          'the extension in the node runtime ("runtime": "node", or octet --pi-runtime node)',
        "pi.exec is not available: QuickJS extensions have no process access",
      ]);
      h.send({
        type: "request",
        id: "req-2",
        generation: 1,
        request: { kind: "invoke", invocation: { kind: "shortcut", key: "ctrl+x" } },
      });
      h.send({
        type: "request",
        id: "req-3",
        generation: 1,
        request: { kind: "invoke", invocation: { kind: "shortcut", key: "ctrl+y" } },
      });
      h.send({
        type: "request",
        id: "req-4",
        generation: 1,
        request: { kind: "invoke", invocation: { kind: "shortcut", key: "f9" } },
      });
      assert.deepEqual(
        h.take().filter((f) => f.type === "response"),
        [
          ok("req-2", "x in /work/project"),
          ok("req-3", "second"),
          { type: "response", id: "req-4", result: { status: "error", error: { message: 'unknown shortcut "f9"' } } },
        ],
      );
    } finally {
      h.dispose();
    }
  },
);

test("pi registerProvider: its data is a load registration; streamSimple is refused, oauth left out", async () => {
  const h = await PreludeHarness.start(
    ext(`
    const models = [{ id: "m1", contextWindow: 1000, maxTokens: 100 }];
    pi.registerProvider("proxy", { name: "Proxy", baseUrl: "http://127.0.0.1:9", apiKey: "PROXY_KEY",
      api: "openai-completions", headers: { "x-team": "a" }, authHeader: true, models, other: 1 });
    pi.registerProvider("sso", { baseUrl: "http://sso", api: "openai-responses", apiKey: "K", models,
      oauth: { name: "SSO", login: async () => ({}) } });
    pi.registerProvider("gone", { baseUrl: "http://gone" });
    pi.unregisterProvider("gone");
    const out = [];
    try { pi.registerProvider("stream", { api: "custom", streamSimple: () => {} }); } catch (e) { out.push(e.message); }
    globalThis.out = out;`),
    { capabilities: ["provider_metadata"] },
  );
  try {
    const provider = (name: string, config: Record<string, unknown>) => ({
      type: "register",
      registration: { kind: "provider", provider: { name, config } },
    });
    const models = [{ id: "m1", contextWindow: 1000, maxTokens: 100 }];
    assert.deepEqual(h.handshake().slice(1), [
      {
        type: "log",
        level: "warning",
        message:
          'pi.registerProvider("sso"): oauth (login callbacks) cannot cross the extension protocol and is left out; ' +
          "the provider uses apiKey",
      },
      provider("proxy", {
        name: "Proxy",
        baseUrl: "http://127.0.0.1:9",
        api: "openai-completions",
        apiKey: "PROXY_KEY",
        headers: { "x-team": "a" },
        authHeader: true,
        models,
      }),
      provider("sso", { baseUrl: "http://sso", api: "openai-responses", apiKey: "K", models }),
      ok("req-1", {}),
    ]);
    assert.deepEqual(h.evaluate("globalThis.out"), [
      'pi.registerProvider("stream"): streamSimple is code and cannot cross the extension protocol; only data can ' +
        "(baseUrl, api, apiKey, headers, authHeader, models): name an api pi-ai streams",
    ]);
  } finally {
    h.dispose();
  }
});

test("QJS-08, QJS-09: an invocation sent without a context reads the last snapshot the prelude was sent", async () => {
  // The host leaves an unchanged context out of the QuickJS and Node runtimes' frames
  // (RpiConnectionOptions.contextOnChange): ctx and the getters must read the one sent before.
  const { h } = await loaded(
    ext(
      `
    pi.registerCommand("get", { handler: async (_a, ctx) => [ctx.cwd, ctx.mode, pi.getSessionName(), ` +
        `pi.getActiveTools()] });`,
    ),
    { capabilities: ["commands"] },
  );
  try {
    const context = { cwd: "/r", mode: "tui", projectTrusted: true, sessionName: "one", activeTools: ["read"] };
    h.send(command("req-2", "get", context));
    h.send(command("req-3", "get"));
    h.send(command("req-4", "get", { ...context, sessionName: "two" }));
    h.send(command("req-5", "get"));
    assert.deepEqual(h.take(), [
      ok("req-2", ["/r", "tui", "one", ["read"]]),
      ok("req-3", ["/r", "tui", "one", ["read"]]),
      ok("req-4", ["/r", "tui", "two", ["read"]]),
      ok("req-5", ["/r", "tui", "two", ["read"]]),
    ]);
  } finally {
    h.dispose();
  }
});
