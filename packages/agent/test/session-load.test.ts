import assert from "node:assert/strict";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SessionFile } from "../src/session/index.js";
import { tempDirs, userMessage } from "./session-helpers.js";

async function threeEntries(): Promise<{ path: string; ids: string[] }> {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  const ids: string[] = [];
  for (const t of ["one", "two", "three"]) ids.push((await s.append(userMessage(t))).id);
  await s.close();
  return { path: s.path, ids };
}

test("a half-written last line is skipped (byte offset named), cut off, and the next append starts clean", async () => {
  const { path, ids } = await threeEntries();
  const clean = statSync(path).size;
  appendFileSync(path, '{"type":"message","id":"deadbeef0000","parent_id":"x","timest');
  const s = await SessionFile.open(path);
  assert.deepEqual(
    s.entries().map((e) => e.id),
    ids,
  );
  assert.equal(s.warnings.length, 1);
  assert.match(s.warnings[0] ?? "", new RegExp(`${path}: skipped an incomplete last line at byte ${clean} `));
  assert.equal(statSync(path).size, clean, "the torn tail is truncated away on open");
  const next = await s.append(userMessage("four"));
  assert.equal(next.parent_id, ids[2]);
  await s.close();
  const lines = readFileSync(path, "utf8").split("\n");
  assert.equal(lines.pop(), "");
  for (const l of lines) JSON.parse(l);
  const again = await SessionFile.open(path);
  assert.deepEqual(again.warnings, []);
  assert.deepEqual(
    again.entries().map((e) => e.id),
    [...ids, next.id],
  );
  await again.close();
});

test("a complete-looking last line without its newline is torn too; so is an unparseable last line", async () => {
  const { path, ids } = await threeEntries();
  const size = statSync(path).size;
  appendFileSync(
    path,
    JSON.stringify({
      type: "custom",
      id: "aaaaaaaaaaaa",
      parent_id: ids[2],
      timestamp_unix_ms: 1,
      entry_type: "t",
      data: 1,
    }),
  );
  const s = await SessionFile.open(path);
  assert.equal(s.entries().length, 3);
  assert.match(s.warnings.join(), new RegExp(`incomplete last line at byte ${size}`));
  await s.close();
  assert.equal(statSync(path).size, size);
  appendFileSync(path, "\0\0\0\0\n");
  const t = await SessionFile.open(path);
  assert.equal(t.entries().length, 3);
  assert.match(t.warnings.join(), new RegExp(`incomplete last line at byte ${size}`));
  await t.close();
  assert.equal(statSync(path).size, size);
});

test("a corrupt line in the middle is skipped by line number and everything else is kept", async () => {
  const { path, ids } = await threeEntries();
  const lines = readFileSync(path, "utf8").split("\n");
  lines[2] = "{not json"; // line 3 of the file: the second entry
  lines.splice(4, 0, JSON.stringify({ type: "label", id: "x", parent_id: null, timestamp_unix_ms: 1 }));
  writeFileSync(path, lines.join("\n"));
  const s = await SessionFile.open(path);
  assert.deepEqual(
    s.entries().map((e) => e.id),
    [ids[0], ids[2]],
  );
  assert.equal(s.warnings.length, 2);
  assert.match(s.warnings[0] ?? "", /skipped corrupt line 3 \(not valid JSON\); the other entries are kept/);
  assert.match(s.warnings[1] ?? "", /skipped corrupt line 5 \(session entry target_id must be a string/);
  // The corrupt lines stay in the file (they are not the tail); the next append goes after them.
  const next = await s.append(userMessage("four"));
  assert.equal(next.parent_id, ids[2]);
  await s.close();
});

test("a missing or invalid header is an error naming the file", async () => {
  const { root } = tempDirs();
  const cases: [string, RegExp][] = [
    ["", /is not a session file: it is empty/],
    ['{"type":"session"', /header line is incomplete/],
    ['{"type":"message"}\n', /line 1 is not a \{"type":"session"\} header/],
    ['{"type":"session","version":9,"id":"a","cwd":"/","timestamp_unix_ms":1}\n', /has session version 9/],
    ['{"type":"session","version":1,"cwd":"/","timestamp_unix_ms":1}\n', /invalid session header/],
    ["garbage\n", /line 1 is not JSON/],
  ];
  for (const [i, [text, re]] of cases.entries()) {
    const path = join(root, `bad-${i}.jsonl`);
    writeFileSync(path, text);
    await assert.rejects(SessionFile.open(path), (e: Error) => {
      assert.ok(e.message.startsWith(path), e.message);
      assert.match(e.message, re);
      return true;
    });
    // A refused open leaves no lock behind.
    await assert.rejects(SessionFile.open(path), (e: Error) => e.name !== "SessionLockedError");
  }
});
