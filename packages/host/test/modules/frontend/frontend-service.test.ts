// composer/*, shortcut/register, ui/autocomplete/register (W 2.19, W 2.20, W 2.24b) in one
// generation: the owner rules (WAVE1-10..12, WAVE1-16), the bounds at the limit and one past,
// registration inside initialize only (WAVE1-24) and the refusal without a terminal (ACMP-01).
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode } from "@octet/protocol";
import { FrontendHub, type FrontendService } from "../../../src/modules/frontend/frontend-service.js";
import { call, fakeGeneration, wireError, type FakeGeneration } from "../fake-generation.js";
import type { GenerationService } from "../../../src/modules/module.js";

const INIT_ID = 0;

function setup(interactive = true) {
  let line = "";
  let cursor = 0;
  const frontend: FrontendService = {
    interactive: () => interactive,
    composer: {
      get: () => line,
      set: (t) => {
        line = t;
        cursor = t.length;
      },
      insert: (t) => {
        line = line.slice(0, cursor) + t + line.slice(cursor);
        cursor += t.length;
      },
    },
  };
  const g: FakeGeneration = fakeGeneration();
  const init = new AbortController();
  const toolParents = g.activeRequest;
  // The generation names the in-flight initialize request as a parent of method "initialize".
  g.activeRequest = (id) =>
    id === INIT_ID && !init.signal.aborted
      ? { method: "initialize", signal: init.signal, takeApproval: () => false }
      : toolParents(id);
  const s = new FrontendHub(frontend).open(g) as GenerationService;
  g.addParent(2);
  return { g, s, init, line: () => line, setCursor: (c: number) => (cursor = c) };
}

test("WAVE1-14, WAVE1-15: composer/get, set and insert act on the line editor at its cursor", async () => {
  const t = setup();
  assert.deepEqual(await call(t.g, t.s, "composer/set", { parent_request_id: 2, text: "hello world" }), {});
  t.setCursor(5);
  assert.deepEqual(await call(t.g, t.s, "composer/insert", { parent_request_id: 2, text: "," }), {});
  assert.deepEqual(await call(t.g, t.s, "composer/get", { parent_request_id: 2 }), { text: "hello, world" });
});

test("WAVE1-17: 256 KiB of composer text is set; one byte more is bounds_exceeded and nothing changes", async () => {
  const t = setup();
  const max = "x".repeat(262_144);
  await call(t.g, t.s, "composer/set", { parent_request_id: 2, text: max });
  assert.equal(t.line(), max);
  const err = await wireError(call(t.g, t.s, "composer/set", { parent_request_id: 2, text: `${max}x` }));
  assert.equal(err.code, ErrorCode.InvalidParams);
  assert.match(err.message, /^bounds_exceeded composer\/set: text: 262145 bytes, over the 262144-byte limit/);
  const ctl = await wireError(call(t.g, t.s, "composer/insert", { parent_request_id: 2, text: "\u001b[2J" }));
  assert.match(ctl.message, /^invalid_request composer\/insert: text: control character U\+001B/);
  assert.equal(t.line(), max);
});

test("WAVE1-10..12, WAVE1-16: a live parent wins; a settled parent needs the exact issued owner", async () => {
  const t = setup();
  const owner = t.g.owner();
  const foreign = { ...owner, extension_instance_id: "someone-else" };
  // A live parent's owner wins over any explicit owner.
  await call(t.g, t.s, "composer/set", { parent_request_id: 2, text: "a", resource_owner: foreign });
  // No live parent: the issued triple is admitted, a foreign one and none are not_foreground_owner.
  await call(t.g, t.s, "composer/set", { parent_request_id: 9, text: "b", resource_owner: owner });
  assert.equal(t.line(), "b");
  for (const extra of [{ resource_owner: foreign }, { resource_owner: { ...owner, process_generation: 7 } }, {}]) {
    const err = await wireError(call(t.g, t.s, "composer/get", { parent_request_id: 9, ...extra }));
    assert.equal(err.code, ErrorCode.Unavailable);
    assert.match(err.message, /^not_foreground_owner composer\/get refused/);
  }
});

test("ACMP-01: without an interactive frontend the composer and autocomplete registration are refused", async () => {
  const t = setup(false);
  const err = await wireError(call(t.g, t.s, "composer/get", { parent_request_id: 2 }));
  assert.equal(err.code, ErrorCode.Unavailable);
  assert.match(err.message, /no interactive frontend/);
  const reg = await wireError(call(t.g, t.s, "ui/autocomplete/register", { revision: 1 }));
  assert.match(reg.message, /no interactive frontend/);
  const live = setup(true);
  assert.deepEqual(await call(live.g, live.s, "ui/autocomplete/register", { revision: 1 }), { accepted: true });
});

test("WAVE1-22: 64 shortcuts are admitted inside initialize; the 65th is bounds_exceeded", async () => {
  const t = setup();
  const keys = [..."0123456789"].flatMap((d) => [`ctrl+alt+${d}`, `alt+${d}`, `ctrl+${d}`, `ctrl+alt+shift+${d}`]);
  const more = [..."gqrsvx"].flatMap((c) => [`ctrl+alt+${c}`, `alt+${c}`, `ctrl+shift+${c}`, `alt+shift+${c}`]);
  const all = [...keys, ...more, "f1"];
  for (let i = 0; i < 64; i++)
    assert.deepEqual(
      await call(t.g, t.s, "shortcut/register", {
        parent_request_id: INIT_ID,
        id: `s${i}`,
        key: all[i],
        description: "",
      }),
      {},
    );
  const err = await wireError(
    call(t.g, t.s, "shortcut/register", { parent_request_id: INIT_ID, id: "s64", key: all[64], description: "" }),
  );
  assert.match(err.message, /^bounds_exceeded shortcut\/register: 64 shortcuts, the limit/);
});

test("WAVE1-23, WAVE1-24: a duplicate id or key, or a registration after initialize settled, is refused", async () => {
  const t = setup();
  const reg = (id: string, key: string, parent = INIT_ID) =>
    call(t.g, t.s, "shortcut/register", { parent_request_id: parent, id, key, description: "d" });
  assert.deepEqual(await reg("a", "ctrl+g"), {});
  assert.match((await wireError(reg("a", "ctrl+x"))).message, /^invalid_request .*duplicate/);
  assert.match((await wireError(reg("b", "ctrl+g"))).message, /^invalid_request .*already registered/);
  assert.match((await wireError(reg("c", "ctrl+a"))).message, /^invalid_request .*bound by the line editor/);
  // A tool/call is not the initialize request.
  assert.match((await wireError(reg("d", "ctrl+r", 2))).message, /^not_foreground_owner/);
  t.init.abort();
  assert.match((await wireError(reg("e", "ctrl+r"))).message, /^not_foreground_owner .*inside the initialize/);
});
