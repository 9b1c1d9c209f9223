// Wave-1 notifications from the extension's side of the wire (W 1.11, WAVE1-02) and the owner rule
// of presentation/update (W 2.5, WAVE1-13), through a real host and the wire-level fixture
// fake-ext-v2.mjs: what the extension sent, what the host delivered and what it diagnosed.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { HostEvent } from "@octet/host";
import { bounds } from "@octet/protocol";
import { REQUIRED, withRuntime, type Runtime } from "./runtime-helpers.js";

const PRESENTING = { name: "presenting", api: "0.2" as const, contributes: "presentation = true" };

const presentations = (rt: Runtime, name: string): HostEvent[] =>
  rt.events.filter((e) => e.type === "presentation" && e.extension === name);

/** The extension sends `send` ({method, params} notifications) inside one tool/call. */
async function contribute(rt: Runtime, name: string, send: unknown[]): Promise<void> {
  const out = await rt.host.callTool("contribute", { send });
  assert.equal(out.is_error, false, out.text);
}

/** The owner the host issued with this generation's tool/call (from the frames the fixture read). */
async function issuedOwner(rt: Runtime, name: string): Promise<Record<string, unknown>> {
  await rt.host.callTool("echo", {});
  const call = rt.received(name, "tool/call").at(-1);
  const owner = call?.params?.context?.resource_owner;
  assert.ok(owner, "an API 0.2 tool/call carries the issued resource_owner");
  return owner;
}

test("WAVE1-02: a bad Wave-1 notification from the extension is diagnosed (bounded) and never delivered", async () => {
  await withRuntime([PRESENTING], { services: { presentation: true } }, async (rt) => {
    await contribute(rt, "presenting", [
      // A host->extension Wave-1 method sent the other way is no method the host takes.
      { method: "message/updated", params: { message_id: "m1", delta: "x", deltas: 1 } },
      { method: "presentation/update", params: ["not", "an", "object"] },
      { method: "presentation/update", params: { snapshot: { revision: 1, status: { label: "x".repeat(300_000) } } } },
    ]);
    await rt.waitDiagnostic(/ignored unknown notification "message\/updated"/);
    await rt.waitDiagnostic(/dropped an invalid presentation\/update.*expected an object/);
    await rt.waitDiagnostic(/dropped an invalid presentation\/update.*(limit|bytes)/);
    // Sent as a request (with an id) it is no notification: refused, nothing delivered.
    const asked = await rt.host.callTool("ask", {
      method: "presentation/update",
      params: { snapshot: { revision: 2 } },
    });
    assert.equal(JSON.parse(asked.text).error?.code, -32601, asked.text);
    assert.deepEqual(presentations(rt, "presenting"), [], "nothing refused was delivered");
    for (const d of rt.diagnostics()) assert.ok(Buffer.byteLength(d) <= bounds.MAX_DIAGNOSTIC_BYTES, d.slice(0, 200));
    // The same extension's good notification is delivered: the refusals above were of the payloads.
    await contribute(rt, "presenting", [{ method: "presentation/update", params: { snapshot: { revision: 3 } } }]);
    assert.equal(rt.host.presentation("presenting")?.revision, 3);
  });
});

test("WAVE1-02: presentation/update from an extension that did not declare it is refused, not delivered", async () => {
  await withRuntime([{ name: "plain", api: "0.2" }], { services: { presentation: true } }, async (rt) => {
    await contribute(rt, "plain", [{ method: "presentation/update", params: { snapshot: { revision: 1 } } }]);
    await rt.waitDiagnostic(/dropped presentation\/update: the manifest does not declare contributes\.presentation/);
    assert.deepEqual(presentations(rt, "plain"), []);
    assert.equal(rt.host.presentation("plain"), null);
  });
});

test("WAVE1-13: background presentation/update follows PRES-03 (exact issued triple), not Wave-1", async () => {
  await withRuntime([PRESENTING], { services: { presentation: true } }, async (rt) => {
    const owner = await issuedOwner(rt, "presenting");
    // After its request settled, the exact issued triple alone is accepted (no parent needed).
    await contribute(rt, "presenting", [
      { method: "presentation/update", params: { resource_owner: owner, snapshot: { revision: 1 } } },
    ]);
    const shown = rt.host.presentation("presenting");
    assert.equal(shown?.revision, 1);
    assert.equal(shown?.scope, "owner");
    assert.deepEqual(shown?.owner, owner);
    // Wave-1 precedence would let a live parent win and ignore the explicit owner; presentation
    // refuses the pair outright, and the last accepted snapshot stays.
    await contribute(rt, "presenting", [
      {
        method: "presentation/update",
        params: { parent_request_id: "self", resource_owner: owner, snapshot: { revision: 2 } },
      },
    ]);
    await rt.waitDiagnostic(/parent_request_id and resource_owner are mutually exclusive/);
    assert.equal(rt.host.presentation("presenting")?.revision, 1);
    // A foreign triple is dropped with presentation's diagnostic; no Wave-1 -32002 answer is
    // written to the extension (a notification has none).
    const foreign = { ...owner, process_generation: (owner["process_generation"] as number) + 1 };
    await contribute(rt, "presenting", [
      { method: "presentation/update", params: { resource_owner: foreign, snapshot: { revision: 3 } } },
    ]);
    const dropped = await rt.waitDiagnostic(
      /dropped a presentation\/update: resource_owner .* is not the triple issued/,
    );
    assert.doesNotMatch(dropped, /not_foreground_owner/);
    assert.equal(rt.host.presentation("presenting")?.revision, 1);
    const errors = rt.received("presenting").filter((m) => m.method === undefined && m.error !== undefined);
    assert.deepEqual(errors, [], "no error answer reached the extension");
  });
});
