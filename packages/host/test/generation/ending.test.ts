/**
 * How a generation ends (generation/ending.ts) over a recording subject, without a process: the
 * first end takes it over and the teardown runs once; each failure path says what it is.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { OctetError } from "@octet/protocol";
import { GenerationEnding, type EndingSubject } from "../../src/generation/ending.js";
import type { GenerationState } from "../../src/events.js";

function subject(options: { stderr?: string } = {}) {
  let state: GenerationState = "ready";
  let exited = false;
  const log = {
    states: [] as string[],
    released: [] as string[],
    ladders: [] as number[],
    errors: [] as string[],
    diagnoses: [] as string[],
    admitting: [] as string[],
    unexpected: [] as { code: string; message: string }[],
  };
  const s: EndingSubject = {
    name: "ext",
    state: () => state,
    setState: (next, reason) => {
      state = next;
      log.states.push(reason === undefined ? next : `${next}: ${reason}`);
    },
    ladder: async (budgetMs) => {
      log.ladders.push(budgetMs);
    },
    release: async (closed: OctetError) => {
      log.released.push(`${closed.code}: ${closed.message}`);
    },
    exited: () => new Promise<void>(() => {}),
    hasExited: () => exited,
    stderrEnded: () => Promise.resolve(),
    stderrTail: () => options.stderr ?? "",
    pgid: () => 4242,
    stopAdmitting: (reason) => log.admitting.push(reason),
    recordError: (message) => log.errors.push(message),
    diagnose: (level, message) => log.diagnoses.push(`${level}: ${message}`),
    unexpectedEnd: (error) => log.unexpected.push({ code: error.code, message: error.message }),
  };
  return { s, log, setExited: () => (exited = true) };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

test("issue 14.3: a stop runs the ladder with its budget, then one teardown, and ends stopped", async () => {
  const { s, log } = subject();
  const end = new GenerationEnding(s);
  const first = end.stop(500);
  assert.equal(end.stop(10), first, "a second stop joins the first");
  assert.ok(end.stopSignal.aborted);
  await first;
  assert.deepEqual(log.ladders, [500]);
  assert.deepEqual(log.released, ['transport_closed: extension "ext" was stopped: stopped by the host']);
  assert.deepEqual(log.states, ["stopped: stopped by the host"]);
  assert.deepEqual(log.unexpected, [], "a stop the host asked for is not reported as unexpected");
});

test("issue 14.3: a violation degrades, tears down once, and is reported; later failures are ignored", async () => {
  const { s, log } = subject();
  const end = new GenerationEnding(s);
  end.violation("stdout carried a non-frame");
  assert.ok(end.stopping && end.ending);
  end.violation("again");
  end.unsettledCancel(7, "tool/call");
  end.transportEnded("stdout", null);
  end.exited({ code: 1, signal: null });
  await end.stop(100);
  await settle();
  assert.deepEqual(log.ladders, [], "the failure's end is the stop: no ladder runs after it");
  assert.deepEqual(log.errors, ["protocol violation: stdout carried a non-frame"]);
  assert.equal(log.diagnoses.length, 1);
  assert.match(log.diagnoses[0]!, /^error: protocol violation: .*must write only JSON-RPC frames.*terminating it$/);
  assert.deepEqual(log.states, [
    "degraded: protocol violation: stdout carried a non-frame",
    "crashed: protocol violation: stdout carried a non-frame",
  ]);
  assert.equal(log.released.length, 1);
  assert.deepEqual(log.unexpected, [
    { code: "protocol_violation", message: 'extension "ext": protocol violation: stdout carried a non-frame' },
  ]);
});

test("issue 14.3: an exit on its own ends crashed with the exit status and the stderr's error", async () => {
  const { s, log } = subject({ stderr: "Error: boom\n    at main (x.js:1:1)\n" });
  const end = new GenerationEnding(s);
  end.exited({ code: 3, signal: null });
  end.violation("late");
  await end.terminate("stopped", "too late to choose");
  await settle();
  assert.equal(log.errors.length, 1);
  assert.match(log.errors[0]!, /^process exited with code 3; stderr: Error: boom/);
  assert.deepEqual(log.states, [`crashed: ${log.errors[0]}`]);
  assert.equal(log.released.length, 1);
  assert.equal(log.unexpected.length, 1);
  assert.equal(log.unexpected[0]!.code, "transport_closed");
  assert.equal(log.unexpected[0]!.message, `extension "ext" ${log.errors[0]}`);
});

test("issue 14.3: an unsettled cancel is reported as request_cancelled, naming the request", async () => {
  const { s, log } = subject();
  const end = new GenerationEnding(s);
  end.unsettledCancel(12, "tool/call");
  await end.stop(100);
  await settle();
  assert.match(log.errors[0]!, /^did not settle cancelled tool\/call request 12 within \d+ ms$/);
  assert.deepEqual(
    log.unexpected.map((u) => u.code),
    ["request_cancelled"],
  );
});

test("issue 14.3: a transport end stops admission at once and is not failed when the child exited", async () => {
  const { s, log, setExited } = subject();
  const end = new GenerationEnding(s);
  end.transportEnded("stdin", "EPIPE");
  assert.deepEqual(log.admitting, ['extension "ext" closed its stdin']);
  assert.equal(end.ending, false, "the bounded wait for the exit comes first");
  setExited();
  end.exited({ code: 0, signal: null });
  await end.terminate("crashed", "unused");
  await settle();
  assert.deepEqual(log.diagnoses, [], "the exit, not the transport, is what ended it");
  assert.equal(log.released.length, 1);
});
