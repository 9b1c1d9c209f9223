import { test } from "node:test";
import assert from "node:assert/strict";
import { applyAutocompleteEdit } from "../../src/api/autocomplete-edit.js";
import { parseShortcutKey } from "../../src/api/shortcut-keys.js";
import {
  MAX_COMPOSER_BYTES,
  validateAutocompleteCompleteParams,
  validateAutocompleteRegisterParams,
  validateAutocompleteResult,
  validateComposerTextParams,
  validateShortcutRegisterParams,
} from "../../src/api/validate-frontend.js";
import { sessionEntriesRefusal } from "../../src/api/validate-session-entries.js";

test('ACMP-15: the test vector é" -> 文/" puts the cursor at byte 4, before the kept quote', () => {
  const r = applyAutocompleteEdit({ text: 'é"', cursor: 2 }, "é", {
    value: '文/"',
    replace_after_bytes: 1,
    cursor_offset_bytes: 4,
  });
  assert.deepEqual(r, { ok: true, text: '文/"', cursor: 4 });
});

test("ACMP-11, ACMP-14: absent edit fields replace only the prefix and put the cursor after the value", () => {
  assert.deepEqual(applyAutocompleteEdit({ text: "open fo bar", cursor: 7 }, "fo", { value: "foo.txt" }), {
    ok: true,
    text: "open foo.txt bar",
    cursor: 12,
  });
});

test("ACMP-14: a range or cursor off a UTF-8 boundary, or past the text, is refused and never moved", () => {
  const snap = { text: 'é"', cursor: 2 };
  const cases = [
    { value: "x", replace_after_bytes: 2 },
    { value: "文", cursor_offset_bytes: 1 },
    { value: "文", cursor_offset_bytes: 4 },
  ];
  for (const item of cases) assert.equal(applyAutocompleteEdit(snap, "é", item).ok, false, JSON.stringify(item));
  assert.equal(applyAutocompleteEdit({ text: "é", cursor: 1 }, "", { value: "x" }).ok, false);
  assert.equal(applyAutocompleteEdit(snap, "a", { value: "x" }).ok, false);
});

test("ACMP-13: an edit whose result passes the 262,144-byte editor budget is refused", () => {
  const text = "a".repeat(MAX_COMPOSER_BYTES - 1);
  assert.equal(applyAutocompleteEdit({ text, cursor: text.length }, "", { value: "b" }).ok, true);
  const r = applyAutocompleteEdit({ text, cursor: text.length }, "", { value: "bc" });
  assert.equal(r.ok, false);
  assert.match(r.ok ? "" : r.problem, /over the 262144-byte limit/);
});

test("ACMP-02: the request cursor must be a character boundary of the snapshot", () => {
  assert.equal(validateAutocompleteCompleteParams({ text: "é", cursor: 1, revision: 0 }).ok, false);
  assert.equal(validateAutocompleteCompleteParams({ text: "é", cursor: 2, revision: 0 }).ok, true);
  assert.equal(validateAutocompleteRegisterParams({ revision: -1 }).ok, false);
});

test("ACMP-03..05: 32 items pass and 33 do not; a field of 1,024 bytes passes and 1,025 does not", () => {
  const req = { text: "ab", cursor: 2, revision: 1 };
  const item = (value: string) => ({ value, label: "l", description: null });
  const items = (n: number) => Array.from({ length: n }, (_, i) => item(`b${i}`));
  assert.equal(validateAutocompleteResult({ prefix: "b", items: items(32) }, req, false).ok, true);
  const over = validateAutocompleteResult({ prefix: "b", items: items(33) }, req, false);
  assert.equal(over.ok, false);
  assert.equal(sessionEntriesRefusal(over.ok ? [] : over.problems), "bounds_exceeded");
  assert.equal(validateAutocompleteResult({ prefix: "", items: [item("x".repeat(1024))] }, req, false).ok, true);
  assert.equal(validateAutocompleteResult({ prefix: "", items: [item("x".repeat(1025))] }, req, false).ok, false);
  assert.equal(validateAutocompleteResult({ prefix: "b", items: [item("a\u001b[2J")] }, req, false).ok, false);
});

test("ACMP-05: prefix, value, label and description: 1,024 UTF-8 bytes pass, 1,025 and a control do not", () => {
  // Multibyte at the limit: 512 two-byte é and 256 four-byte emoji are each exactly 1,024 bytes.
  const limits = ["x".repeat(1024), "é".repeat(512), "😀".repeat(256)];
  const overs = ["x".repeat(1025), `${"é".repeat(512)}x`, `${"😀".repeat(256)}x`];
  const shapes = (s: string) => ({
    prefix: { text: s, answer: { prefix: s, items: [{ value: "v", label: "l", description: null }] } },
    value: { text: "", answer: { prefix: "", items: [{ value: s, label: "l", description: null }] } },
    label: { text: "", answer: { prefix: "", items: [{ value: "v", label: s, description: null }] } },
    description: { text: "", answer: { prefix: "", items: [{ value: "v", label: "l", description: s }] } },
  });
  const check = (s: string, edit: boolean) =>
    Object.entries(shapes(s)).map(([field, { text, answer }]) => {
      const r = validateAutocompleteResult(answer, { text, cursor: Buffer.byteLength(text), revision: 1 }, edit);
      return [field, r.ok ? "ok" : `${sessionEntriesRefusal(r.problems)} ${r.problems.join("; ")}`];
    });
  for (const s of limits)
    for (const [field, outcome] of check(s, false)) assert.equal(outcome, "ok", `${field} at 1,024 bytes`);
  for (const s of overs)
    for (const [field, outcome] of check(s, false)) {
      assert.match(outcome ?? "", /^bounds_exceeded /, `${field} at 1,025 bytes`);
      assert.match(outcome ?? "", /1025 bytes, over the 1024-byte limit/, field);
    }
  // A control character anywhere, in the base profile and under edit_v1 alike (ESC, NUL, DEL, C1 NEL).
  for (const c of ["\u001b", "\u0000", "\u007f", "\u0085"])
    for (const edit of [false, true])
      for (const [field, outcome] of check(`a${c}b`, edit))
        assert.match(outcome ?? "", /^invalid_request .*control character U\+00/, `${field} ${JSON.stringify(c)}`);
  // LF/TAB/CR: never in a label or description, nor in a base-profile prefix or value.
  for (const [field, outcome] of check("a\nb", false)) assert.match(outcome ?? "", /control character U\+000A/, field);
  const edited = Object.fromEntries(check("a\tb", true));
  assert.deepEqual([edited.prefix, edited.value], ["ok", "ok"]);
  assert.match(edited.label ?? "", /control character U\+0009/);
  assert.match(edited.description ?? "", /control character U\+0009/);
});

test("ACMP-04: a prefix that is not the exact suffix before the cursor is rejected", () => {
  const req = { text: "abc", cursor: 2, revision: 1 };
  assert.equal(validateAutocompleteResult({ prefix: "ab", items: [] }, req, false).ok, true);
  assert.equal(validateAutocompleteResult({ prefix: "bc", items: [] }, req, false).ok, false);
});

test("ACMP-09, ACMP-10, ACMP-12: the edit fields exist only with autocomplete_edit_v1, as u32 integers", () => {
  const req = { text: "a", cursor: 1, revision: 1 };
  const withField = (v: unknown) => ({
    prefix: "a",
    items: [{ value: "b", label: "b", description: null, replace_after_bytes: v }],
  });
  assert.equal(validateAutocompleteResult(withField(0), req, false).ok, false);
  assert.equal(validateAutocompleteResult(withField(0), req, true).ok, true);
  for (const bad of [null, -1, 1.5, 2 ** 32])
    assert.equal(validateAutocompleteResult(withField(bad), req, true).ok, false, String(bad));
  const lf = { prefix: "a", items: [{ value: "b\nc\r", label: "b", description: null }] };
  assert.equal(validateAutocompleteResult(lf, req, false).ok, false);
  assert.equal(validateAutocompleteResult(lf, req, true).ok, true);
  const labelLf = { prefix: "a", items: [{ value: "b", label: "b\n", description: null }] };
  assert.equal(validateAutocompleteResult(labelLf, req, true).ok, false);
});

test("WAVE1-17: composer text of 256 KiB passes; one byte more, a lone surrogate or an escape is refused", () => {
  const ok = validateComposerTextParams({ parent_request_id: 1, text: "x".repeat(MAX_COMPOSER_BYTES) });
  assert.equal(ok.ok, true);
  const big = validateComposerTextParams({ parent_request_id: 1, text: "x".repeat(MAX_COMPOSER_BYTES + 1) });
  assert.equal(sessionEntriesRefusal(big.ok ? [] : big.problems), "bounds_exceeded");
  for (const text of ["a\ud800b", "a\u001b[31m"]) {
    const r = validateComposerTextParams({ parent_request_id: 1, text });
    assert.equal(r.ok, false);
    assert.equal(sessionEntriesRefusal(r.ok ? [] : r.problems), "invalid_request");
  }
  assert.equal(validateComposerTextParams({ parent_request_id: 1, text: "ok 😀" }).ok, true);
});

test("WAVE1-22: shortcut id 128 bytes, key 128 bytes and description 4 KiB are the bounds", () => {
  const base = { parent_request_id: 0, id: "a".repeat(128), key: "ctrl+g", description: "d".repeat(4096) };
  assert.equal(validateShortcutRegisterParams(base).ok, true);
  assert.equal(validateShortcutRegisterParams({ ...base, id: "a".repeat(129) }).ok, false);
  assert.equal(validateShortcutRegisterParams({ ...base, description: "d".repeat(4097) }).ok, false);
  assert.equal(validateShortcutRegisterParams({ ...base, key: `ctrl+${"g".repeat(128)}` }).ok, false);
});

test("WAVE1-26: the key syntax: lowercase modifiers + one key; editor keys and bare letters refused", () => {
  const good = parseShortcutKey("meta+ctrl+x");
  assert.deepEqual(good.ok && good.key.canonical, "ctrl+alt+x");
  assert.equal(parseShortcutKey("f5").ok, true);
  assert.equal(parseShortcutKey("ctrl+shift+p").ok, true);
  for (const bad of ["ctrl+c", "ctrl+a", "x", "shift+x", "Ctrl+g", "ctrl+ctrl+g", "hyper+g", "ctrl+tab", "alt+b"])
    assert.equal(parseShortcutKey(bad).ok, false, bad);
});
