// The ctx a handler gets inside QuickJS is shaped like pi's (a plain object whose members are its
// own): its methods are made on first read but keep every way pi's extensions use them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loaded, invoke, ok, ext } from "./helpers/quickjs-harness.js";

test("QJS-05: ctx members are its own, work detached, through a spread and through pi's descriptor copy", async () => {
  const { h } = await loaded(
    ext(`
    let first = null;
    pi.registerTool({
      name: "probe", description: "Reads ctx every way",
      async execute(_id, _params, _signal, _onUpdate, ctx) {
        const keys = Object.keys(ctx).sort();
        const before = Object.getOwnPropertyDescriptor(ctx, "abort");
        const abort = ctx.abort;
        const after = Object.getOwnPropertyDescriptor(ctx, "abort");
        const { isProjectTrusted, getContextUsage } = ctx;
        const copied = Object.defineProperties({}, Object.getOwnPropertyDescriptors(ctx));
        const spread = { ...ctx };
        ctx.ui = "replaced";
        const same = first === null ? null : first === ctx.isProjectTrusted;
        if (first === null) first = ctx.isProjectTrusted;
        return { content: [], details: {
          keys,
          detached: isProjectTrusted(),
          usage: getContextUsage() === undefined,
          spread: typeof spread.abort === "function" && spread.isProjectTrusted() === true && spread.cwd === "/repo",
          copied: typeof copied.shutdown === "function" && copied.isProjectTrusted() === true && copied.mode === "tui",
          lazy: typeof before.get === "function" && abort === after.value && after.writable === true,
          ui: ctx.ui,
          same,
          model: ctx.model === undefined,
        } };
      },
    });`),
    { capabilities: ["tools"] },
  );
  try {
    const call = (id: string) =>
      invoke(
        id,
        { kind: "tool", name: "probe", callId: `call-${id}`, arguments: {} },
        {
          cwd: "/repo",
          mode: "tui",
          projectTrusted: true,
        },
      );
    h.send(call("req-2"));
    h.send(call("req-3"));
    const answers = h.take();
    const details = (answers as unknown as { result: { value: { details: Record<string, unknown> } } }[]).map(
      (a) => a.result.value.details,
    );
    assert.deepEqual(details[0], {
      keys: [
        "abort",
        "compact",
        "cwd",
        "fork",
        "getContextUsage",
        "getSystemPrompt",
        "hasPendingMessages",
        "hasUI",
        "isIdle",
        "isProjectTrusted",
        "mode",
        "model",
        "modelRegistry",
        "navigateTree",
        "newSession",
        "reload",
        "sessionManager",
        "shutdown",
        "signal",
        "switchSession",
        "ui",
        "waitForIdle",
      ],
      detached: true,
      usage: true,
      spread: true,
      copied: true,
      lazy: true,
      ui: "replaced",
      same: null,
      model: true,
    });
    // Each invocation's methods are its own, bound to its request.
    assert.equal(details[1]!["same"], false);
    assert.deepEqual(answers[0], ok("req-2", { content: [], details: details[0] }));
  } finally {
    h.dispose();
  }
});

test("QJS-05: a ctx deep-frozen, sealed or copied by its string keys keeps the call answered, says why", async () => {
  const { h } = await loaded(
    ext(`
    const deepFreeze = (o) => {
      for (const k of Reflect.ownKeys(o)) {
        const v = Object.getOwnPropertyDescriptor(o, k).value;
        if (v !== null && (typeof v === "object" || typeof v === "function")) deepFreeze(v);
      }
      return Object.freeze(o);
    };
    pi.registerTool({
      name: "frozen", description: "Freezes its ctx",
      async execute(_id, _params, _signal, _onUpdate, ctx) {
        const slot = Object.getOwnPropertySymbols(ctx).map((k) => Reflect.ownKeys(ctx[k]).length);
        deepFreeze(ctx);
        let refused = "";
        try { ctx.abort = () => 1; } catch (e) { refused = e.name + ": " + e.message; }
        return { content: [], details: { slot, refused, stable: ctx.abort === ctx.abort, name: ctx.abort.name } };
      },
    });
    pi.registerTool({
      name: "sealed", description: "Seals its ctx",
      async execute(_id, _params, _signal, _onUpdate, ctx) {
        Object.seal(ctx);
        const mine = () => "mine";
        ctx.shutdown = mine;
        const copy = {};
        for (const k of Object.keys(ctx)) Object.defineProperty(copy, k, Object.getOwnPropertyDescriptor(ctx, k));
        let detached = "";
        try { copy.reload; } catch (e) { detached = e.name + ": " + e.message; }
        return { content: [], details: { kept: ctx.shutdown === mine, stable: ctx.fork === ctx.fork, detached } };
      },
    });`),
    { capabilities: ["tools"] },
  );
  try {
    const call = (id: string, name: string) =>
      invoke(id, { kind: "tool", name, callId: `call-${id}`, arguments: {} }, { cwd: "/repo", mode: "tui" });
    h.send(call("req-2", "frozen"));
    h.send(call("req-3", "sealed"));
    assert.deepEqual(h.take(), [
      ok("req-2", {
        content: [],
        details: {
          slot: [0],
          refused: "TypeError: ctx.abort is read-only: the ctx is frozen",
          stable: true,
          name: "abort",
        },
      }),
      ok("req-3", {
        content: [],
        details: {
          kept: true,
          stable: true,
          detached:
            "TypeError: ctx.reload was read from an object that is not a handler's ctx (copy a ctx with its symbol " +
            "members, as Object.getOwnPropertyDescriptors does)",
        },
      }),
    ]);
  } finally {
    h.dispose();
  }
});
