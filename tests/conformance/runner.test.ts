/**
 * The judge, judged: the runner against a hand-written extension that misbehaves on command
 * (fixtures/raw-extension.ts). A correct exchange passes; each fault fails with a report that
 * names the step, the expected pattern and the frame that came instead; the process is gone
 * afterwards whatever happened. Also the static check of transcript files.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runTranscript, type Implementation } from "./runner.js";
import { loadTranscripts, type Step, type Transcript } from "./transcript.js";

process.on("unhandledRejection", (err) => {
  throw err;
});

const RAW = fileURLToPath(new URL("./fixtures/raw-extension.js", import.meta.url));

function raw(behaviour: string): Implementation {
  return { name: `raw-${behaviour}`, command: [process.execPath, RAW], env: { RAW_BEHAVIOUR: behaviour } };
}

function transcript(steps: Step[]): Transcript {
  return { id: "TEST-01", title: "runner self-test", api: ["0.1"], steps, file: "inline" };
}

const CALL: Step = {
  request: { method: "tool/call", params: { name: "anything", arguments: {}, context: "$owner_context" } },
  as: "call",
};
const EXPECT_OK: Step = { expect: { id: "$id:call", result: { content: "ok", is_error: false } } };

/** Runs and returns the failure message; fails the test if the transcript passed. */
async function failure(impl: Implementation, steps: Step[]): Promise<string> {
  try {
    await runTranscript(impl, transcript(steps), "0.1");
  } catch (err) {
    const message = (err as Error).message;
    // The report carries the stderr tail, where the fixture wrote its pid: it must be gone.
    const pid = Number(/raw-extension pid (\d+)/.exec(message)?.[1]);
    assert.ok(pid > 0, `no pid in the report:\n${message}`);
    assert.throws(() => process.kill(pid, 0), /ESRCH/, `pid ${pid} is still alive after the transcript failed`);
    return message;
  }
  assert.fail("the transcript passed, but it should have failed");
}

test("runner: a correct exchange passes, through shutdown and exit", async () => {
  await runTranscript(
    raw("ok"),
    transcript([
      { initialize: {} },
      CALL,
      EXPECT_OK,
      { request: { method: "shutdown", params: {} } },
      { expect: { result: {} } },
      { expect_exit: 0 },
    ]),
    "0.1",
  );
});

test("runner: a mismatch names the step, the expected pattern and the frame that came instead", async () => {
  const message = await failure(raw("ok"), [
    { initialize: {} },
    CALL,
    { expect: { id: "$id:call", result: { content: "not ok" } }, within_ms: 300 },
  ]);
  assert.match(message, /raw-ok TEST-01 \(API 0\.1\), step 3 of 3/);
  assert.match(message, /no frame matching the pattern within 300 ms/);
  assert.match(message, /expected: \{"id":"\$id:call","result":\{"content":"not ok"\}\}/);
  assert.match(message, /#2 \{"jsonrpc":"2\.0","id":2,"result":\{"content":"ok","is_error":false\}\}/);
  assert.match(message, /✗ at \$\.result\.content: expected "not ok", got "ok"/);
});

test("runner: strict fails at once on the first unconsumed frame", async () => {
  const message = await failure(raw("ok"), [
    { initialize: {} },
    CALL,
    { expect: { method: "notification" }, strict: true, within_ms: 5_000 },
  ]);
  assert.match(message, /the next frame does not match \(strict\)/);
  assert.match(message, /actual: {3}#2 /);
});

test("runner: a stray line on stdout is a violation (FRAME-03)", async () => {
  const message = await failure(raw("stray-stdout"), [{ initialize: {} }, CALL, EXPECT_OK]);
  assert.match(
    message,
    /protocol violation on stdout: a line on stdout that is not UTF-8 JSON .*hello from a stray print/,
  );
});

test("runner: CR before LF is a violation (FRAME-02)", async () => {
  const message = await failure(raw("crlf"), [{ initialize: {} }, CALL, EXPECT_OK]);
  assert.match(message, /a CR in a line on stdout/);
});

test("runner: a second response to one request is a violation", async () => {
  const message = await failure(raw("double-answer"), [{ initialize: {} }, CALL, EXPECT_OK, CALL, EXPECT_OK]);
  assert.match(message, /a second response to request 2/);
});

test("runner: a response to an id the host never sent is a violation", async () => {
  const message = await failure(raw("wrong-id"), [{ initialize: {} }, CALL, EXPECT_OK]);
  assert.match(message, /a response to id 102, which names no request the host sent/);
});

test("runner: a request parented to an answered request is a violation unless it carries resource_owner", async () => {
  const CHILD: Step = { expect: { method: "raw/child" }, as: "child" };
  const late = await failure(raw("late-parent"), [{ initialize: {} }, CALL, EXPECT_OK, CHILD]);
  assert.match(late, /parent_request_id 2 names no active host request/);
  const stranger = await failure(raw("owner-stranger"), [{ initialize: {} }, CALL, EXPECT_OK, CHILD]);
  assert.match(stranger, /parent_request_id 999 names no active host request/);
  await runTranscript(
    raw("late-owner"),
    transcript([
      { initialize: {} },
      CALL,
      EXPECT_OK,
      CHILD,
      { respond: "child", result: {} },
      { request: { method: "shutdown", params: {} } },
      { expect: { result: {} } },
      { expect_exit: 0 },
    ]),
    "0.1",
  );
});

test("runner: refute fails on a frame already received", async () => {
  const message = await failure(raw("ok"), [
    { initialize: {} },
    CALL,
    { expect: { id: "$id:initialize" }, within_ms: 200 },
  ]);
  assert.match(message, /no frame matching the pattern within 200 ms/);
  const refuted = await failure(raw("ok"), [
    { initialize: {} },
    CALL,
    { request: { method: "tool/call", params: { name: "x", arguments: {}, context: "$owner_context" } } },
    { expect: { id: 3 } },
    { refute: { id: "$id:call" } },
  ]);
  assert.match(refuted, /a frame that must not have been sent was received/);
});

test("runner: expect_exit reports the wrong code, and a hung child is killed at the deadline", async () => {
  const wrongCode = await failure(raw("hang"), [
    { initialize: {} },
    { request: { method: "shutdown", params: {} } },
    { expect_exit: 0 },
  ]);
  assert.match(wrongCode, /expected exit code 0, got code 3/);
  const hung = await failure(raw("hang"), [{ initialize: {} }, CALL, { ...EXPECT_OK, within_ms: 200 }]);
  assert.match(hung, /no frame matching the pattern within 200 ms\n.*\nno unconsumed frames were received/);
});

test("transcript files are checked before anything runs: id, verbs, options, placeholders, operators", () => {
  const dir = mkdtempSync(join(tmpdir(), "octet-conformance-"));
  try {
    writeFileSync(
      join(dir, "ZZZ-07.json"),
      JSON.stringify({ id: "ZZZ-08", title: "t", api: ["0.1"], steps: [{ initialize: {} }] }),
    );
    writeFileSync(
      join(dir, "ZZZ-01.json"),
      JSON.stringify({
        id: "ZZZ-01",
        title: "t",
        api: ["0.3"],
        steps: [
          { expect: { id: "$idd" }, within: 5 },
          { send: {}, expect: {} },
          { expect: { $regex: 5 } },
          { expect: { x: { $foo: 1, $bar: 2 } } },
          { respond: "x" },
        ],
      }),
    );
    assert.throws(
      () => loadTranscripts(dir),
      (err: Error) => {
        for (const needle of [
          'ZZZ-07.json: "id" is ZZZ-08 but the file is named ZZZ-07.json',
          'ZZZ-01.json: "api" must be a non-empty subset',
          "ZZZ-01.json step 1: expect does not take within",
          "ZZZ-01.json step 1.expect.id: unknown placeholder $idd",
          "ZZZ-01.json step 2: a step needs exactly one of",
          "ZZZ-01.json step 3.expect: $regex takes a regular expression string",
          "ZZZ-01.json step 4.expect.x: $foo, $bar is not an operator",
          "ZZZ-01.json step 5: respond needs exactly one of result or error",
        ])
          assert.ok(err.message.includes(needle), `missing ${JSON.stringify(needle)} in:\n${err.message}`);
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
