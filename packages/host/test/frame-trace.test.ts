import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FrameTrace, REDACTED, type TraceRecord } from "../src/transport/frame-trace.js";

async function traced(body: (trace: FrameTrace) => void): Promise<TraceRecord[]> {
  const dir = await mkdtemp(join(tmpdir(), "octet-trace-"));
  try {
    const trace = new FrameTrace(join(dir, "t.jsonl"));
    body(trace);
    trace.close();
    const text = await readFile(join(dir, "t.jsonl"), "utf8");
    return text
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as TraceRecord);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test(
  "issue 18.5: the trace redacts a broker's answer to secret/get, and the value wherever it appears " + "later",
  async () => {
    const secret = "tok-1234567890";
    const out = await traced((t) => {
      t.frame("ext", 2, "in", { jsonrpc: "2.0", id: 7, method: "secret/get", params: { name: "api" } });
      t.frame("ext", 2, "out", `${JSON.stringify({ jsonrpc: "2.0", id: 7, result: { value: secret } })}\n`);
      t.frame("ext", 2, "in", {
        jsonrpc: "2.0",
        id: 1,
        result: { content: [{ type: "text", text: `used ${secret}` }] },
      });
      // The same id in another generation is another request: its answer is not a secret.
      t.frame("ext", 3, "out", `${JSON.stringify({ jsonrpc: "2.0", id: 7, result: { value: "plain" } })}\n`);
    });
    assert.equal(out.length, 4);
    assert.deepEqual(
      out.map((r) => [r.extension, r.generation, r.dir]),
      [
        ["ext", 2, "in"],
        ["ext", 2, "out"],
        ["ext", 2, "in"],
        ["ext", 3, "out"],
      ],
    );
    assert.equal((out[1]!.frame as { result: unknown }).result, REDACTED);
    assert.equal(JSON.stringify(out[2]!.frame).includes(secret), false);
    assert.match(JSON.stringify(out[2]!.frame), /used \[redacted\]/);
    assert.deepEqual((out[3]!.frame as { result: unknown }).result, { value: "plain" });
  },
);

test("issue 18.5: members named like credentials are redacted; other members and refused lines are kept", async () => {
  const out = await traced((t) => {
    t.frame("e", 1, "out", {
      jsonrpc: "2.0",
      id: 1,
      method: "tool/call",
      params: { arguments: { api_key: "k", password: "p", auth_token: "t", keyboard: "kept", count: 3 } },
    });
    t.refused("e", 1, "invalid JSON: Unexpected token");
  });
  const args = (out[0]!.frame as { params: { arguments: Record<string, unknown> } }).params.arguments;
  assert.deepEqual(args, { api_key: REDACTED, password: REDACTED, auth_token: REDACTED, keyboard: "kept", count: 3 });
  assert.equal(out[1]!.error, "invalid JSON: Unexpected token");
  assert.equal(out[1]!.frame, undefined);
});
