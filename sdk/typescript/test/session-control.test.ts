// ctx.sessionControl's local checks (W 2.21b, 2.21c; SCOMP-04, SCOMP-06): a call past a bound or
// without what it needs is refused before anything is written (the peer here fails the test if
// it is ever asked to send); the host side is tested in packages/agent/test/loop-session-control.
import { test } from "node:test";
import assert from "node:assert/strict";
import { bounds, type RpcPeer } from "@octet/protocol";
import { markCompactionHook, sessionControlApi } from "../src/session-control.js";
import type { Link } from "../src/link.js";

const OWNER = { session_id: "s", extension_instance_id: "i", process_generation: 1 };

function api(features: string[]) {
  const sent: string[] = [];
  const peer = {
    request: (method: string) => {
      sent.push(method);
      throw new Error(`nothing should be sent, but ${method} was`);
    },
  } as unknown as RpcPeer;
  const link: Link = { api: "0.4", features: new Set(features), peer };
  return {
    sent,
    sc: sessionControlApi(
      () => undefined,
      () => link,
      () => OWNER,
    ),
  };
}

test("SCOMP-04: custom_instructions one byte past 16 KiB are bounds_exceeded before anything is sent", async () => {
  const { sc, sent } = api(["session_control_v1", "session_compaction_v1"]);
  const over = "x".repeat(bounds.MAX_COMPACT_INSTRUCTIONS_BYTES + 1);
  await assert.rejects(
    sc.compactNow({ parentRequestId: 3, owner: OWNER, customInstructions: over }),
    /^RangeError: bounds_exceeded sessionControl\.compactNow\(\): custom_instructions: .*over the 16384-byte/,
  );
  await assert.rejects(
    sc.switchSession("s".repeat(257), { parentRequestId: 3, owner: OWNER }),
    /^RangeError: bounds_exceeded sessionControl\.switchSession\(\): session_id/,
  );
  assert.deepEqual(sent, []);
});

test("SCOMP-01, SCOMP-06: without the features, or outside a handler, nothing is queued or sent", async () => {
  const none = api(["session_control_v1"]);
  assert.equal(none.sc.available, true);
  assert.equal(none.sc.compactionAvailable, false);
  assert.throws(() => none.sc.compact(), /needs session_compaction_v1, which the host did not offer/);
  const both = api(["session_control_v1", "session_compaction_v1"]);
  assert.throws(() => both.sc.compact(), /queues from an active request handler; elsewhere use compactNow\(\)/);
  await assert.rejects(both.sc.waitForIdle(), /outside an active numeric request needs \{parentRequestId, owner\}/);
  assert.deepEqual([...none.sent, ...both.sent], []);
});

test("SCOMP-07: compaction from the compaction_strategy hook (or what it schedules) is refused locally", async () => {
  const hook = { id: 5, active: true, aborted: false, signal: new AbortController().signal };
  markCompactionHook(hook);
  const link: Link = {
    api: "0.4",
    features: new Set(["session_control_v1", "session_compaction_v1"]),
    peer: {
      request: () => {
        throw new Error("nothing should be sent");
      },
    } as unknown as RpcPeer,
  };
  const sc = sessionControlApi(
    () => hook,
    () => link,
    () => OWNER,
  );
  assert.throws(
    () => sc.compact(),
    /^Error: invalid_request sessionControl\.compact\(\) refused: .*compaction_strategy/,
  );
  await assert.rejects(sc.compactNow({ parentRequestId: 3, owner: OWNER }), /compactNow\(\) refused: called from/);
});
