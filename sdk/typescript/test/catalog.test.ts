import { test } from "node:test";
import assert from "node:assert/strict";
import { WireError } from "@octet/protocol";
import { RETAINED_EPOCHS, ToolCatalog, type CatalogTool, type ToolMap } from "../src/catalog.js";

const tool = (name: string, reply = name): CatalogTool => ({
  definition: { name, description: name, parameters: { type: "object" } },
  handler: () => reply,
});
const map = (...tools: CatalogTool[]): ToolMap => new Map(tools.map((t) => [t.definition.name, t]));
const add =
  (...tools: CatalogTool[]) =>
  (current: ToolMap): ToolMap => {
    const next = new Map(current);
    for (const t of tools) next.set(t.definition.name, t);
    return next;
  };

/** A host that accepts every change, numbering epochs as it goes. */
function host() {
  let revision = 0;
  return (accept?: (names: string[]) => string[]) => (names: string[]) => async () => ({
    revision: ++revision,
    tools: accept ? accept(names) : names,
  });
}

test(
  "CAT-09, CAT-16: epoch 0 is the initialize catalog; each accepted change is the next epoch; the last " +
    "eight are kept and older ones refused with -32602",
  async () => {
    const catalog = new ToolCatalog(map(tool("a")));
    assert.equal(catalog.revision, 0);
    const h = host()();
    for (let i = 1; i <= 9; i++) {
      const next = add(tool(`t${i}`));
      const names = [...next(catalog.current).keys()];
      const change = await catalog.mutate(next, h(names));
      assert.equal(change.revision, i);
    }
    assert.equal(catalog.revision, 9);
    assert.deepEqual(catalog.known, [2, 3, 4, 5, 6, 7, 8, 9], `the last ${RETAINED_EPOCHS}`);
    assert.ok(catalog.at(2).has("t2") && !catalog.at(2).has("t3"), "an older epoch keeps its own tools");
    for (const retired of [0, 1, 10]) {
      assert.throws(
        () => catalog.at(retired),
        (e: unknown) =>
          e instanceof WireError && e.code === -32602 && new RegExp(`catalog_revision ${retired}`).test(e.message),
      );
    }
    assert.equal(catalog.at(undefined), catalog.current, "no revision: the current catalog");
  },
);

test(
  "CAT-16: while a change waits for the host's answer, its staged epoch is already callable (the host " +
    "publishes before it acknowledges)",
  async () => {
    const catalog = new ToolCatalog(map(tool("a")));
    let answer!: (v: unknown) => void;
    const pending = catalog.mutate(add(tool("b")), () => new Promise((r) => (answer = r)));
    await Promise.resolve();
    assert.deepEqual(catalog.known, [0, 1]);
    assert.ok(catalog.at(1).has("b"), "a call stamped with the staged epoch finds the new tool");
    answer({ revision: 1, tools: ["a", "b"] });
    await pending;
    assert.deepEqual(catalog.known, [0, 1]);
  },
);

test("CAT-08: the host's list is authoritative: a tool its policy left out is not committed", async () => {
  const catalog = new ToolCatalog(map(tool("a")));
  const change = await catalog.mutate(add(tool("b"), tool("c")), async () => ({ revision: 1, tools: ["a", "c"] }));
  assert.deepEqual(change.tools, ["a", "c"]);
  assert.deepEqual([...catalog.current.keys()], ["a", "c"]);
});

test("CAT-07: a refused change commits nothing and drops the staged epoch; changes run one at a time", async () => {
  const catalog = new ToolCatalog(map(tool("a")));
  const order: string[] = [];
  const refused = catalog.mutate(add(tool("x")), async () => {
    order.push("first sent");
    await new Promise((r) => setTimeout(r, 20));
    throw new WireError(-32602, "conflict");
  });
  const second = catalog.mutate(add(tool("y")), async () => {
    order.push("second sent");
    return { revision: 1, tools: ["a", "y"] };
  });
  await assert.rejects(refused, /conflict/);
  assert.equal((await second).revision, 1);
  assert.deepEqual(order, ["first sent", "second sent"], "the second waited for the first");
  assert.deepEqual(catalog.known, [0, 1]);
  assert.ok(!catalog.current.has("x"));
});

test("CAT-08: an answer naming a tool the change did not contain is refused, not trusted", async () => {
  const catalog = new ToolCatalog(map(tool("a")));
  await assert.rejects(
    catalog.mutate(add(tool("b")), async () => ({ revision: 1, tools: ["a", "zzz"] })),
    /did not contain/,
  );
  await assert.rejects(
    catalog.mutate(add(tool("b")), async () => ({ revision: "1", tools: [] })),
    /invalid result/,
  );
  assert.equal(catalog.revision, 0);
});
