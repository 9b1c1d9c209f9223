// pi's shortcuts and flags on the host side (issue 17, item 6): pi's key syntax mapped to octet's
// (WAVE1-26's grammar), the frames read strictly, and the catalog's capability rule and bounds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { RpiCatalog, type RegistrationFrame } from "../src/host/catalog.js";
import { parseExtensionFrame } from "../src/protocol/frames.js";
import { octetShortcutKey } from "../src/octet/shortcuts.js";

test("WAVE1-26: pi keys map onto octet's key syntax; what octet cannot bind is refused naming the pi key", () => {
  assert.deepEqual(octetShortcutKey("ctrl+shift+p"), { key: "ctrl+shift+p" });
  assert.deepEqual(octetShortcutKey("shift+ctrl+x"), { key: "ctrl+shift+x" }, "pi's Key.shiftCtrl order");
  assert.deepEqual(octetShortcutKey("Ctrl+G"), { key: "ctrl+g" });
  assert.deepEqual(octetShortcutKey("alt+x"), { key: "alt+x" });
  assert.deepEqual(octetShortcutKey("f5"), { key: "f5" });
  const refused = (key: string): string => {
    const r = octetShortcutKey(key);
    assert.ok("refused" in r, `${key} should be refused`);
    return r.refused;
  };
  assert.equal(
    refused("super+k"),
    'the pi shortcut "super+k" cannot be bound: octet\'s terminal keys have no super modifier',
  );
  assert.match(refused("escape"), /^the pi shortcut "escape" cannot be bound: "escape": key "escape" is not a-z/);
  assert.match(refused("ctrl+pageUp"), /^the pi shortcut "ctrl\+pageUp" cannot be bound: .*key "pageup"/);
  assert.match(refused("ctrl+a"), /^the pi shortcut "ctrl\+a" cannot be bound: .*ctrl\+a is bound by the line editor/);
  assert.match(refused("x"), /a letter or digit needs a modifier/);
});

test("RPI-37: shortcut and flag registrations are read strictly", () => {
  const read = (registration: unknown) => parseExtensionFrame({ type: "register", registration });
  assert.deepEqual(read({ kind: "shortcut", shortcut: { key: "ctrl+g", description: "Go" } }), {
    ok: true,
    frame: { type: "register", registration: { kind: "shortcut", shortcut: { key: "ctrl+g", description: "Go" } } },
  });
  assert.deepEqual(read({ kind: "flag", flag: { name: "plan" } }), {
    ok: true,
    frame: { type: "register", registration: { kind: "flag", flag: { name: "plan" } } },
  });
  assert.deepEqual(read({ kind: "shortcut", shortcut: { key: "" } }), {
    ok: false,
    problem: 'registration.shortcut.key must be a non-empty string (got "")',
  });
  assert.deepEqual(read({ kind: "shortcut", shortcut: { key: "f1", description: 3 } }), {
    ok: false,
    problem: "registration.shortcut.description must be a string (got 3)",
  });
  assert.deepEqual(read({ kind: "flag", flag: {} }), {
    ok: false,
    problem: "registration.flag.name must be a non-empty string (got nothing)",
  });
});

test("RPI-27: a shortcut needs the commands capability, a flag none; 64 of each at most", () => {
  const catalog = new RpiCatalog(() => undefined);
  const shortcut = (key: string): RegistrationFrame => ({
    type: "register",
    registration: { kind: "shortcut", shortcut: { key } },
  });
  const flag = (name: string): RegistrationFrame => ({
    type: "register",
    registration: { kind: "flag", flag: { name } },
  });
  assert.equal(catalog.apply(shortcut("ctrl+g"), ["tools"]), "registered a shortcut without the commands capability");
  assert.equal(catalog.apply(shortcut("ctrl+g"), ["commands"]), null);
  assert.equal(catalog.apply(flag("plan"), []), null);
  for (let i = 1; i < 64; i++) {
    assert.equal(catalog.apply(shortcut(`alt+${i}`), ["commands"]), null);
    assert.equal(catalog.apply(flag(`f${i}`), []), null);
  }
  assert.equal(catalog.apply(shortcut("ctrl+g"), ["commands"]), null, "a key again replaces it");
  assert.equal(catalog.apply(shortcut("alt+z"), ["commands"]), 'registered more than 64 shortcuts ("alt+z")');
  assert.equal(catalog.apply(flag("over"), []), 'registered more than 64 flags ("over")');
  assert.equal(catalog.shortcuts().length, 64);
  assert.deepEqual(catalog.flags().slice(0, 2), ["plan", "f1"]);
});
