/**
 * The bundled API 0.4 example through the real host: confirmation, input, progress, structured
 * output checked against its schema, and cancellation that stops it promptly.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ExtensionHost, type ExtensionHostOptions, type HostEvent } from "@octet/host";
import type { ProgressEvent } from "@octet/protocol";
import { EXAMPLES, processesMentioning, scratchOf } from "./helpers.js";

async function withLongTask(
  services: ExtensionHostOptions["services"],
  body: (host: ExtensionHost, events: HostEvent[]) => Promise<void>,
): Promise<void> {
  const events: HostEvent[] = [];
  const host = await ExtensionHost.start({
    workspace: EXAMPLES,
    extensionDirs: [EXAMPLES],
    enable: ["long-task"],
    ...(services ? { services } : {}),
    onEvent: (e) => events.push(e),
  });
  // This host's processes, not those of extension-testing.test.ts running long-task at the same time.
  let scratch = "examples/long-task";
  try {
    assert.equal(host.status().find((s) => s.name === "long-task")?.state, "ready");
    scratch = scratchOf(host.status().find((s) => s.name === "long-task")?.pid ?? -1);
    await body(host, events);
  } finally {
    await host.shutdown();
  }
  assert.deepEqual(processesMentioning(scratch), []);
}

test(
  "PROG-05, CONF-01, INPUT-01, CALL-20: long-task asks, reports strictly increasing progress and returns " +
    "schema-checked output",
  async () => {
    const asked: string[] = [];
    await withLongTask(
      {
        confirm: async (r) => (asked.push(`confirm: ${r.prompt}`), true),
        input: async (r) => (asked.push(`input: ${r.prompt}`), "nightly"),
      },
      async (host) => {
        const seen: ProgressEvent[] = [];
        const r = await host.callTool("long_task", { steps: 4, step_ms: 20 }, { onProgress: (e) => seen.push(e) });
        assert.equal(r.is_error, false, r.text);
        assert.deepEqual(r.structured_content, { completed: 4, steps: 4, label: "nightly" });
        assert.deepEqual(asked, ["confirm: Run a long task of 4 steps?", "input: A label for this run (optional):"]);
        const currents = seen.flatMap((e) => (e.type === "status" ? [e.current] : []));
        assert.deepEqual(currents, [0, 1, 2, 3, 4]);
        assert.ok(seen.every((e) => e.type !== "status" || e.total === 4));
      },
    );
  },
);

test(
  "CANCEL-04, SHUT-11: the authoring smoke test: cancelling long-task mid-run stops it with -32800, it keeps " +
    "serving, and it shuts down cleanly",
  async () => {
    await withLongTask({ confirm: async () => true, input: async () => null }, async (host, events) => {
      const controller = new AbortController();
      const call = host.callTool(
        "long_task",
        { steps: 200, step_ms: 50 },
        {
          signal: controller.signal,
          onProgress: (e) => {
            if (e.type === "status" && e.current === 2) controller.abort();
          },
        },
      );
      await assert.rejects(call, /was cancelled/);
      // The extension settled the cancelled request (a late -32800), so no grace expiry and it stays ready.
      const again = await host.callTool("long_task", { steps: 1, step_ms: 1 });
      assert.equal(again.is_error, false);
      assert.equal(host.status().find((s) => s.name === "long-task")?.state, "ready");
      assert.ok(!events.some((e) => e.type === "diagnostic" && /did not settle/.test(e.message)));
    });
  },
);

test("CONF-04, INPUT-06: without a frontend the run is not confirmed and nothing is guessed", async () => {
  await withLongTask(undefined, async (host) => {
    const r = await host.callTool("long_task", { steps: 2 });
    assert.equal(r.text, "Not started: the run was not confirmed.");
    assert.deepEqual(r.structured_content, { completed: 0, steps: 2, label: null });
  });
});
