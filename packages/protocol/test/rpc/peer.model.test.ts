/**
 * RpcPeer against a model (reliability.md §5.4): random interleavings of requests (written at once
 * or held in the writer queue), responses, duplicate responses, responses to unknown ids, deadlines,
 * abandon() and a final close(). Invariants: every request's promise settles exactly once, with
 * the outcome the model predicts; a late or duplicate reply never settles another request and is
 * diagnosed (late_response for tombstoned ids, unknown_response otherwise); a withdrawn frame is
 * never written; the pending count matches the model after every step.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { RpcPeer, type PeerDiagnostic } from "../../src/rpc/peer.js";
import { OctetError, WireError } from "../../src/errors.js";
import { FakeTimers, MemoryTransport, envelope, track, turn, type Outcome } from "../helpers/rpc.js";

type Cmd =
  | { t: "request"; timeout: number | null; hold: boolean }
  | { t: "respond"; pick: number; error: boolean }
  | { t: "duplicate" }
  | { t: "unknown"; id: number | string }
  | { t: "advance"; ms: number }
  | { t: "abandon"; pick: number }
  | { t: "flush" };

type Expected =
  | { kind: "value"; n: number }
  | { kind: "wire"; n: number }
  | { kind: "timeout" }
  | { kind: "cancelled" }
  | { kind: "closed" };

interface Model {
  id: number;
  outcome: Outcome;
  deadline: number | null;
  written: boolean;
  withdrawn: boolean;
  pending: boolean;
  tomb: "timeout" | "cancelled" | null;
  expected: Expected | null;
}

const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  {
    arbitrary: fc.record({
      t: fc.constant("request" as const),
      timeout: fc.option(fc.integer({ min: 1, max: 50 })),
      hold: fc.boolean(),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ t: fc.constant("respond" as const), pick: fc.nat(), error: fc.boolean() }), weight: 4 },
  { arbitrary: fc.constant({ t: "duplicate" as const }), weight: 1 },
  {
    arbitrary: fc.record({
      t: fc.constant("unknown" as const),
      id: fc.oneof(fc.integer({ min: 10_000, max: 2 ** 40 }), fc.string({ maxLength: 8 })),
    }),
    weight: 1,
  },
  { arbitrary: fc.record({ t: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 30 }) }), weight: 2 },
  { arbitrary: fc.record({ t: fc.constant("abandon" as const), pick: fc.nat() }), weight: 2 },
  { arbitrary: fc.constant({ t: "flush" as const }), weight: 2 },
);

async function run(cmds: Cmd[]): Promise<void> {
  const transport = new MemoryTransport();
  const timers = new FakeTimers();
  const seen: PeerDiagnostic[] = [];
  const expectedDiagnostics: PeerDiagnostic[] = [];
  const peer = new RpcPeer({ transport, timers, onDiagnostic: (d) => seen.push(d) });
  const models: Model[] = [];
  let n = 0;
  let lastResponse: Record<string, unknown> | null = null;

  const deliver = (message: Record<string, unknown>): void => {
    const id = message["id"] as number | string;
    const m = typeof id === "number" ? models.find((x) => x.id === id) : undefined;
    if (m?.pending) {
      m.pending = false;
      m.expected =
        "error" in message
          ? { kind: "wire", n: (message["error"] as { data: number }).data }
          : { kind: "value", n: (message["result"] as { n: number }).n };
    } else if (m?.tomb) {
      const code = "error" in message ? (message["error"] as { code: number }).code : undefined;
      expectedDiagnostics.push(
        code === undefined
          ? { kind: "late_response", id, reason: m.tomb }
          : { kind: "late_response", id, reason: m.tomb, errorCode: code },
      );
    } else expectedDiagnostics.push({ kind: "unknown_response", id });
    peer.receive(envelope(message));
  };

  for (const c of cmds) {
    switch (c.t) {
      case "request": {
        transport.hold = c.hold;
        const call = c.timeout === null ? peer.request("m", {}) : peer.request("m", {}, { timeoutMs: c.timeout });
        transport.hold = false;
        const deadline = c.timeout === null ? null : timers.now + c.timeout;
        models.push({
          id: call.id,
          outcome: track(call.result),
          deadline,
          written: !c.hold,
          withdrawn: false,
          pending: true,
          tomb: null,
          expected: null,
        });
        break;
      }
      case "respond": {
        // A request the other side has seen, or one withdrawn before it was written (a confused
        // peer: unknown id). Answering a settled one is a late or duplicate reply.
        const seenByPeer = models.filter((m) => m.written || m.withdrawn);
        const m = seenByPeer[c.pick % Math.max(1, seenByPeer.length)];
        if (!m) break;
        n++;
        lastResponse = c.error
          ? { jsonrpc: "2.0", id: m.id, error: { code: -32000, message: `err ${n}`, data: n } }
          : { jsonrpc: "2.0", id: m.id, result: { for: m.id, n } };
        deliver(lastResponse);
        break;
      }
      case "duplicate":
        if (lastResponse) deliver(lastResponse);
        break;
      case "unknown":
        deliver({ jsonrpc: "2.0", id: c.id, result: { for: c.id, n: -1 } });
        break;
      case "advance": {
        const until = timers.now + c.ms;
        for (const m of models) {
          if (m.pending && m.deadline !== null && m.deadline <= until) {
            m.pending = false;
            m.expected = { kind: "timeout" };
            if (m.written) m.tomb = "timeout";
            else m.withdrawn = true;
          }
        }
        timers.advance(c.ms);
        break;
      }
      case "abandon": {
        const m = models[c.pick % Math.max(1, models.length)];
        if (!m) break;
        const r = peer.abandon(m.id, "cancelled", new OctetError("request_cancelled", "cancelled"));
        if (!m.pending) {
          assert.equal(r, null, `abandon of settled id ${m.id}`);
          break;
        }
        assert.deepEqual(r, { withdrawn: !m.written }, `abandon of id ${m.id}`);
        m.pending = false;
        m.expected = { kind: "cancelled" };
        if (m.written) m.tomb = "cancelled";
        else m.withdrawn = true;
        break;
      }
      case "flush":
        transport.flush();
        for (const m of models) if (!m.withdrawn) m.written = true;
        break;
    }
    assert.equal(peer.pendingCount, models.filter((m) => m.pending).length, `pending count after ${c.t}`);
  }

  const closed = new OctetError("transport_closed", "closed");
  peer.close(closed);
  for (const m of models) if (m.pending) m.expected = { kind: "closed" };
  await turn();

  assert.deepEqual(seen, expectedDiagnostics);
  const sentIds = transport.messages().map((f) => f["id"]);
  for (const m of models) {
    assert.equal(m.outcome.settled, 1, `request ${m.id} settles exactly once`);
    assert.equal(
      sentIds.filter((id) => id === m.id).length,
      m.withdrawn || !m.written ? 0 : 1,
      `frame of ${m.id} written iff not withdrawn`,
    );
    const e = m.expected;
    const { value, error } = m.outcome;
    switch (e?.kind) {
      case "value":
        assert.deepEqual(value, { for: m.id, n: e.n }, `request ${m.id} got its own reply`);
        break;
      case "wire":
        assert.ok(error instanceof WireError && error.data === e.n, `request ${m.id} got its own error`);
        break;
      case "timeout":
      case "cancelled":
        assert.ok(error instanceof OctetError && error.code === `request_${e.kind}`, `request ${m.id} ${e.kind}`);
        break;
      case "closed":
        assert.equal(error, closed);
        break;
      default:
        assert.fail(`request ${m.id} has no expected outcome`);
    }
  }
}

test(
  "CANCEL-06: random request/response/timeout/abandon/duplicate/unknown-id interleavings settle every " +
    "request exactly once",
  async () => {
    await fc.assert(fc.asyncProperty(fc.array(cmd, { maxLength: 80 }), run), { numRuns: 400 });
  },
);

test(
  "CANCEL-06: a late reply after abandon then a reply for a newer request settle only the newer one " +
    "(regression shape)",
  async () => {
    await run([
      { t: "request", timeout: null, hold: false },
      { t: "abandon", pick: 0 },
      { t: "request", timeout: 5, hold: true },
      { t: "respond", pick: 0, error: false },
      { t: "flush" },
      { t: "respond", pick: 1, error: true },
      { t: "duplicate" },
      { t: "advance", ms: 10 },
      { t: "unknown", id: "x" },
    ]);
  },
);
