/**
 * The rpi bridge is a stand-in child that offers its messages as objects (ForeignMessages), and a
 * host that takes them writes no bytes to its stdin: a byte written there fails the stream with an
 * error that says so, instead of being read as frames nobody tests; closing stdin still ends the
 * channel, after which the host's messages are no longer read.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createOctetBridge } from "../src/octet/octet-bridge.js";

test("a byte written to the rpi stand-in's stdin fails it, naming ForeignMessages", async () => {
  const { child } = createOctetBridge({ extensionId: "bytes" });
  const failed = once(child.stdin, "error");
  child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n');
  const [err] = (await failed) as [Error];
  assert.match(err.message, /takes the host's messages as objects \(ForeignMessages\), not bytes/);
  assert.equal(child.stdin.destroyed, true);
});

test("after stdin closed, the host's messages are not read and nothing is answered", async () => {
  const { child } = createOctetBridge({ extensionId: "closed" });
  const answers: unknown[] = [];
  child.messages.read((m) => answers.push(m));
  // Before the close a bad envelope is answered -32600, as a line would be.
  child.messages.write({ jsonrpc: "2.0", id: 1, method: "" } as never);
  assert.equal(answers.length, 1);
  assert.equal((answers[0] as { error: { code: number } }).error.code, -32600);
  child.stdin.destroy();
  child.messages.write({ jsonrpc: "2.0", id: 2, method: "" } as never);
  assert.equal(answers.length, 1);
});
