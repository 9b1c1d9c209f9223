import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { IdTable } from "../../src/rpc/id-table.js";
import type { JsonRpcId } from "../../src/jsonrpc.js";

test("IdTable: get, has, set, delete and size agree with a Map for every kind of id", () => {
  const ids: JsonRpcId[] = [0, 1, 255, 256, 257, 2 ** 53 - 1, 2 ** 53, -1, 1.5, "1", "", "a", 1e300];
  const table = new IdTable<string>();
  const model = new Map<JsonRpcId, string>();
  let step = 0;
  // A fixed pseudo-random walk of sets, overwrites and deletes over ids that share slots
  // (0/256, 1/257) and ids no slot can hold (negative, fractional, past 2^53, strings).
  let seed = 7;
  for (let i = 0; i < 5000; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const id = ids[seed % ids.length] as JsonRpcId;
    if ((seed >> 8) % 3 === 0) {
      assert.equal(table.delete(id), model.delete(id), `delete ${String(id)} at step ${step}`);
    } else {
      const value = `v${step}`;
      table.set(id, value);
      model.set(id, value);
    }
    for (const probe of ids) {
      assert.equal(table.get(probe), model.get(probe), `get ${String(probe)} at step ${step}`);
      assert.equal(table.has(probe), model.has(probe), `has ${String(probe)} at step ${step}`);
    }
    assert.equal(table.size, model.size);
    step++;
  }
});

test("IdTable: an id whose slot a straggler holds is kept apart and never shadowed", () => {
  const table = new IdTable<string, number>();
  table.set(3, "straggler");
  table.set(3 + 256, "later"); // same slot: goes aside
  assert.equal(table.get(3), "straggler");
  assert.equal(table.get(259), "later");
  assert.equal(table.delete(3), true);
  // The slot is free now, but 259 lives aside: setting it again must update that entry, not
  // add a second one in the slot that a later delete would leave behind.
  table.set(259, "updated");
  assert.equal(table.size, 1);
  assert.equal(table.delete(259), true);
  assert.equal(table.get(259), undefined);
  assert.equal(table.size, 0);
});

test("IdTable: entries, keys and values are a snapshot, numbers ascending, then other ids in insertion order", () => {
  const table = new IdTable<number>();
  for (const id of [300, "b", 5, 44, "a", 2 ** 53 + 2, 256]) table.set(id, typeof id === "number" ? id : -1);
  assert.deepEqual(table.keys(), [5, 44, 256, 300, 2 ** 53 + 2, "b", "a"]);
  // Deleting while walking the snapshot is safe and sees every entry once.
  const seen: JsonRpcId[] = [];
  for (const [id] of table.entries()) {
    seen.push(id);
    table.delete(id);
  }
  assert.equal(seen.length, 7);
  assert.equal(table.size, 0);
  assert.deepEqual(table.values(), []);
  table.set(1, 1);
  table.set("x", 2);
  table.clear();
  assert.equal(table.size, 0);
  assert.equal(table.get(1), undefined);
  assert.equal(table.get("x"), undefined);
});

test("IdTable: after a full collection, entries deleted from a churned table die in the next young collection", () => {
  // The reason the table exists (id-table.ts): a churned Map, once a full collection has run,
  // keeps every later entry alive through young collections. Run in a child with --expose-gc;
  // the same churn through a Map is the control that shows the measurement can see retention.
  const script = fileURLToPath(new URL("./id-table-retention.js", import.meta.url));
  const run = (kind: string): number => {
    const r = spawnSync(process.execPath, ["--expose-gc", script, kind], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    return Number(r.stdout.trim());
  };
  const table = run("table");
  const map = run("map");
  assert.ok(table < 4, `old space grew ${table} MiB with IdTable (bound 4 MiB)`);
  // If this fails, V8 no longer keeps a churned Map's old entries: the table may then be a Map.
  assert.ok(map > 8, `control: the same churn through a Map grew the old generation ${map} MiB`);
});
