/**
 * The process-group rule shared by the host, rpi and the test harnesses (issue 14.4), against a
 * recording platform: what is signalled, what is refused before anything is, and how each
 * failure of the kill is reported. The host's tests signal real groups (process-group.test.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { killProcessGroup, signalProcessGroup, type SignalPlatform } from "../../src/os/process-group.js";

function platform(fail?: string): SignalPlatform & { calls: [number, string][] } {
  const calls: [number, string][] = [];
  return {
    calls,
    kill(pid, signal) {
      calls.push([pid, signal]);
      if (fail !== undefined) throw Object.assign(new Error(`kill ${fail}`), { code: fail });
      return true;
    },
  };
}

test("issue 14.4: signalProcessGroup signals the negated pgid, and reports a vanished group as gone", () => {
  const p = platform();
  assert.equal(signalProcessGroup(p, 4242, "SIGTERM"), "sent");
  assert.deepEqual(p.calls, [[-4242, "SIGTERM"]]);
  assert.equal(signalProcessGroup(platform("ESRCH"), 4242, "SIGKILL"), "gone");
  assert.throws(() => signalProcessGroup(platform("EPERM"), 4242, "SIGKILL"), /kill EPERM/);
});

test("issue 14.4: signalProcessGroup refuses pgid 0, 1, negatives and non-integers without signalling", () => {
  for (const pgid of [0, 1, -1, -1234, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
    const p = platform();
    assert.throws(
      () => signalProcessGroup(p, pgid, "SIGCONT"),
      (e: unknown) => e instanceof RangeError && e.message.includes(`process group ${pgid}`),
      String(pgid),
    );
    assert.deepEqual(p.calls, [], String(pgid));
  }
});

test("issue 14.4: killProcessGroup SIGKILLs and never throws: false when there is no group to kill", () => {
  const p = platform();
  assert.equal(killProcessGroup(p, 77), true);
  assert.deepEqual(p.calls, [[-77, "SIGKILL"]]);
  for (const pgid of [undefined, 0, 1, -5]) {
    const none = platform();
    assert.equal(killProcessGroup(none, pgid), false, String(pgid));
    assert.deepEqual(none.calls, []);
  }
  assert.equal(killProcessGroup(platform("ESRCH"), 77), false);
  assert.equal(killProcessGroup(platform("EPERM"), 77), false);
});
