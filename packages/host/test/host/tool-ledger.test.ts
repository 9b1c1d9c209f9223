import { test } from "node:test";
import assert from "node:assert/strict";
import { ToolNameLedger, describeHolder } from "../../src/host/tool-ledger.js";
import { entry, readyGeneration, setState } from "./fake-entries.js";

test("issue 14.3: who provides a name: the host for a reserved one, else the extension that declares it", () => {
  const a = entry("a", ["read", "write"]);
  const b = entry("b", ["grep"]);
  const ledger = new ToolNameLedger([a, b], ["bash"]);
  assert.equal(ledger.isReserved("bash"), true);
  assert.equal(ledger.isReserved("read"), false);
  assert.deepEqual(ledger.holder("bash"), { extension: null, parked: false });
  assert.deepEqual(ledger.holder("write"), { extension: "a", parked: false });
  assert.deepEqual(ledger.holder("grep"), { extension: "b", parked: false });
  assert.equal(ledger.holder("nobody"), null);
  // Leaving out the asking extension: its own names are free for it.
  assert.equal(ledger.holder("grep", "b"), null);
  assert.deepEqual([...ledger.owners("a")].sort(), [
    ["bash", "the host"],
    ["grep", 'extension "b"'],
  ]);
});

test("issue 14.3: a disabled, untrusted, invalid, shadowed or conflict-refused extension holds no name", () => {
  const off = entry("off", ["t1"], { enabled: false });
  const untrusted = entry("untrusted", ["t2"], { trusted: false });
  const invalid = entry("invalid", ["t3"], { errors: ["bad"] });
  const shadowed = entry("shadowed", ["t4"]);
  shadowed.discovered.shadowedBy = "/y/shadowed/extension.toml";
  const refused = entry("refused", ["t5"], { nameConflict: true, parkedError: "tool t5 is taken" });
  const ledger = new ToolNameLedger([off, untrusted, invalid, shadowed, refused], []);
  for (const name of ["t1", "t2", "t3", "t4", "t5"]) assert.equal(ledger.holder(name), null, name);
  assert.equal(ledger.owners("x").size, 0);
});

test("issue 14.3: a parked extension keeps its names, and every refusal says it is parked", () => {
  const parked = entry("p", ["deploy"], { parkedError: "crashed 8 times" });
  const other = entry("q", ["deploy"]);
  const ledger = new ToolNameLedger([parked, other], []);
  assert.deepEqual(ledger.holder("deploy", "q"), { extension: "p", parked: true });
  const note = 'extension "p" (parked; its names stay reserved while it is enabled)';
  assert.equal(describeHolder({ extension: "p", parked: true }), note);
  assert.equal(ledger.conflict(other), `tool "deploy" is already provided by ${note}`);
  assert.equal(ledger.owners("q").get("deploy"), note);
  assert.deepEqual(ledger.taken("q", [{ name: "other" }, { name: "deploy" }]), { name: "deploy", holder: note });
  assert.equal(ledger.taken("q", [{ name: "other" }]), null);
});

test("issue 14.3: a reload conflict names a host-reserved name first; an extension's own names never conflict", () => {
  const a = entry("a", ["bash", "ls"]);
  const ledger = new ToolNameLedger([a, entry("b", ["ls"])], ["bash"]);
  assert.equal(ledger.conflict(a), 'tool "bash" is reserved by the host');
  const alone = entry("alone", ["x"]);
  assert.equal(new ToolNameLedger([alone], []).conflict(alone), null);
});

test("issue 14.3: at the first start names are claimed in discovery order; a refused extension claims nothing", () => {
  const first = entry("first", ["shared"]);
  const second = entry("second", ["shared", "mine"]);
  const third = entry("third", ["mine"]);
  const reserved = entry("reserved", ["bash"]);
  const ledger = new ToolNameLedger([first, second, third, reserved], ["bash"]);
  const { admitted, refused } = ledger.admitAtStart([first, second, third, reserved]);
  // "mine" stays free for the third: the second, refused, never held it.
  assert.deepEqual(
    admitted.map((e) => e.discovered.name),
    ["first", "third"],
  );
  assert.deepEqual(
    refused.map((r) => [r.entry.discovered.name, r.message]),
    [
      ["second", 'tool "shared" is already provided by extension "first"; not started'],
      ["reserved", 'tool "bash" is already provided by the host; not started'],
    ],
  );
});

test("issue 14.3: a started extension holds what it published; an ended one keeps its initialize catalog", async () => {
  const log: string[] = [];
  const foreign = entry("pi", [], { foreign: true });
  const ledger = new ToolNameLedger([foreign], []);
  assert.equal(ledger.holder("pi_tool"), null, "a foreign extension declares nothing before it starts");
  const g = await readyGeneration({ name: "pi", number: 1, tools: ["pi_tool"], log });
  foreign.generation = g;
  assert.deepEqual(ledger.holder("pi_tool"), { extension: "pi", parked: false });
  setState(g, "crashed");
  // The initialize catalog still reserves the name a restart of it will need.
  assert.deepEqual([...ledger.held(foreign)], ["pi_tool"]);
});
