import { test } from "node:test";
import assert from "node:assert/strict";
import { bounds } from "@octet/protocol";
import { RpiCatalog, type RegistrationFrame } from "../src/host/catalog.js";

const tool = (name: string): RegistrationFrame => ({
  type: "register",
  registration: { kind: "tool", tool: { name, label: name, description: "d", parameters: {} } },
});

test("issue 14.3: the catalog applies registrations, refuses a kind without its capability and past the bounds", () => {
  const said: string[] = [];
  const catalog = new RpiCatalog((level, message) => said.push(`${level}: ${message}`));
  assert.equal(catalog.apply(tool("a"), ["commands"]), "registered a tool without the tools capability");
  assert.equal(catalog.apply(tool("a"), ["tools"]), null);
  assert.equal(catalog.apply(tool("a"), ["tools"]), null, "registering a name again replaces it");
  assert.deepEqual(
    catalog.tools().map((t) => t.name),
    ["a"],
  );
  for (let i = 1; i < bounds.MAX_TOOLS; i++) assert.equal(catalog.apply(tool(`t${i}`), ["tools"]), null);
  assert.equal(
    catalog.apply(tool("over"), ["tools"]),
    `registered more than ${bounds.MAX_TOOLS} tools ("over" is the ${bounds.MAX_TOOLS + 1}th)`,
  );
  assert.equal(catalog.apply({ type: "unregister", registration: { kind: "tool", name: "a" } }, ["tools"]), null);
  assert.equal(catalog.tools().length, bounds.MAX_TOOLS - 1);
  const hook = (event: string): RegistrationFrame => ({
    type: "register",
    registration: { kind: "hook", hook: { event } },
  });
  assert.equal(catalog.apply(hook("no_such_event"), ["event_hooks"]), null);
  assert.equal(catalog.apply(hook("tool_call"), ["event_hooks"]), null);
  assert.deepEqual(catalog.hooks(), ["tool_call"]);
  assert.deepEqual(said, ['warning: ignored a hook for the unknown event "no_such_event"']);
});
