/**
 * API 0.2 results against real processes: content parts, media without artifacts, output_schema
 * validation of structured_content, detail bounds, error replies; renderer and hook failures that
 * fall back without harming the generation.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { withRuntime, type Runtime } from "./runtime-helpers.js";

const text = (t: string): { type: "text"; text: string } => ({ type: "text", text: t });

/** Calls `tool` answering `result`; expects a tool error whose text and diagnostic match `pattern`. */
async function refused(rt: Runtime, tool: string, result: unknown, pattern: RegExp): Promise<void> {
  const before = rt.diagnostics().length;
  const outcome = await rt.host.callTool(tool, { result });
  assert.equal(outcome.is_error, true, `refused: ${JSON.stringify(result).slice(0, 80)}`);
  assert.match(outcome.text, new RegExp(`^Tool ${tool} returned an invalid result: .*${pattern.source}`));
  const diag = rt
    .diagnostics()
    .slice(before)
    .find((m) => /invalid tool\/call result/.test(m));
  assert.ok(diag && pattern.test(diag), `a diagnostic matching ${pattern}`);
  assert.ok(Buffer.byteLength(diag) <= 4096, "the diagnostic is bounded");
}

test(
  "CALL-15, CALL-16, CALL-17, CALL-23: content is 1..256 parts of text, image or audio with at least one text part; " +
    "anything else is a tool error",
  async () => {
    await withRuntime([{ name: "res" }], {}, async (rt) => {
      const parts = Array.from({ length: 256 }, (_, i) => text(`p${i}`));
      const ok = await rt.host.callTool("result", { result: { content: parts, is_error: false } });
      assert.equal(ok.is_error, false);
      assert.equal(ok.parts.length, 256);
      assert.equal(ok.text, parts.map((p) => p.text).join("\n"));
      await refused(rt, "result", { content: [...parts, text("one more")], is_error: false }, /257 parts|over the 256/);
      await refused(rt, "result", { content: [], is_error: false }, /must not be empty/);
      await refused(
        rt,
        "result",
        { content: [{ type: "image", artifact_id: "a-1", mime_type: "image/png" }] },
        /no text part/,
      );
      await refused(
        rt,
        "result",
        { content: [text("x"), { type: "video", artifact_id: "v", mime_type: "video/mp4" }] },
        /video/,
      );
      await refused(rt, "result", { content: "a plain string is API 0.1" }, /content/);
      assert.equal(rt.host.status()[0]!.state, "ready", "invalid results do not harm the generation");
    });
  },
);

test("CALL-18: an image or audio part without a negotiated artifacts feature is refused", async () => {
  await withRuntime([{ name: "res" }], {}, async (rt) => {
    await refused(
      rt,
      "result",
      {
        content: [text("see picture"), { type: "image", artifact_id: "artifact-1", mime_type: "image/png", alt: "x" }],
      },
      /"image" needs the artifacts feature/,
    );
    await refused(
      rt,
      "result",
      { content: [text("listen"), { type: "audio", artifact_id: "artifact-2", mime_type: "audio/wav" }] },
      /"audio" needs the artifacts feature/,
    );
  });
});

test(
  "CALL-13, CALL-20, CALL-22: structured_content is required and checked against output_schema, forbidden without " +
    "one, and kept beside the text",
  async () => {
    await withRuntime([{ name: "res" }], {}, async (rt) => {
      const good = await rt.host.callTool("typed", {
        result: {
          content: [text("3 items")],
          structured_content: { count: 3 },
          metadata: { cache: "miss" },
          is_error: false,
        },
      });
      assert.equal(good.is_error, false);
      assert.deepEqual(good.structured_content, { count: 3 });
      assert.deepEqual(good.metadata, { cache: "miss" });
      assert.equal(good.text, "3 items", "neither structured content nor metadata is in the text");
      await refused(
        rt,
        "typed",
        { content: [text("bad")], structured_content: { count: -1 } },
        /structured_content\.count: must be >= 0/,
      );
      await refused(
        rt,
        "typed",
        { content: [text("bad")], structured_content: { count: 1, extra: true } },
        /structured_content: must not have property "extra"/,
      );
      await refused(rt, "typed", { content: [text("none")] }, /missing; tool "typed" declares an output_schema/);
      await refused(
        rt,
        "result",
        { content: [text("stray")], structured_content: { count: 1 } },
        /not allowed; tool "result" declares no output_schema/,
      );
      const failed = await rt.host.callTool("result", { result: { content: [text("it broke")], is_error: true } });
      assert.equal(failed.is_error, true);
      assert.equal(failed.text, "it broke", "an explicit tool error passes through as it is");
    });
  },
);

test(
  "CALL-21: metadata is bounded to 64 KiB (at the limit accepted), structured content to 256 KiB, both to 32 " +
    "levels; metadata keys to 256 bytes",
  async () => {
    await withRuntime([{ name: "res" }], {}, async (rt) => {
      const atLimit = { m: "x".repeat(65_536 - '{"m":""}'.length) };
      assert.equal(Buffer.byteLength(JSON.stringify(atLimit)), 65_536);
      assert.equal(
        (await rt.host.callTool("result", { result: { content: [text("ok")], metadata: atLimit } })).is_error,
        false,
      );
      await refused(rt, "result", { content: [text("big")], metadata: { m: atLimit.m + "x" } }, /65536-byte limit/);
      await refused(
        rt,
        "typed",
        { content: [text("big")], structured_content: { count: 1, pad: "x".repeat(262_144) } },
        /262144-byte limit/,
      );
      let deep: unknown = 1;
      for (let i = 0; i < 33; i++) deep = { d: deep };
      await refused(rt, "result", { content: [text("deep")], metadata: deep }, /32/);
      await refused(rt, "result", { content: [text("key")], metadata: { ["k".repeat(257)]: 1 } }, /256/);
    });
  },
);

test(
  "CALL-23: a JSON-RPC error reply to tool/call becomes a short tool error; the generation and later calls are " +
    "unaffected",
  async () => {
    await withRuntime([{ name: "res" }], {}, async ({ host }) => {
      const outcome = await host.callTool("result", { error: { code: -32001, message: "the backend is down" } });
      assert.equal(outcome.is_error, true);
      assert.equal(outcome.text, "Tool result failed: the backend is down (code -32001)");
      assert.equal(host.status()[0]!.state, "ready");
      assert.equal((await host.callTool("echo", { again: 1 })).text, '{"again":1}');
    });
  },
);

test(
  "REND-03: a renderer that fails, answers invalid segments or times out falls back: renderTool returns null with a " +
    "diagnostic",
  async () => {
    const spec = { name: "rend", contributes: 'tool_renderers = ["echo"]' };
    await withRuntime(
      [spec],
      { timeouts: { collectMs: 300 } },
      async ({ host, diagnostics, received, waitReceived }) => {
        const input = { name: "echo", arguments: {}, output: "plain output", isError: false };
        assert.deepEqual(await host.renderTool(input), [{ text: "rendered echo", style_role: null }]);
        for (const [mode, pattern] of [
          ["error", /tool\/render failed: renderer failed as asked/],
          ["invalid", /tool\/render failed: invalid tool\/render result/],
          ["hang", /tool\/render failed: .*no response within 300 ms/],
        ] as const) {
          await host.callTool("set_render", { render: mode });
          assert.equal(await host.renderTool(input), null, mode);
          assert.ok(
            diagnostics("rend").some((m) => pattern.test(m)),
            `diagnosed: ${mode}`,
          );
        }
        const render = received("rend", "tool/render").at(-1)!;
        const cancel = await waitReceived(
          "rend",
          (m) => m.method === "$/cancelRequest",
          "the cancellation of the timed-out render",
        );
        assert.deepEqual(cancel.params, { id: render.id, reason: "timeout" });
        assert.equal(host.status()[0]!.state, "ready");
      },
    );
  },
);

test(
  "HOOK-08, HOOK-09, HOOK-10: a failing hook counts as continue with a diagnostic; typed API 0.2 hooks are accepted " +
    "but shown unsupported",
  async () => {
    const spec = {
      name: "hooks",
      contributes: 'hooks = ["before_prompt", "provider_retry", "post_mutation"]',
      config: { hook: "error" },
    };
    await withRuntime([spec], {}, async ({ host, diagnostics, received }) => {
      const outcome = await host.runHook("before_prompt", { prompt: "hi" });
      assert.deepEqual(outcome, { denied: null, context: [], notifications: [] });
      assert.ok(diagnostics("hooks").some((m) => /hook before_prompt failed: .*hook failed as asked/.test(m)));
      const s = host.status()[0]!;
      assert.equal(s.state, "ready");
      assert.deepEqual(s.unsupportedHooks, ["provider_retry", "post_mutation"]);
      assert.deepEqual(
        received("hooks", "hook/run").map((m) => m.params.hook),
        ["before_prompt"],
        "typed hooks are never dispatched",
      );
    });
  },
);
