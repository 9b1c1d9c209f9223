// pi.setModel and pi.setThinkingLevel onto the session layer (octet/model-actions.ts): the layer's
// answer passes through, a malformed model and a host without a session layer are refused saying why.
import { test } from "node:test";
import assert from "node:assert/strict";
import { modelAction } from "../src/octet/model-actions.js";

test("model actions: setModel and setThinkingLevel reach the session layer with the extension's name", async () => {
  const calls: unknown[][] = [];
  const layer = {
    setModel: async (...a: unknown[]) => (calls.push(["model", ...a]), a[2] === "keyed"),
    setThinkingLevel: async (...a: unknown[]) => (calls.push(["level", ...a]), "low"),
  };
  const set = (id: string) => modelAction({ kind: "set_model", model: { provider: "p", id } }, "ext", layer);
  assert.equal(await set("keyed"), true);
  assert.equal(await set("keyless"), false, "pi's false for a model without a key");
  assert.equal(await modelAction({ kind: "set_thinking_level", level: "minimal" }, "ext", layer), "low");
  assert.deepEqual(calls, [
    ["model", "ext", "p", "keyed"],
    ["model", "ext", "p", "keyless"],
    ["level", "ext", "minimal"],
  ]);
});

test("model actions: a model without provider and id, and a host with no session layer, are refused", async () => {
  await assert.rejects(
    modelAction({ kind: "set_model", model: { id: "x" } }, "ext", {}),
    /pi\.setModel needs a model with a provider and an id \(got \{"id":"x"\}\)/,
  );
  await assert.rejects(
    modelAction({ kind: "set_model", model: { provider: "p", id: "x" } }, "ext", undefined),
    /pi\.setModel needs octet's agent \(a session with a model configured\): this host runs none/,
  );
  await assert.rejects(
    modelAction({ kind: "set_thinking_level", level: "high" }, "ext", undefined),
    /pi\.setThinkingLevel needs octet's agent/,
  );
});
