/**
 * ext.shortcut / ext.autocomplete / ctx.composer locally (frontend.ts): what is selected in
 * negotiation, and what is refused before anything is sent.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { negotiate } from "../src/negotiation.js";
import { FrontendRegistry } from "../src/frontend.js";
import { offer } from "./harness.js";

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
