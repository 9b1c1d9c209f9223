/**
 * The wire to one child over in-memory streams (issue 14.3): what the child sends reaches the
 * inbox through one seam, violations are never skipped, either end of the pipes closing ends the
 * transport, and a frame left half-written is caught by the watchdog.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ErrorCode, type NotificationMessage, type RequestMessage } from "@octet/protocol";
import { Connection, type ConnectionOptions } from "../../src/generation/connection.js";
import { FakeChild } from "./fake-child.js";
import { waitUntil } from "../helpers/wait.js";

interface Wire {
  child: FakeChild;
  conn: Connection;
  seen: string[];
  ended: AbortController;
}

function wire(o: Partial<ConnectionOptions> = {}): Wire {
  const child = new FakeChild();
  const seen: string[] = [];
  const ended = new AbortController();
  const conn = new Connection({
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    inbox: {
      request: async (r: RequestMessage) => {
        seen.push(`request ${r.method}`);
        return { echoed: r.params };
      },
      notification: (n: NotificationMessage) => seen.push(`notification ${n.method}`),
      cancel: (id: unknown) => seen.push(`cancel ${String(id)}`),
    },
    childCancels: true,
    progress: () => {
      seen.push("progress");
      return true;
    },
    onStderr: (chunk) => seen.push(`stderr ${chunk.toString("utf8").trim()}`),
    onViolation: (m) => seen.push(`violation ${m}`),
    onTransportEnded: (which, detail) => seen.push(`ended ${which}${detail ? ` ${detail}` : ""}`),
    diagnose: (level, m) => seen.push(`${level} ${m}`),
    ended: ended.signal,
    ...o,
  });
  return { child, conn, seen, ended };
}

test("REV-01: the child's requests reach the inbox and its answer is written back under the same id", async () => {
  const w = wire();
  w.child.send({ id: "c1", method: "confirmation/request", params: { message: "ok?" } });
  const answer = await waitFrame(w.child, (f) => f.id === "c1");
  assert.deepEqual(answer.result, { echoed: { message: "ok?" } });
  assert.deepEqual(w.seen, ["request confirmation/request"]);
});

test(
  "PROG-01, CANCEL-09: $/progress goes to the host's requests, $/cancelRequest to the inbox, the rest as " +
    "notifications",
  async () => {
    const w = wire();
    w.child.send({ method: "$/progress", params: {} });
    w.child.send({ method: "$/cancelRequest", params: { id: "c7" } });
    w.child.send({ method: "notification/show", params: {} });
    await waitUntil(() => w.seen.length === 3, 2_000, "three notifications");
    assert.deepEqual(w.seen, ["progress", "cancel c7", "notification notification/show"]);
    // Before the host has requests (initializing), $/progress is the inbox's; on API 0.1 so is $/cancelRequest.
    const early = wire({ progress: () => false, childCancels: false });
    early.child.send({ method: "$/progress", params: {} });
    early.child.send({ method: "$/cancelRequest", params: { id: 1 } });
    await waitUntil(() => early.seen.length === 2, 2_000, "two notifications");
    assert.deepEqual(early.seen, ["notification $/progress", "notification $/cancelRequest"]);
  },
);

test("FRAME-07: a line that is not JSON is answered with a parse error and is a violation", async () => {
  const w = wire();
  w.child.stdout.write("not json\n");
  const reply = await waitFrame(w.child, (f) => f.id === null);
  assert.equal((reply.error as { code: number }).code, ErrorCode.ParseError);
  await waitUntil(() => w.seen.some((s) => s.startsWith("violation")), 2_000, "the violation");
  assert.match(w.seen[0]!, /^violation .*: .*; the line began: "not json"$/);
});

test("FRAME-08: a valid JSON line that is no JSON-RPC message is a violation", async () => {
  const w = wire();
  w.child.stdout.write('{"jsonrpc":"2.0"}\n');
  await waitUntil(() => w.seen.length > 0, 2_000, "the violation");
  assert.match(w.seen[0]!, /^violation sent an invalid JSON-RPC message: /);
});

test(
  "FRAME-14: half a frame followed by silence is a violation after the assembly deadline, naming the " +
    "bytes waiting",
  async () => {
    const w = wire({ frameAssemblyTimeoutMs: 40 });
    w.child.stdout.write('{"jsonrpc":"2.0","method":"x"');
    await waitUntil(() => w.seen.length > 0, 2_000, "the watchdog");
    assert.deepEqual(w.seen, ["violation a frame was left unfinished for 40 ms (29 bytes without a newline)"]);
  },
);

test("issue 13: stdout EOF ends the transport; an unfinished last line is diagnosed", async () => {
  const w = wire();
  w.child.stdout.end('{"jsonrpc":');
  await waitUntil(() => w.seen.includes("ended stdout"), 2_000, "the end of stdout");
  assert.equal(w.seen.length, 2);
  assert.match(w.seen[0]!, /^error .*the line began: "\{\\?"jsonrpc\\?":"$/);
});

test(
  "issue 13.4: writing to a stdin the child closed ends the transport, naming stdin; it is not a " + "violation",
  async () => {
    const w = wire();
    w.child.stdin.destroy();
    w.conn.peer.notify("$/x", {});
    await waitUntil(() => w.seen.length > 0, 2_000, "the end of stdin");
    assert.deepEqual(w.seen, ["ended stdin the extension's stdin is closed"]);
  },
);

test("FRAME-05: stderr goes to the sink as it comes; stderrEnded settles at its end", async () => {
  const w = wire();
  w.child.stderr.end("a line\n");
  await w.conn.stderrEnded;
  assert.deepEqual(w.seen, ["stderr a line"]);
});

test(
  "CANCEL-05: a late -32800 after a cancel is a note; another late answer a warning; an unknown id " + "a warning",
  async () => {
    const w = wire();
    const a = w.conn.peer.request("tool/call", {});
    const b = w.conn.peer.request("tool/call", {});
    await waitUntil(() => w.child.frames().length === 2, 2_000, "two requests");
    for (const r of [a, b]) {
      w.conn.peer.abandon(r.id, "cancelled", new Error("cancelled"));
      await r.result.catch(() => undefined);
    }
    w.child.send({ id: a.id, error: { code: ErrorCode.RequestCancelled, message: "cancelled" } });
    w.child.send({ id: b.id, result: {} });
    w.child.send({ id: 999, result: {} });
    await waitUntil(() => w.seen.length === 3, 2_000, "three diagnostics");
    assert.deepEqual(w.seen, [
      `info cancelled request ${a.id} settled with -32800`,
      `warning ignored a late response to request ${b.id} (cancelled)`,
      "warning ignored a response to unknown request id 999",
    ]);
  },
);

test("issue 14.3: once the generation ended, nothing read counts", async () => {
  const w = wire();
  w.ended.abort();
  w.child.stdout.write("garbage\n");
  w.child.send({ method: "notification/show", params: {} });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(w.seen, []);
});

async function waitFrame(child: FakeChild, match: (f: { id?: unknown; result?: unknown; error?: unknown }) => boolean) {
  await waitUntil(() => child.frames().some(match), 2_000, "the frame");
  return child.frames().find(match)!;
}
