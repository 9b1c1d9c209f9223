import { test } from "node:test";
import assert from "node:assert/strict";
import { ContributionStore } from "../src/modules/collection/contribution-store.js";

test(
  "CTX-07: the latest context per (extension, label) replaces earlier ones and is cleared when its " +
    "generation ends",
  () => {
    const store = new ContributionStore();
    store.observe({
      type: "context",
      extension: "w",
      generation: 1,
      contribution: { label: "files", content: "a changed", placement: "system_suffix" },
    });
    store.observe({
      type: "context",
      extension: "w",
      generation: 1,
      contribution: { label: "files", content: "b changed", placement: "system_suffix" },
    });
    store.observe({
      type: "status",
      extension: "w",
      generation: 1,
      contribution: { surface: "status", text: "watching", style_role: null, priority: 0 },
    });
    assert.deepEqual(
      store.snapshot().context.map((c) => c.content),
      ["b changed"],
    );
    assert.equal(store.snapshot().status.length, 1);
    store.observe({ type: "state", extension: "w", generation: 2, state: "stopped" });
    assert.equal(store.snapshot().context.length, 1, "another generation ending changes nothing");
    store.observe({ type: "state", extension: "w", generation: 1, state: "stopped" });
    assert.deepEqual(store.snapshot(), { context: [], status: [] });
  },
);
