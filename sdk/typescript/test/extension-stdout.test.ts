/**
 * Ownership of stdout in a real child process: author output never reaches the wire (FRAME-03),
 * and a burst of large concurrent results arrives as whole, separate frames (FRAME-07). The
 * harness's strict splitter records any line that is not a JSON-RPC object as a violation.
 */
import { afterEach, test } from "node:test";
import assert from "node:assert/strict";
import { CONTEXT, WireHost, killAll, resultOf } from "./harness.js";

afterEach(killAll);

test("FRAME-03: console.log and stray process.stdout.write go to stderr; stdout carries only frames", async () => {
  const host = new WireHost("noise");
  resultOf(await host.initialize("0.1"));
  const result = resultOf(await host.request("tool/call", { name: "noisy", arguments: {}, context: CONTEXT }));
  assert.deepEqual(result, { content: "quiet result", is_error: false });
  for (const text of [
    "noise after run",
    "noise on a later tick",
    "noise from console.log",
    "noise from console.info",
    "stray write without newline",
    "stray write with callback",
  ]) {
    await host.waitForStderr(text);
  }
  assert.deepEqual(await host.call("shutdown", {}), {});
  assert.deepEqual(await host.waitForExit(), { code: 0, signal: null });
  assert.deepEqual(host.violations, [], "every stdout line is a frame");
  assert.equal(host.unterminated, 0, "nothing after the last frame");
  assert.deepEqual(
    host.frames.map((f) => f["id"]),
    [1, 2, 3],
    "stdout holds exactly the three responses",
  );
});

test(
  "FRAME-07: 200 concurrent tool calls with ~50 KB results arrive as 200 whole frames, none " + "interleaved",
  async () => {
    const host = new WireHost("burst");
    resultOf(await host.initialize("0.1"));
    const size = 50_000;
    const ids = new Map<number, number>();
    for (let n = 0; n < 200; n++)
      ids.set(host.sendRequest("tool/call", { name: "blob", arguments: { n, size }, context: CONTEXT }), n);
    const alphabet = "abcdefghijklmnopqrstuvwxyz";
    await Promise.all(
      [...ids].map(async ([id, n]) => {
        const result = resultOf(await host.response(id, 30_000)) as { content: string; is_error: boolean };
        assert.equal(result.is_error, false);
        // Checked without building the expected 50 KB string per call: prefix, length, one character.
        assert.ok(result.content.startsWith(`${n}:`), `result ${n} starts with its tag`);
        const body = result.content.slice(`${n}:`.length);
        assert.equal(body.length, size, `result ${n} is whole`);
        assert.equal(body.replaceAll(alphabet[n % 26]!, ""), "", `result ${n} holds only its own bytes`);
      }),
    );
    assert.deepEqual(host.violations, [], "every stdout line parsed as one JSON-RPC object");
    const responses = host.frames.filter((f) => ids.has(f["id"] as number));
    assert.equal(responses.length, 200, "exactly one response per request");
    // The fixture wrote one stray "~" per call to stdout; all of it was moved to stderr.
    host.closeStdin();
    await host.waitForExit();
    assert.equal(host.stderr.split("~").length - 1, 200);
  },
);

test("FRAME-03: output written between new Extension() and run() stays off stdout", async () => {
  const host = new WireHost("prerun-noise");
  resultOf(await host.initialize("0.1"));
  host.closeStdin();
  await host.waitForExit();
  assert.deepEqual(host.violations, []);
  assert.match(host.stderr, /loading configuration/);
});
