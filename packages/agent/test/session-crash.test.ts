import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { SessionFile } from "../src/session/index.js";
import { SESSION_MODULE, exited, spawnScript, tempDirs, userMessage, waitForLine } from "./session-helpers.js";

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

test("SIGKILL mid-append: every reported id is loaded, none torn, and the next append works", async () => {
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

test("a write failing part-way (file size limit) is cut off, later appends refused, the reopen clean", async () => {
  const { root, home, workspace } = tempDirs();
  const s = await SessionFile.create({ home, workspace });
  await s.close();
  // A real short write: under `ulimit -f 20` (20 KiB) the write crossing the limit stops at it and
  // the next one fails with EFBIG (SIGXFSZ is ignored so the process lives to handle it).
  const script = join(root, "limited.mjs");
  writeFileSync(
    script,
    `process.on("SIGXFSZ", () => {});
const SESSION = await import(${JSON.stringify(SESSION_MODULE)});
const s = await SESSION.SessionFile.open(process.argv[2]);
try {
  for (let i = 0; ; i++) {
    const e = await s.append({ type: "custom", entry_type: "c", data: { i, pad: "x".repeat(3000) } });
    console.log("committed " + e.id);
  }
} catch (e) { console.log("failed " + e.message); }
try { await s.append({ type: "custom", entry_type: "c", data: 1 }); } catch (e) { console.log("then " + e.message); }
await s.close();`,
  );
  const child = spawn("/bin/sh", ["-c", 'ulimit -f 20; exec "$0" "$@"', process.execPath, script, s.path], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => {
    out += d.toString("utf8");
  });
  assert.deepEqual(await exited(child), { code: 0, signal: null });
  const lines = out.trimEnd().split("\n");
  const committed = lines.filter((l) => l.startsWith("committed ")).map((l) => l.slice("committed ".length));
  assert.ok(committed.length >= 3, out);
  assert.match(lines.at(-2) ?? "", /^failed EFBIG/);
  assert.match(lines.at(-1) ?? "", /^then session .* refused the append: an earlier write failed: EFBIG/);
  assert.ok(statSync(s.path).size <= 20 * 1024);

  const again = await SessionFile.open(s.path);
  assert.deepEqual(again.warnings, [], "the partial line was cut off by the writer itself");
  assert.deepEqual(
    again.entries().map((e) => e.id),
    committed,
  );
  await again.append(userMessage("after"));
  await again.close();
});
