/**
 * $/progress against real processes: only negotiated, only for the active request, strictly
 * rising sequences, output cut to 8 KiB chunks, decoration and partial results only where
 * negotiated, and never part of the result.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ProgressEvent } from "@octet/protocol";
import { REQUIRED, withRuntime } from "./runtime-helpers.js";

const PROGRESS = [...REQUIRED, "request_progress"];
const DECORATED = [...PROGRESS, "progress_decoration"];

function status(
  sequence: number,
  message: string,
  extra: Record<string, unknown> = {},
): { sequence: number; event: Record<string, unknown> } {
  return { sequence, event: { type: "status", message, ...extra } };
}

async function collect(
  host: {
    callTool: (
      n: string,
      a: Record<string, unknown>,
      o: { onProgress: (e: ProgressEvent) => void },
    ) => Promise<{ text: string; parts: unknown[] }>;
  },
  args: Record<string, unknown>,
  tool = "progress",
): Promise<{ events: ProgressEvent[]; text: string; parts: unknown[] }> {
  const events: ProgressEvent[] = [];
  const r = await host.callTool(tool, args, { onProgress: (e) => events.push(e) });
  return { events, text: r.text, parts: r.parts };
}

test(
  "PROG-02, PROG-05, PROG-08: status progress reaches the caller's onProgress in order, exactly, and never the " +
    "result",
  async () => {
    await withRuntime([{ name: "prog" }], {}, async ({ host }) => {
      const steps = [
        status(1, "Fetched 3 of 10", { current: 3, total: 10, unit: "results", extra: "dropped" }),
        status(2, "Fetched 10 of 10", { current: 10, total: 10 }),
      ];
      const { events, text, parts } = await collect(host, { steps });
      assert.deepEqual(events, [
        { type: "status", message: "Fetched 3 of 10", current: 3, total: 10, unit: "results" },
        { type: "status", message: "Fetched 10 of 10", current: 10, total: 10 },
      ]);
      assert.equal(text, "done");
      assert.deepEqual(parts, [{ type: "text", text: "done" }], "progress is not part of the result");
    });
  },
);

test("PROG-03: a non-monotonic sequence is ignored with a diagnostic and the request still succeeds", async () => {
  await withRuntime([{ name: "prog" }], {}, async ({ host, diagnostics }) => {
    const steps = [status(1, "one"), status(3, "three"), status(2, "two"), status(3, "three again"), status(5, "five")];
    const { events, text } = await collect(host, { steps });
    assert.deepEqual(
      events.map((e) => (e.type === "status" ? e.message : e.type)),
      ["one", "three", "five"],
    );
    assert.equal(text, "done");
    const d = diagnostics("prog").filter((m) => /does not increase/.test(m));
    assert.equal(d.length, 2);
    assert.match(d[0]!, /sequence 2 does not increase \(last 3\)/);
  });
});

test("PROG-04: progress for an unknown or already settled request is ignored with a diagnostic", async () => {
  await withRuntime([{ name: "prog" }], {}, async ({ host, received, waitDiagnostic }) => {
    const { events } = await collect(host, {
      steps: [{ ...status(1, "elsewhere"), request_id: "other" }, status(2, "here")],
      after: [status(3, "too late")],
    });
    assert.deepEqual(events, [{ type: "status", message: "here" }]);
    const id = received("prog", "tool/call")[0]!.id as number;
    await waitDiagnostic(new RegExp(`ignored \\$/progress for inactive request ${id + 1000}`));
    await waitDiagnostic(new RegExp(`ignored \\$/progress for inactive request ${id}$`));
    assert.equal(host.status()[0]!.state, "ready");
  });
});

test(
  "PROG-06, PROG-07: output progress is delivered in chunks of at most 8 KiB, utf8 never split inside a character, " +
    "base64 re-encoded per chunk",
  async () => {
    await withRuntime([{ name: "prog" }], {}, async ({ host }) => {
      const text = "é€x".repeat(3_500); // 21,000 bytes of mixed 1-, 2- and 3-byte characters
      const bytes = Buffer.from(Array.from({ length: 20_000 }, (_, i) => (i * 7) % 256));
      const steps = [
        { sequence: 1, event: { type: "output", stream: "stdout", encoding: "utf8", data: text } },
        {
          sequence: 2,
          event: { type: "output", stream: "stderr", encoding: "base64", data: bytes.toString("base64") },
        },
        { sequence: 3, event: { type: "output", stream: "stdout", encoding: "utf8", data: "small" } },
      ];
      const { events } = await collect(host, { steps });
      const outputs = events.filter((e): e is Extract<ProgressEvent, { type: "output" }> => e.type === "output");
      const utf8 = outputs.filter((e) => e.encoding === "utf8" && e.data !== "small");
      const b64 = outputs.filter((e) => e.encoding === "base64");
      assert.ok(utf8.length >= 3 && b64.length >= 3, `both were chunked (${utf8.length}, ${b64.length})`);
      for (const e of utf8) {
        assert.ok(Buffer.byteLength(e.data) <= 8192, "utf8 chunk within 8 KiB");
        assert.ok(!e.data.includes("\uFFFD"), "no character was split");
        assert.equal(e.stream, "stdout");
      }
      for (const e of b64) {
        assert.ok(Buffer.from(e.data, "base64").length <= 8192, "base64 chunk within 8 KiB of data");
        assert.equal(Buffer.from(e.data, "base64").toString("base64"), e.data, "each chunk is valid base64 on its own");
        assert.equal(e.stream, "stderr");
      }
      assert.equal(utf8.map((e) => e.data).join(""), text);
      assert.deepEqual(Buffer.concat(b64.map((e) => Buffer.from(e.data, "base64"))), bytes);
      assert.deepEqual(outputs.at(-1), { type: "output", stream: "stdout", encoding: "utf8", data: "small" });
    });
  },
);

test("PROG-01: without request_progress negotiated, $/progress is ignored with a diagnostic", async () => {
  await withRuntime([{ name: "mute", config: { features: REQUIRED } }], {}, async ({ host, diagnostics }) => {
    const { events, text } = await collect(host, { steps: [status(1, "hello")] });
    assert.deepEqual(events, []);
    assert.equal(text, "done");
    assert.ok(diagnostics("mute").some((m) => /request_progress was not negotiated/.test(m)));
  });
});

test(
  "PROG-09, PROG-10: decoration needs progress_decoration; labels, " + "messages and control characters are bounded",
  async () => {
    const steps = [
      { sequence: 1, event: { type: "decoration", label: "searching", detail: "3 sources" } },
      { sequence: 2, event: { type: "decoration", label: "x".repeat(257) } },
      status(3, "bell \u0007"),
      status(4, "m".repeat(4_097)),
      status(5, "tab\tand\nnewline are fine"),
    ];
    await withRuntime([{ name: "deco", config: { features: DECORATED } }], {}, async ({ host, diagnostics }) => {
      const { events } = await collect(host, { steps });
      assert.deepEqual(events, [
        { type: "decoration", label: "searching", detail: "3 sources" },
        { type: "status", message: "tab\tand\nnewline are fine" },
      ]);
      assert.equal(diagnostics("deco").filter((m) => /ignored invalid \$\/progress/.test(m)).length, 3);
    });
    await withRuntime([{ name: "plain", config: { features: PROGRESS } }], {}, async ({ host, diagnostics }) => {
      const { events } = await collect(host, { steps: steps.slice(0, 1) });
      assert.deepEqual(events, []);
      assert.ok(diagnostics("plain").some((m) => /"decoration" events need progress_decoration negotiated/.test(m)));
    });
  },
);

test(
  "PROG-11, PROG-12: on API 0.4 a partial_result is delivered under the final-result part limits but without the " +
    "output_schema rule",
  async () => {
    const partial = (
      sequence: number,
      result: Record<string, unknown>,
    ): { sequence: number; event: Record<string, unknown> } => ({
      sequence,
      event: { type: "partial_result", result },
    });
    const text = (t: string): { type: string; text: string } => ({ type: "text", text: t });
    const steps = [
      partial(1, { content: [text("half way")], metadata: { pages: 1 } }),
      partial(2, { content: Array.from({ length: 257 }, () => text("p")) }),
      partial(3, { content: [{ type: "image", artifact_id: "a-1", mime_type: "image/png" }, text("with media")] }),
      partial(4, { content: [text("almost")], structured_content: { count: "not checked against the schema" } }),
    ];
    await withRuntime([{ name: "v04", api: "0.4" }], {}, async ({ host, diagnostics }) => {
      const { events } = await collect(host, { steps });
      assert.deepEqual(events, [
        { type: "partial_result", result: { content: [text("half way")], is_error: false, metadata: { pages: 1 } } },
        {
          type: "partial_result",
          result: {
            content: [text("almost")],
            is_error: false,
            structured_content: { count: "not checked against the schema" },
          },
        },
      ]);
      assert.ok(
        diagnostics("v04").some((m) => /257 parts|over the 256/.test(m)),
        "257 parts refused",
      );
      assert.ok(
        diagnostics("v04").some((m) => /artifacts/.test(m)),
        "a media part without the artifacts feature refused",
      );
    });
    await withRuntime([{ name: "v02", api: "0.2" }], {}, async ({ host, diagnostics }) => {
      const { events } = await collect(host, { steps: steps.slice(0, 1) });
      assert.deepEqual(events, []);
      assert.ok(diagnostics("v02").some((m) => /"partial_result" events need API 0.4/.test(m)));
    });
  },
);
