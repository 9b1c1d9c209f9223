import assert from "node:assert/strict";
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { test } from "node:test";
import {
  MAX_WORKSPACE_DIR_BYTES,
  SessionFile,
  findSession,
  latestSession,
  listSessions,
  workspaceDirName,
} from "../src/session/index.js";
import { tempDirs, userMessage } from "./session-helpers.js";

test("files live under <home>/sessions/<workspace-dir>/<ISO-stamp>_<id>.jsonl with a version-1 header", async () => {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace, now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 6) });
  assert.equal(dirname(s.path), join(home, "sessions", workspaceDirName(workspace)));
  assert.equal(basename(s.path), `2026-01-02T03-04-05-006Z_${s.id}.jsonl`);
  assert.match(s.id, /^[0-9a-f-]{36}$/);
  assert.deepEqual(s.header, {
    type: "session",
    version: 1,
    id: s.id,
    timestamp_unix_ms: Date.UTC(2026, 0, 2, 3, 4, 5, 6),
    cwd: workspace,
  });
  await s.close();
  assert.equal(workspaceDirName("/home/user/proj"), "--home-user-proj--");
  assert.equal(workspaceDirName("/a b/c:d"), "--a%20b-c%3Ad--");
  const long = workspaceDirName(`/${"x".repeat(300)}/proj`);
  assert.ok(long.length <= MAX_WORKSPACE_DIR_BYTES, `${long.length}`);
  assert.match(long, /x-proj-[0-9a-f]{12}--$/);
  assert.notEqual(long, workspaceDirName(`/${"y".repeat(300)}/proj`));
});

test("listSessions: newest first, with name, entries, first prompt; per workspace or all; latestSession", async () => {
  const { root, home, workspace } = tempDirs();
  const other = join(root, "other");
  const a = await SessionFile.create({ home, workspace });
  await a.append(userMessage(`  first\nprompt ${"z".repeat(200)}`));
  await a.append({ type: "session_info", name: "alpha" });
  await a.close();
  const b = await SessionFile.create({ home, workspace: other });
  await b.close();
  const c = await SessionFile.create({ home, workspace });
  await c.append({ type: "custom", entry_type: "t", data: null });
  await c.close();
  utimesSync(a.path, 1000, 1000);
  utimesSync(b.path, 2000, 2000);
  utimesSync(c.path, 3000, 3000);
  // Not a session: left out, not an error.
  mkdirSync(join(home, "sessions", "junk"));
  writeFileSync(join(home, "sessions", "junk", "x.jsonl"), "nope\n");

  const mine = await listSessions(home, workspace);
  assert.deepEqual(
    mine.map((s) => s.id),
    [c.id, a.id],
  );
  const first = mine[1];
  assert.equal(first?.name, "alpha");
  assert.equal(first?.entries, 2);
  assert.equal(first?.workspace, workspace);
  assert.equal(first?.modified_unix_ms, 1_000_000);
  assert.equal(first?.first_prompt, `first prompt ${"z".repeat(87)}`);
  assert.equal(mine[0]?.first_prompt, null);
  assert.equal(mine[0]?.name, null);
  assert.deepEqual(
    (await listSessions(home)).map((s) => s.id),
    [c.id, b.id, a.id],
  );
  assert.equal(await latestSession(home, workspace), c.path);
  assert.equal(await latestSession(home, join(root, "nowhere")), null);
  assert.deepEqual(await listSessions(join(root, "no-home")), []);
});

test("findSession: exact id or unique prefix, this workspace first; ambiguous and unknown are errors", async () => {
  const { root, home, workspace } = tempDirs();
  const other = join(root, "other");
  const made: SessionFile[] = [];
  for (let i = 0; i < 24; i++) {
    const s = await SessionFile.create({ home, workspace: i % 2 ? other : workspace });
    made.push(s);
    await s.close();
  }
  const here = made[0] as SessionFile;
  assert.equal(await findSession(home, workspace, here.id), here.path);
  assert.equal(await findSession(home, workspace, here.id.slice(0, 8).toUpperCase()), here.path);
  const there = made[1] as SessionFile;
  assert.equal(await findSession(home, workspace, there.id.slice(0, 13)), there.path, "other workspaces are searched");
  await assert.rejects(findSession(home, workspace, "abc"), /too short: give at least 4 characters/);
  await assert.rejects(findSession(home, workspace, "zzzz"), {
    message: "no session zzzz; octet sessions list shows them",
  });

  // Two ids sharing a prefix: write a second header by hand with here.id's first 6 characters.
  const twin = `${here.id.slice(0, 6)}${here.id[6] === "0" ? "1" : "0"}${here.id.slice(7)}`;
  const twinPath = join(dirname(here.path), `2000-01-01T00-00-00-000Z_${twin}.jsonl`);
  writeFileSync(
    twinPath,
    `${JSON.stringify({ type: "session", version: 1, id: twin, timestamp_unix_ms: 1, cwd: workspace })}\n`,
  );
  await assert.rejects(findSession(home, workspace, here.id.slice(0, 6)), (e: Error) => {
    assert.match(e.message, new RegExp(`prefix ${here.id.slice(0, 6)} is ambiguous`));
    assert.ok(e.message.includes(here.id) && e.message.includes(twin), e.message);
    return true;
  });
  assert.equal(await findSession(home, workspace, twin.slice(0, 7)), twinPath);
  const opened = await SessionFile.open(twinPath);
  await opened.append(userMessage("hi"));
  await opened.close();
});
