// session/append_entry, session/set_name, session/set_label (W 2.21): the bounds at the limit and
// one past, the owner rules (WAVE1-10..12, WAVE1-31) and what the embedder's writer is given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, WireError, bounds } from "@octet/protocol";
import {
  sessionEntriesService,
  type SessionEntriesService,
  type SessionEntryRequester,
} from "../../../src/modules/session-entries/session-entries-service.js";
import { call, fakeGeneration, wireError, type FakeGeneration } from "../fake-generation.js";
import type { GenerationService } from "../../../src/modules/module.js";

interface Written {
  method: string;
  r: SessionEntryRequester & Record<string, unknown>;
}

function setup(fail?: Error): { g: FakeGeneration; s: GenerationService; written: Written[] } {
  const written: Written[] = [];
  let next = 0;
  const service: SessionEntriesService = {
    async append(r) {
      if (fail) throw fail;
      written.push({ method: "append", r: { ...r } });
      return { entry_id: `e${++next}` };
    },
    async setName(r) {
      written.push({ method: "setName", r: { ...r } });
    },
    async setLabel(r) {
      written.push({ method: "setLabel", r: { ...r } });
    },
  };
  const g = fakeGeneration();
  const s = sessionEntriesService(service)(g);
  g.addParent(2);
  return { g, s, written };
}

/** A JSON string value whose encoding (with its quotes) is exactly `bytes` bytes. */
const dataOf = (bytes: number): string => "x".repeat(bytes - 2);

test("WAVE1-29: entry_type of 128 bytes and data of 64 KiB are written; one byte more is bounds_exceeded", async () => {
  const { g, s, written } = setup();
  const type = "t".repeat(bounds.MAX_SESSION_ENTRY_TYPE_BYTES);
  const data = dataOf(bounds.MAX_SESSION_ENTRY_DATA_BYTES);
  assert.deepEqual(await call(g, s, "session/append_entry", { parent_request_id: 2, entry_type: type, data }), {
    entry_id: "e1",
  });
  assert.equal(written[0]!.r["entry_type"], type);
  assert.equal(written[0]!.r["data"], data);
  for (const params of [
    { entry_type: `${type}t`, data: 1 },
    { entry_type: "t", data: dataOf(bounds.MAX_SESSION_ENTRY_DATA_BYTES + 1) },
  ]) {
    const err = await wireError(call(g, s, "session/append_entry", { parent_request_id: 2, ...params }));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, /^bounds_exceeded session\/append_entry: (entry_type|data): .*over the (128|65536)-byte/);
  }
  assert.equal(written.length, 1, "nothing past a bound reaches the writer");
});

test("WAVE1-29: data nested past 32 levels or missing is refused; null is a value", async () => {
  const { g, s } = setup();
  let deep: unknown = 1;
  for (let i = 0; i < 33; i++) deep = [deep];
  const err = await wireError(
    call(g, s, "session/append_entry", { parent_request_id: 2, entry_type: "t", data: deep }),
  );
  assert.match(err.message, /^bounds_exceeded .*33 levels of nesting, over the 32-level limit/);
  const missing = await wireError(call(g, s, "session/append_entry", { parent_request_id: 2, entry_type: "t" }));
  assert.match(missing.message, /^invalid_request session\/append_entry: data: missing/);
  assert.deepEqual(await call(g, s, "session/append_entry", { parent_request_id: 2, entry_type: "t", data: null }), {
    entry_id: "e1",
  });
});

test("WAVE1-30: a name and a label of 4 KiB and an entry id of 256 bytes pass; one byte more is refused", async () => {
  const { g, s, written } = setup();
  const name = "n".repeat(bounds.MAX_SESSION_NAME_BYTES);
  const id = "i".repeat(bounds.MAX_SESSION_ENTRY_ID_BYTES);
  assert.deepEqual(await call(g, s, "session/set_name", { parent_request_id: 2, name }), {});
  assert.deepEqual(await call(g, s, "session/set_label", { parent_request_id: 2, entry_id: id, label: name }), {});
  assert.deepEqual(await call(g, s, "session/set_name", { parent_request_id: 2, name: "" }), {}, "empty clears");
  assert.deepEqual(
    written.map((w) => w.method),
    ["setName", "setLabel", "setName"],
  );
  const past = [
    ["session/set_name", { name: `${name}n` }, "name", 4096],
    ["session/set_label", { entry_id: `${id}i`, label: "l" }, "entry_id", 256],
    ["session/set_label", { entry_id: "i", label: `${name}n` }, "label", 4096],
  ] as const;
  for (const [method, params, field, limit] of past) {
    const err = await wireError(call(g, s, method, { parent_request_id: 2, ...params }));
    assert.equal(err.code, ErrorCode.InvalidParams);
    assert.match(err.message, new RegExp(`^bounds_exceeded ${method}: ${field}: .*over the ${limit}-byte limit`));
  }
  assert.equal(written.length, 3);
});

test("WAVE1-31, WAVE1-12: no parent, an inactive or a settled parent is -32002 not_foreground_owner", async () => {
  const { g, s, written } = setup();
  const params = { entry_type: "t", data: 1 };
  const missing = await wireError(call(g, s, "session/append_entry", params));
  assert.equal(missing.code, ErrorCode.Unavailable);
  assert.match(missing.message, /^not_foreground_owner session\/append_entry refused: parent_request_id is missing/);
  const inactive = await wireError(call(g, s, "session/append_entry", { parent_request_id: 9, ...params }));
  assert.equal(inactive.code, ErrorCode.Unavailable);
  assert.match(inactive.message, /^not_foreground_owner .*parent_request_id 9 is not an active/);
  g.addParent(5).abort();
  const settled = await wireError(call(g, s, "session/set_name", { parent_request_id: 5, name: "x" }));
  assert.match(settled.message, /^not_foreground_owner session\/set_name/);
  const foreign = { session_id: "other", extension_instance_id: "i-1", process_generation: 1 };
  const forged = await wireError(
    call(g, s, "session/append_entry", { parent_request_id: 5, resource_owner: foreign, ...params }),
  );
  assert.match(forged.message, /^not_foreground_owner .*resource_owner is not the owner issued/);
  assert.equal(written.length, 0);
});

test("WAVE1-10, WAVE1-11: a live parent's owner wins; once it settled the issued triple is admitted", async () => {
  const { g, s, written } = setup();
  const foreign = { session_id: "other", extension_instance_id: "x", process_generation: 7 };
  await call(g, s, "session/append_entry", { parent_request_id: 2, resource_owner: foreign, entry_type: "t", data: 1 });
  assert.deepEqual(written[0]!.r.owner, g.owner(), "the live parent's owner, not the explicit one");
  assert.equal(written[0]!.r.extension, "ext");
  await call(g, s, "session/set_name", { parent_request_id: 44, resource_owner: g.owner(), name: "late" });
  assert.equal(written[1]!.r["name"], "late");
});

test("W 2.21: a writer's WireError reaches the extension as it is; another failure is -32603", async () => {
  const { g, s } = setup(new Error("disk full"));
  const err = await wireError(call(g, s, "session/append_entry", { parent_request_id: 2, entry_type: "t", data: 1 }));
  assert.equal(err.code, ErrorCode.InternalError);
  assert.match(err.message, /^internal_error session\/append_entry failed: disk full/);
  const refused = setup(new WireError(ErrorCode.Unavailable, "not_foreground_owner no session"));
  const passed = await wireError(
    call(refused.g, refused.s, "session/append_entry", { parent_request_id: 2, entry_type: "t", data: 1 }),
  );
  assert.equal(passed.code, ErrorCode.Unavailable);
  assert.equal(passed.message, "not_foreground_owner no session");
});

test("TURN-08, TURN-09: a model-turn hook/run parents appends while active; no other hook or settled one", async () => {
  const base = fakeGeneration();
  const hooks = new Map<number, { hook: string; c: AbortController }>();
  const g: FakeGeneration = {
    ...base,
    activeRequest: (id) => {
      const h = hooks.get(id);
      return h ? { method: "hook/run", hook: h.hook, signal: h.c.signal, takeApproval: () => false } : undefined;
    },
  };
  const written: string[] = [];
  const s = sessionEntriesService({
    append: async (r) => (written.push(r.entry_type), { entry_id: `e${written.length}` }),
    setName: async () => {},
    setLabel: async () => {},
  })(g);
  const open = (id: number, hook: string): AbortController => {
    const c = new AbortController();
    hooks.set(id, { hook, c });
    c.signal.addEventListener("abort", () => hooks.delete(id), { once: true });
    return c;
  };
  const turn = open(3, "model_turn_end");
  open(4, "before_prompt");
  const append = (parent: number) =>
    call(g, s, "session/append_entry", { parent_request_id: parent, entry_type: `p${parent}`, data: null });
  assert.deepEqual(await append(3), { entry_id: "e1" });
  const legacy = await wireError(append(4));
  assert.match(legacy.message, /^not_foreground_owner .*parent_request_id 4 is not an active/);
  turn.abort(); // the invocation settled: its grant is gone
  const late = await wireError(append(3));
  assert.equal(late.code, ErrorCode.Unavailable);
  assert.deepEqual(written, ["p3"]);
});
