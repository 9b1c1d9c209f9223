import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { SessionFile } from "../src/session/index.js";
import { exited, spawnScript, tempDirs, userMessage, waitForLine } from "./session-helpers.js";

// The writer appends entries of varying size without pause and prints each id once append()
// resolves: a printed id was reported committed, so it must survive a SIGKILL.
const WRITER = `
const s = await SESSION.SessionFile.open(process.argv[2]);
for (let i = 0; ; i++) {
  const pad = "x".repeat((i * 7919) % 20000);
  const e = await s.append({ type: "custom", entry_type: "crash", data: { i, pad } });
  process.stdout.write("committed " + e.id + "\\n");
}
`;

test("SIGKILL mid-append: every reported id is loaded, nothing torn is, the next append works", async () => {
  const { root, home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  await s.append(userMessage("before the crash"));
  await s.close();

  const child = spawnScript(root, "writer", WRITER, [s.path]);
  const committed: string[] = [];
  let buf = "";
  let killed = false;
  child.stdout?.on("data", (d: Buffer) => {
    buf += d.toString("utf8");
    const parts = buf.split("\n");
    buf = parts.pop() ?? "";
    for (const p of parts) committed.push(p.replace(/^committed /, ""));
    if (!killed && committed.length >= 40) {
      killed = true;
      child.kill("SIGKILL");
    }
  });
  await waitForLine(child, /^committed /);
  const end = await exited(child);
  assert.equal(end.signal, "SIGKILL");
  assert.ok(committed.length >= 40);

  const again = await SessionFile.open(s.path);
  const ids = new Set(again.entries().map((e) => e.id));
  for (const id of committed) assert.ok(ids.has(id), `committed entry ${id} was lost`);
  for (const w of again.warnings) assert.match(w, /stale lock|incomplete last line/);
  for (const e of again.entries()) {
    if (e.type === "custom") assert.equal(typeof (e.data as { i: number }).i, "number");
  }
  const next = await again.append(userMessage("after the crash"));
  assert.equal(next.parent_id, again.entries().at(-2)?.id);
  await again.close();

  const text = readFileSync(s.path, "utf8");
  assert.ok(text.endsWith("\n"));
  const lines = text.slice(0, -1).split("\n");
  for (const l of lines) JSON.parse(l);
  assert.equal(lines.length, 1 + again.entries().length);
});

test("concurrent appends keep call order, chain parents in that order and never interleave bytes", async () => {
  const { home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  const sizes = Array.from({ length: 60 }, (_, i) => (i * 104729) % 200_000);
  const all = await Promise.all(
    sizes.map((n, i) => s.append({ type: "custom", entry_type: "c", data: { i, pad: "y".repeat(n % 60_000) } })),
  );
  all.forEach((e, i) => assert.equal(e.parent_id, i === 0 ? null : all[i - 1]?.id));
  // Each resolved append is on disk by the time it resolves: read with a separate descriptor.
  const late = await s.append(userMessage("last"));
  assert.ok(readFileSync(s.path, "utf8").endsWith(`${JSON.stringify(late)}\n`));
  await s.close();
  const lines = readFileSync(s.path, "utf8").trimEnd().split("\n").slice(1);
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).id),
    [...all, late].map((e) => e.id),
  );
  // An append after close is refused, not lost silently.
  await assert.rejects(s.append(userMessage("closed")), /is closed/);
});
