import assert from "node:assert/strict";
import { test } from "node:test";
import {
  MAX_CUSTOM_DATA_BYTES,
  MAX_DATA_DEPTH,
  MAX_ENTRY_ID_BYTES,
  MAX_ENTRY_TYPE_BYTES,
  MAX_LABEL_BYTES,
  MAX_LINE_BYTES,
  MAX_NAME_BYTES,
  SessionFile,
} from "../src/session/index.js";
import { tempDirs, userMessage } from "./session-helpers.js";

async function session(): Promise<SessionFile> {
  const { home, workspace } = tempDirs();
  return SessionFile.create({ home, workspace });
}

/** A custom entry whose data is exactly `bytes` long as JSON: a string of bytes - 2 characters. */
function dataOf(bytes: number): string {
  return "x".repeat(bytes - 2);
}

test("entry_type: 128 UTF-8 bytes is stored, 129 is refused naming the field, size and limit", async () => {
  const s = await session();
  const at = "é".repeat(MAX_ENTRY_TYPE_BYTES / 2);
  const e = await s.append({ type: "custom", entry_type: at, data: null });
  assert.equal(e.type === "custom" && e.entry_type, at);
  await assert.rejects(s.append({ type: "custom", entry_type: `${at}x`, data: null }), {
    message: /entry_type is 129 bytes, over the limit of 128 bytes/,
  });
  await assert.rejects(s.append({ type: "custom_message", entry_type: "", content: "c", display: true }), {
    message: /entry_type must not be empty/,
  });
  assert.equal(s.entries().length, 1);
  await s.close();
});

test("custom data: 64 KiB of JSON is stored, one byte more is refused", async () => {
  const s = await session();
  await s.append({ type: "custom", entry_type: "t", data: dataOf(MAX_CUSTOM_DATA_BYTES) });
  await assert.rejects(s.append({ type: "custom", entry_type: "t", data: dataOf(MAX_CUSTOM_DATA_BYTES + 1) }), {
    message: /data is 65537 bytes as JSON, over the limit of 65536 bytes/,
  });
  await s.close();
});

test("custom data is plain JSON only: non-finite numbers, functions, class instances, undefined refused", async () => {
  const s = await session();
  const bad: [unknown, RegExp][] = [
    [{ a: Number.NaN }, /data\.a holds the non-finite number NaN/],
    [[1, Number.POSITIVE_INFINITY], /data\[1\] holds the non-finite number Infinity/],
    [{ f: () => 1 }, /data\.f holds a function/],
    [new Date(0), /data is a Date object/],
    [{ u: undefined }, /data\.u holds undefined/],
    [undefined, /data is missing/],
  ];
  for (const [data, re] of bad) {
    await assert.rejects(s.append({ type: "custom", entry_type: "t", data: data as null }), { message: re });
  }
  assert.equal(s.entries().length, 0);
  await s.close();
});

test("custom data nesting: 64 levels are stored, 65 are refused (and so is a cycle)", async () => {
  const s = await session();
  const nest = (n: number): unknown => (n === 0 ? 1 : [nest(n - 1)]);
  await s.append({ type: "custom", entry_type: "t", data: nest(MAX_DATA_DEPTH) as null });
  await assert.rejects(s.append({ type: "custom", entry_type: "t", data: nest(MAX_DATA_DEPTH + 1) as null }), {
    message: /nests deeper than the limit of 64 levels/,
  });
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  await assert.rejects(s.append({ type: "custom", entry_type: "t", data: cycle as unknown as null }), {
    message: /nests deeper than the limit of 64 levels/,
  });
  await s.close();
});

test("name and label: 4 KiB is stored, one byte more is refused; a label must target an entry", async () => {
  const s = await session();
  const m = await s.append(userMessage("hi"));
  await s.append({ type: "session_info", name: "n".repeat(MAX_NAME_BYTES) });
  assert.equal(s.name(), "n".repeat(MAX_NAME_BYTES));
  await assert.rejects(s.append({ type: "session_info", name: "n".repeat(MAX_NAME_BYTES + 1) }), {
    message: /name is 4097 bytes, over the limit of 4096 bytes/,
  });
  await s.append({ type: "label", target_id: m.id, label: "l".repeat(MAX_LABEL_BYTES) });
  await assert.rejects(s.append({ type: "label", target_id: m.id, label: "l".repeat(MAX_LABEL_BYTES + 1) }), {
    message: /label is 4097 bytes, over the limit of 4096 bytes/,
  });
  await assert.rejects(s.append({ type: "label", target_id: "0123456789ab", label: "x" }), {
    message: /target_id "0123456789ab" names no entry of this session/,
  });
  await assert.rejects(s.append({ type: "label", target_id: "a".repeat(MAX_ENTRY_ID_BYTES + 1), label: "x" }), {
    message: /target_id is 257 bytes, over the limit of 256 bytes/,
  });
  await s.close();
});

test("a line past 8 MiB is refused naming the size and the limit; one just under is stored", async () => {
  const s = await session();
  const overhead = JSON.stringify({
    type: "message",
    id: "0123456789ab",
    parent_id: null,
    timestamp_unix_ms: Date.now(),
    message: { role: "user", content: "", timestamp: 1 },
  }).length;
  await s.append(userMessage("x".repeat(MAX_LINE_BYTES - overhead - 100)));
  await assert.rejects(s.append(userMessage("x".repeat(MAX_LINE_BYTES))), {
    message: /message is \d+ bytes as a line, over the limit of 8388608 bytes \(8 MiB\); a tool result/,
  });
  assert.equal(s.entries().length, 1);
  await s.close();
});
