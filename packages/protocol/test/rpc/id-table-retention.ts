// Child of id-table.test.ts (run with --expose-gc): churns 64 live requests of about 1 KB each
// through an IdTable or a Map, forces one full collection, churns on (200,000 more, so young
// collections run), and prints the most the old generation grew by, in MiB. Entries deleted from
// the table must not survive young collections.
import { getHeapSpaceStatistics } from "node:v8";
import { IdTable } from "../../src/rpc/id-table.js";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const table: { set(k: number, v: unknown): unknown; delete(k: number): boolean } =
  process.argv[2] === "map" ? new Map<number, unknown>() : new IdTable<unknown, number>();

let next = 0;
function churn(n: number): void {
  for (let i = 0; i < n; i++) {
    const id = next++;
    table.set(id, { id, parts: new Array(100).fill(id) });
    if (id >= 64) table.delete(id - 64);
  }
}
const oldSpace = (): number => getHeapSpaceStatistics().find((s) => s.space_name === "old_space")?.space_used_size ?? 0;

churn(20_000);
gc(); // the full collection that moves the live table into the old generation
const before = oldSpace();
let most = 0;
for (let round = 0; round < 40; round++) {
  churn(5_000);
  most = Math.max(most, oldSpace() - before);
}
process.stdout.write(`${(most / 1048576).toFixed(1)}\n`);
