// session/send_message, session/send_user_message (W 2.22) and tools/set_active (W 2.23) as the
// host modules answer them: the bounds at the limit and one past, the roles, the owner rules
// (WAVE1-10..12) and what the embedder's service is given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, WireError } from "@octet/protocol";
import { messageInjectionModule } from "../../../src/modules/message-injection/module.js";
import { activeToolsModule } from "../../../src/modules/active-tools/module.js";
import { BARE_HOST } from "../../../src/modules/registry.js";
import type { GenerationService, HostModule } from "../../../src/modules/module.js";
import type { HostServiceOptions } from "../../../src/modules/options.js";
import { call, fakeGeneration, wireError, type FakeGeneration } from "../fake-generation.js";

function setup(fail?: Error) {
  const given: Record<string, unknown>[] = [];
  const record = async (r: Record<string, unknown>): Promise<void> => {
    if (fail) throw fail;
    given.push({ ...r, signal: undefined });
  };
  const options = {
    messageInjection: { sendMessage: record, sendUserMessage: record },
    activeTools: { setActive: record },
  } as unknown as HostServiceOptions;
  const g = fakeGeneration();
  const open = (m: HostModule): GenerationService => {
    const binding = m.bind!(options, BARE_HOST);
    return m.open(g, binding)!;
  };
  const s: GenerationService = {
    features: [],
    requests: { ...open(messageInjectionModule).requests, ...open(activeToolsModule).requests },
  };
  g.addParent(2);
  return { g, s, given };
}

const TEXT = 262_144;

test("WAVE1-32, WAVE1-34: text of 256 KiB is admitted ({}), one byte more is bounds_exceeded", async () => {
  const { g, s, given } = setup();
  const text = "t".repeat(TEXT);
  assert.deepEqual(await call(g, s, "session/send_message", { parent_request_id: 2, role: "system", text }), {});
  assert.deepEqual(await call(g, s, "session/send_user_message", { parent_request_id: 2, text }), {});
  assert.equal(given.length, 2);
  assert.equal(given[0]!["role"], "system");
  assert.equal(given[0]!["extension"], "ext");
  for (const [method, extra] of [
    ["session/send_message", { role: "assistant" }],
    ["session/send_user_message", {}],
  ] as const) {
    const err = await wireError(call(g, s, method, { parent_request_id: 2, ...extra, text: `${text}t` }));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, new RegExp(`^bounds_exceeded ${method}: text: 262145 bytes, over the 262144-byte`));
  }
  assert.equal(given.length, 2, "nothing past the bound reaches the embedder");
});

test("WAVE1-33: role user, another role or none is invalid_request, never coerced; empty text too", async () => {
  const { g, s, given } = setup();
  for (const role of ["user", "tool", undefined, 3]) {
    const err = await wireError(call(g, s, "session/send_message", { parent_request_id: 2, role, text: "x" }));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /^invalid_request session\/send_message: role: /);
  }
  const empty = await wireError(call(g, s, "session/send_user_message", { parent_request_id: 2, text: " " }));
  assert.match(empty.message, /^invalid_request .*text: must not be empty/);
  assert.equal(given.length, 0);
});

test("WAVE1-35, WAVE1-36: 256 names of 128 bytes pass; 257 names, 129 bytes or a repeat do not", async () => {
  const { g, s, given } = setup();
  const names = Array.from({ length: 256 }, (_, i) => `${String(i).padStart(3, "0")}${"n".repeat(125)}`);
  assert.deepEqual(await call(g, s, "tools/set_active", { parent_request_id: 2, names }), {});
  assert.deepEqual(given[0]!["names"], names);
  assert.deepEqual(await call(g, s, "tools/set_active", { parent_request_id: 2, names: [] }), {}, "empty is a set");
  const past = [
    [[...names, "x"], /^bounds_exceeded tools\/set_active: names: 257 names, over the 256-name limit/],
    [["n".repeat(129)], /^bounds_exceeded .*names\[0\]: 129 bytes, over the 128-byte limit/],
    [["a", "a"], /^invalid_request .*names: lists a more than once/],
    [[""], /^invalid_request .*names\[0\]: must not be empty/],
  ] as const;
  for (const [bad, message] of past) {
    const err = await wireError(call(g, s, "tools/set_active", { parent_request_id: 2, names: bad }));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, message);
  }
  assert.equal(given.length, 2);
});

test("WAVE1-12, WAVE1-34, WAVE1-37: no, inactive or settled parent, or foreign owner: -32002", async () => {
  const { g, s, given } = setup();
  const cases: [string, Record<string, unknown>][] = [
    ["session/send_message", { role: "system", text: "x" }],
    ["session/send_user_message", { text: "x" }],
    ["tools/set_active", { names: ["a"] }],
  ];
  g.addParent(5).abort();
  const foreign = { session_id: "other", extension_instance_id: "i-1", process_generation: 1 };
  for (const [method, params] of cases) {
    const missing = await wireError(call(g, s, method, params));
    assert.equal(missing.code, ErrorCode.Unavailable);
    assert.match(missing.message, new RegExp(`^not_foreground_owner ${method} refused: parent_request_id is missing`));
    const settled = await wireError(call(g, s, method, { parent_request_id: 5, ...params }));
    assert.match(settled.message, /^not_foreground_owner .*parent_request_id 5 is not an active/);
    const forged = await wireError(call(g, s, method, { parent_request_id: 5, resource_owner: foreign, ...params }));
    assert.match(forged.message, /^not_foreground_owner .*resource_owner is not the owner issued/);
  }
  assert.equal(given.length, 0);
});

test("WAVE1-10, WAVE1-11: a live parent's owner wins; after it settled the issued triple is admitted", async () => {
  const { g, s, given } = setup();
  const foreign = { session_id: "other", extension_instance_id: "x", process_generation: 7 };
  await call(g, s, "session/send_user_message", { parent_request_id: 2, resource_owner: foreign, text: "a" });
  assert.deepEqual(given[0]!["owner"], g.owner());
  await call(g, s, "tools/set_active", { parent_request_id: 44, resource_owner: g.owner(), names: ["a"] });
  await call(g, s, "session/send_message", {
    parent_request_id: 44,
    resource_owner: g.owner(),
    role: "assistant",
    text: "b",
  });
  assert.equal(given.length, 3);
});

test("W 2.22: an embedder's WireError reaches the extension as it is; another failure is -32603", async () => {
  const broken = setup(new Error("disk full"));
  const err = await wireError(
    call(broken.g, broken.s, "session/send_user_message", { parent_request_id: 2, text: "x" }),
  );
  assert.equal(err.code, ErrorCode.InternalError);
  assert.match(err.message, /^internal_error session\/send_user_message failed: disk full/);
  const full = setup(new WireError(ErrorCode.LifecycleExhausted, "queue_full 16 queued"));
  const passed = await wireError(
    call(full.g, full.s, "session/send_user_message", { parent_request_id: 2, text: "x" }),
  );
  assert.equal(passed.code, ErrorCode.LifecycleExhausted);
  assert.equal(passed.message, "queue_full 16 queued");
});

test("WAVE1-37: without the embedder's service neither feature is bound, so neither is offered", () => {
  assert.equal(messageInjectionModule.bind!({}, BARE_HOST), null);
  assert.equal(activeToolsModule.bind!({}, BARE_HOST), null);
  assert.throws(
    () => activeToolsModule.bind!({ activeTools: {} as never }, BARE_HOST),
    /services\.activeTools\.setActive must be a function/,
  );
});
