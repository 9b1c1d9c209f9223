/**
 * A table of the requests in flight, keyed by JSON-RPC id: the Map subset the call path needs,
 * without a Map's memory behaviour under churn.
 *
 * Why not a Map: V8 rehashes a Map's table into a new one every few dozen deletes, and the old
 * table keeps a link to its successor and its own entries (for live iterators). Once one table
 * has been moved to the old generation (any full collection while it is live does that), every
 * later table and every value it ever held survives each young collection through that chain,
 * until the next full collection. Under a steady stream of calls that is about 2 MB promoted per
 * scavenge on the host and pauses 5x longer (measured: issue 19, docs/decisions.md). Here the
 * numeric ids a peer hands out itself live in fixed arrays whose slots are cleared on delete, so
 * nothing outlives its request; any other id (a string, a number past the slots' reach when its
 * slot is taken by a straggler) goes to a Map, which only such rare keys churn.
 */
import type { JsonRpcId } from "../jsonrpc.js";

/**
 * Slots for numeric ids: ids handed out in sequence fill them round robin, so a request still in
 * flight 256 ids later (a slow call among fast ones) only sends that one later id to the Map.
 */
const SLOTS = 256;

/** `K` narrows the ids a table holds (a peer's own requests: numbers). */
export class IdTable<V, K extends JsonRpcId = JsonRpcId> {
  /** The id held by each slot, NaN when free (a Float64Array holds any u64 id below 2^53). */
  readonly #ids = new Float64Array(SLOTS).fill(Number.NaN);
  readonly #values: (V | undefined)[] = new Array<V | undefined>(SLOTS).fill(undefined);
  /** Ids that are not non-negative safe integers, or whose slot was taken. */
  readonly #other = new Map<K, V>();
  #slotted = 0;

  get size(): number {
    return this.#slotted + this.#other.size;
  }

  get(id: K): V | undefined {
    const i = slotOf(id);
    if (i !== -1 && this.#ids[i] === id) return this.#values[i];
    return this.#other.size === 0 ? undefined : this.#other.get(id);
  }

  has(id: K): boolean {
    const i = slotOf(id);
    if (i !== -1 && this.#ids[i] === id) return true;
    return this.#other.size !== 0 && this.#other.has(id);
  }

  set(id: K, value: V): this {
    const i = slotOf(id);
    if (i !== -1 && this.#ids[i] === id) {
      this.#values[i] = value;
    } else if (i !== -1 && Number.isNaN(this.#ids[i]) && !this.#other.has(id)) {
      this.#ids[i] = id as number;
      this.#values[i] = value;
      this.#slotted++;
    } else {
      this.#other.set(id, value);
    }
    return this;
  }

  delete(id: K): boolean {
    const i = slotOf(id);
    if (i !== -1 && this.#ids[i] === id) {
      this.#ids[i] = Number.NaN;
      this.#values[i] = undefined;
      this.#slotted--;
      return true;
    }
    return this.#other.size !== 0 && this.#other.delete(id);
  }

  clear(): void {
    this.#ids.fill(Number.NaN);
    this.#values.fill(undefined);
    this.#slotted = 0;
    this.#other.clear();
  }

  /**
   * The entries as a snapshot (deleting while walking it is safe), numeric ids in ascending
   * order, which for ids handed out in sequence is the order they were added; the rest after.
   */
  entries(): [K, V][] {
    const out: [K, V][] = [];
    if (this.#slotted > 0) {
      for (let i = 0; i < SLOTS; i++) {
        const id = this.#ids[i] as number;
        if (!Number.isNaN(id)) out.push([id as K, this.#values[i] as V]);
      }
    }
    for (const entry of this.#other) out.push(entry);
    return out.sort(byId);
  }

  keys(): K[] {
    return this.entries().map((e) => e[0]);
  }

  values(): V[] {
    return this.entries().map((e) => e[1]);
  }
}

function slotOf(id: JsonRpcId): number {
  return typeof id === "number" && id >= 0 && Number.isSafeInteger(id) ? id % SLOTS : -1;
}

/** Numbers ascending before strings (in the order the Map holds them: sort is stable). */
function byId(a: [JsonRpcId, unknown], b: [JsonRpcId, unknown]): number {
  const x = a[0];
  const y = b[0];
  if (typeof x === "number" && typeof y === "number") return x - y;
  if (typeof x === "number") return -1;
  if (typeof y === "number") return 1;
  return 0;
}
