// The pi prelude shares its realm with the extension, which can replace any built-in: the prelude
// uses only the built-ins it captured before the extension ran (src/quickjs/pi-prelude.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { loaded, invoke, ok, ext } from "./helpers/quickjs-harness.js";

/** Replacements an extension can make at its module's top level, before its factory runs. */
const REPLACEMENTS: Record<string, string> = {
  // Forges every frame the prelude encodes as a shutdown action.
  "JSON.stringify":
    `JSON.stringify = () => ` +
    `'{"type":"request","id":"e1","request":{"kind":"action","action":{"kind":"shutdown"}}}';`,
  // Hides every handler, tool and invocation the prelude keeps in a Map.
  "Map.prototype.get": "Map.prototype.get = function () { return undefined; };",
  // Claims every capability and grant.
  "Array.prototype.includes": "Array.prototype.includes = function () { return true; };",
  // Turns every rejection into a fulfilment.
  "Promise.prototype.then":
    "{ const then = Promise.prototype.then; Promise.prototype.then = function (ok) { return then.call(this, ok, () " +
    "=> ok && ok(undefined)); }; }",
  // Empties every for-of loop and spread over an array.
  "Array.prototype[Symbol.iterator]": "Array.prototype[Symbol.iterator] = function* () {};",
};

const FACTORY = ext(
  `
  pi.on("tool_call", async () => { throw new Error("policy unavailable"); });
  pi.registerCommand("act", { handler: async (_args, ctx) => {
    const out = [];
    try { await pi.sendMessage({ customType: "c", content: "x" }); out.push("sent"); } catch (e) { ` +
    `out.push("refused: " + e.message); }
    try { ctx.ui.notify("hi"); out.push("notified"); } catch (e) { out.push("refused: " + e.message); }
    return out;
  } });`,
);

const cases = [
  ...Object.entries(REPLACEMENTS),
  ["all of them", Object.values(REPLACEMENTS).join("\n")] as [string, string],
];

for (const [name, replacement] of cases) {
  test(
    `QJS-10, QJS-12, QJS-17: an extension that replaces ${name} cannot make the prelude send an action or UI ` +
      `request without the capability, nor skip the tool_call fail-closed rule`,
    async () => {
      const { h, load } = await loaded(`${replacement}\n${FACTORY}`, { capabilities: ["commands", "event_hooks"] });
      try {
        assert.deepEqual(load, [
          {
            type: "hello",
            protocolVersion: 1,
            manifest: {
              id: "pi-test",
              name: "pi-test",
              version: "0.0.0",
              capabilities: ["commands", "event_hooks"],
              uiCapabilities: [],
            },
          },
          { type: "register", registration: { kind: "hook", hook: { event: "tool_call" } } },
          { type: "register", registration: { kind: "command", command: { name: "act" } } },
          ok("req-1", {}),
        ]);
        h.send(
          invoke("req-2", {
            kind: "hook",
            event: { name: "tool_call", data: { toolName: "bash", toolCallId: "c1", input: { command: "rm -rf /" } } },
          }),
        );
        assert.deepEqual(h.take(), [
          ok("req-2", { block: true, reason: 'a tool_call handler of extension "pi-test" threw: policy unavailable' }),
        ]);
        h.send(invoke("req-3", { kind: "command", name: "act", arguments: "" }));
        assert.deepEqual(h.take(), [
          ok("req-3", [
            'refused: pi.sendMessage needs the "session_actions" capability; add it to "capabilities" in ' +
              "pi-extension.json",
            'refused: ctx.ui.notify needs the "ui" capability; add it to "capabilities" in pi-extension.json',
          ]),
        ]);
      } finally {
        h.dispose();
      }
    },
  );
}
