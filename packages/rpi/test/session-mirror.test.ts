// The session part of rpi invocation contexts (octet/session-mirror.ts): entries as deltas, the
// per-invocation byte bound at its limit and past it, oversized entries as stubs, a new session
// starting over, and the same object while nothing changed (so the context is encoded once).
import { test } from "node:test";
import assert from "node:assert/strict";
import type { ForeignSessionState } from "@octet/protocol";
import { MAX_DELTA_BYTES, MAX_ENTRY_BYTES, SessionMirror, mirrorBounds } from "../src/octet/session-mirror.js";

function state(entries: Record<string, unknown>[], o: Partial<ForeignSessionState> = {}): ForeignSessionState {
  return {
    id: "s1",
    file: "/tmp/s1.jsonl",
    name: null,
    leafId: null,
    idle: true,
    pendingMessages: false,
    systemPrompt: "system",
    contextUsage: null,
    model: null,
    entries,
    ...o,
  };
}

/** An entry of exactly `bytes` bytes as JSON. */
function sized(id: string, bytes: number): Record<string, unknown> {
  const base = JSON.stringify({ type: "custom", id, data: "" }).length;
  return { type: "custom", id, data: "x".repeat(bytes - base) };
}

test("session mirror: the first context carries every entry, the next only the new ones", () => {
  const m = new SessionMirror();
  const entries = [sized("a", 100), sized("b", 100)];
  const first = m.next(state(entries))!;
  assert.deepEqual(first.entries, { from: 0, items: entries });
  const more = [...entries, sized("c", 100)];
  const second = m.next(state(more))!;
  assert.deepEqual(second.entries, { from: 2, items: [more[2]] });
  const third = m.next(state(more))!;
  assert.deepEqual(third.entries, { from: 3, items: [] });
  assert.equal(m.next(state(more)), third, "nothing changed: the same object");
  assert.notEqual(m.next(state(more, { idle: false })), third, "a changed field is a new context");
});

test("session mirror: at most MAX_DELTA_BYTES of entries per context; the rest follows", () => {
  const m = new SessionMirror();
  // Entries under the per-entry bound (an entry over it would be a small stub).
  const eighth = MAX_DELTA_BYTES / 8;
  // Eight entries of exactly an eighth: at the limit, all in one context.
  const exact = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => sized(`e${i}`, eighth));
  assert.equal(m.next(state(exact))!.entries.items.length, 8);
  // One byte more in total: the last entry waits for the next context.
  const m2 = new SessionMirror();
  const over = [...exact.slice(0, 7), sized("e7", eighth + 1)];
  const a = m2.next(state(over))!;
  assert.equal(a.entries.items.length, 7);
  const b = m2.next(state(over))!;
  assert.deepEqual(b.entries, { from: 7, items: [over[7]] });
});

test("session mirror: an entry over MAX_ENTRY_BYTES is a stub naming its size; at the limit it is whole", () => {
  const m = new SessionMirror();
  const whole = sized("w", MAX_ENTRY_BYTES);
  const big = sized("big", MAX_ENTRY_BYTES + 1);
  const items = m.next(state([whole, big]))!.entries.items;
  assert.deepEqual(items[0], whole);
  assert.equal(items[1]!["id"], "big");
  assert.equal(items[1]!["data"], undefined);
  assert.match(String(items[1]!["octetOmitted"]), new RegExp(`${MAX_ENTRY_BYTES + 1} bytes`));
});

test("session mirror: another session starts over from 0", () => {
  const m = new SessionMirror();
  m.next(state([sized("a", 50)]));
  const other = m.next(state([sized("z", 50)], { id: "s2" }))!;
  assert.equal(other.entries.from, 0);
  assert.equal(other.id, "s2");
  assert.equal(m.next(null), null, "no session: no session context");
});

test("session mirror: smaller frames bound the delta to an eighth of a frame and an entry to a quarter of that", () => {
  assert.deepEqual(mirrorBounds(1024 * 1024), { delta: MAX_DELTA_BYTES, entry: MAX_ENTRY_BYTES, models: 65536 });
  assert.deepEqual(mirrorBounds(64 * 1024), { delta: 8192, entry: 2048, models: 4096 });
  const m = new SessionMirror(mirrorBounds(64 * 1024));
  const items = m.next(state([sized("a", 2048), sized("b", 2049)]))!.entries.items;
  assert.equal(items[0]!["data"], sized("a", 2048)["data"], "at the entry bound: whole");
  assert.match(String(items[1]!["octetOmitted"]), /2049 bytes as JSON, over the 2048-byte mirror bound/);
});

test("session mirror: the model registry goes as chunks within its bound, then not again until it changes", () => {
  const list = Array.from({ length: 40 }, (_, i) => ({
    model: { provider: "p", id: `m${i}`, name: "x".repeat(200) },
    available: i < 2,
  }));
  const bounds = mirrorBounds(64 * 1024); // models: 4096 bytes per invocation
  const m = new SessionMirror(bounds);
  const sent: unknown[] = [];
  let version = 0;
  for (let i = 0; i < 10; i++) {
    const models = m.next(state([], { models: { list } }))!.models;
    if (models === undefined) break;
    assert.equal(models.from, sent.length, "each chunk follows the last");
    assert.ok(JSON.stringify(models.items).length <= bounds.models + 300, "one chunk stays near its bound");
    version = models.version;
    sent.push(...models.items);
  }
  assert.deepEqual(sent, list, "every model arrives, in order");
  assert.equal(m.next(state([], { models: { list } }))!.models, undefined, "nothing new: no models part");
  const changed = [...list.slice(0, 3)];
  const again = m.next(state([], { models: { list: changed } }))!.models!;
  assert.equal(again.from, 0, "a new list starts over");
  assert.ok(again.version > version);
  assert.deepEqual(again.items, changed);
});

test("session mirror: the thinking level is part of the context and a change makes a new one", () => {
  const m = new SessionMirror();
  const first = m.next(state([], { thinkingLevel: "off" }))!;
  assert.equal(first.thinkingLevel, "off");
  assert.equal(m.next(state([], { thinkingLevel: "off" })), first, "unchanged: the same object");
  assert.equal(m.next(state([], { thinkingLevel: "high" }))!.thinkingLevel, "high");
});
