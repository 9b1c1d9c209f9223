/**
 * ext.shortcut / ext.autocomplete / ctx.composer locally (frontend.ts): what is selected in
 * negotiation, and what is refused before anything is sent.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { negotiate } from "../src/negotiation.js";
import { FrontendRegistry } from "../src/frontend.js";
import { offer } from "./harness.js";
import type { Link } from "../src/link.js";

const ALL = ["composer", "shortcuts", "autocomplete", "autocomplete_edit_v1"];

test("INIT-42, INIT-44: shortcuts and autocomplete are selected only when used; edit_v1 only on API 0.4", () => {
  const selected = (api: "0.2" | "0.4", shortcuts: boolean, autocomplete: boolean) =>
    (
      negotiate(offer(api, ALL), { api, maxConcurrent: 1, lifecycleEvents: [], tools: [], shortcuts, autocomplete })
        .protocol["features"] as string[]
    ).filter((f) => ALL.includes(f));
  assert.deepEqual(selected("0.4", false, false), ["composer"]);
  assert.deepEqual(selected("0.4", true, true), ALL);
  assert.deepEqual(selected("0.2", true, true), ["composer", "shortcuts", "autocomplete"]);
});

test("WAVE1-25, WAVE1-26: a shortcut needs a handler and a valid, free key; its id is the canonical key", () => {
  const r = new FrontendRegistry();
  assert.equal(
    r.addShortcut("meta+x", () => {}, "x"),
    "key:alt+x",
  );
  assert.throws(() => r.addShortcut("alt+x", () => {}), /^TypeError: invalid_request .*registered twice/);
  assert.throws(() => r.addShortcut("ctrl+g", undefined as never), /needs a handler function/);
  assert.throws(() => r.addShortcut("ctrl+c", () => {}), /bound by the line editor/);
  assert.throws(() => r.addShortcut("ctrl+g", () => {}, "d".repeat(4097)), /^RangeError: bounds_exceeded/);
  assert.equal(r.wantsShortcuts, true);
});

test("WAVE1-22: the 65th shortcut is refused locally", () => {
  const r = new FrontendRegistry();
  const mods = ["ctrl+alt+", "alt+", "ctrl+alt+shift+", "alt+shift+"];
  const keys = [..."0123456789gqrsvx"].flatMap((c) => mods.map((m) => `${m}${c}`));
  let added = 0;
  for (const k of keys.slice(0, 64)) {
    r.addShortcut(k, () => {});
    added++;
  }
  assert.equal(added, 64);
  assert.throws(() => r.addShortcut("ctrl+shift+g", () => {}), /^RangeError: bounds_exceeded shortcut\(\): 64/);
});

test("WAVE1-03: a trigger for an id that was never registered or sent runs nothing", async () => {
  const r = new FrontendRegistry();
  let ran = 0;
  r.addShortcut("ctrl+g", () => void ran++);
  r.trigger({ id: "key:ctrl+g" });
  r.trigger({ id: "key:ctrl+x" });
  r.trigger({ nope: 1 });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ran, 0, "not registered with a host yet: unavailable");
});

test("ACMP-05: the answer is checked locally: 1,024-byte fields pass; 1,025 bytes or a control throw", async () => {
  const r = new FrontendRegistry();
  let answer: unknown = null;
  r.setAutocomplete(async () => answer as never);
  // The link as negotiated: complete() only reads its features, and refuses before anything is written.
  const link = { api: "0.4", features: new Set(["autocomplete"]), peer: null } as unknown as Link;
  const query = { text: "é", cursor: 2, revision: 1 };
  const at = "é".repeat(512);
  answer = { prefix: "é", items: [{ value: "😀".repeat(256), label: at, description: `${"文".repeat(341)}x` }] };
  const sent = (await r.complete(query, link)) as { items: { value: string; label: string; description: string }[] };
  assert.deepEqual(
    [sent.items[0]?.value, sent.items[0]?.label, sent.items[0]?.description].map((s) => Buffer.byteLength(s ?? "")),
    [1024, 1024, 1024],
  );
  for (const [field, item] of [
    ["value", { value: `${at}x`, label: "l" }],
    ["label", { value: "v", label: `${at}x` }],
    ["description", { value: "v", label: "l", description: `${at}x` }],
  ] as const) {
    answer = { prefix: "", items: [item] };
    await assert.rejects(
      r.complete(query, link),
      new RegExp(`^WireError: bounds_exceeded .*items\\[0\\]\\.${field}: 1025 bytes`),
    );
  }
  answer = { prefix: `${at}x`, items: [] };
  await assert.rejects(r.complete({ ...query, text: `${at}x`, cursor: 1025 }, link), /bounds_exceeded .*prefix: 1025/);
  for (const [field, item] of [
    ["value", { value: "a\u0007", label: "l" }],
    ["label", { value: "v", label: "\u009b31m" }],
    ["description", { value: "v", label: "l", description: "a\tb" }],
  ] as const) {
    answer = { prefix: "", items: [item] };
    await assert.rejects(r.complete(query, link), new RegExp(`invalid_request .*items\\[0\\]\\.${field}: control`));
  }
});
