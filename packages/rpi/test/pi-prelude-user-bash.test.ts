// pi's user_bash `{operations: {exec}}` answer inside QuickJS (prelude user-bash.ts): the exec is
// code, so the prelude runs it with pi's (command, cwd, {onData, signal, timeout}) and answers
// with the result it collected; output chunks go out as update frames on the way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { loaded, invoke, ok, ext, type Frame } from "./helpers/quickjs-harness.js";

const hooks = { capabilities: ["event_hooks"] };
const fire = (id: string, command: string): object =>
  invoke(id, { kind: "hook", event: { name: "user_bash", data: { command, excludeFromContext: false, cwd: "/w" } } });
const answered = (id: string) => (frames: readonly Frame[]) =>
  frames.some((f) => f["type"] === "response" && f["id"] === id);

const OPERATIONS = ext(`
  pi.on("user_bash", (event) => ({ operations: { exec: (command, cwd, options) => new Promise((resolve, reject) => {
    if (command === "fails") return reject(new Error("ssh: connect refused"));
    options.onData("out of " + command + " in " + cwd + "\\n");
    if (command === "hangs") {
      globalThis.sawTimeout = options.timeout;
      options.signal.addEventListener("abort", () => { globalThis.aborted = true; reject(new Error("aborted")); });
      return;
    }
    setTimeout(() => { options.onData("later\\n"); resolve({ exitCode: 7 }); }, 150);
  }) } }));`);

test("user_bash operations: exec runs in the extension; chunks stream as updates; answers its result", async () => {
  const { h } = await loaded(OPERATIONS, hooks);
  try {
    h.send(fire("req-2", "make"));
    const frames = await h.until(answered("req-2"));
    const updates = frames.filter((f) => f["type"] === "update").map((f) => (f["value"] as { output: string }).output);
    assert.ok(updates.length >= 1, "at least one update before the answer");
    assert.equal(updates.join(""), "out of make in /w\n", "what came before the answer, once");
    assert.deepEqual(
      frames.at(-1),
      ok("req-2", {
        result: { output: "out of make in /w\nlater\n", exitCode: 7, cancelled: false, truncated: false },
      }),
    );
  } finally {
    h.dispose();
  }
});

test("user_bash operations: a rejected exec is its message in the output and no exit code", async () => {
  const { h } = await loaded(OPERATIONS, hooks);
  try {
    h.send(fire("req-2", "fails"));
    const frames = await h.until(answered("req-2"));
    assert.deepEqual(
      frames.at(-1),
      ok("req-2", {
        result: { output: "ssh: connect refused\n", exitCode: null, cancelled: false, truncated: false },
      }),
    );
  } finally {
    h.dispose();
  }
});

test("user_bash operations: the host's cancel aborts the exec's signal", async () => {
  const { h } = await loaded(OPERATIONS, hooks);
  try {
    h.send(fire("req-2", "hangs"));
    await h.until((f) => f.some((x) => x["type"] === "update"));
    h.send({ type: "cancel", id: "req-2" });
    const frames = await h.until(answered("req-2"));
    assert.deepEqual(frames.at(-1), { type: "response", id: "req-2", result: { status: "cancelled" } });
    assert.equal(h.evaluate("globalThis.aborted === true"), true, "the exec's signal was aborted");
    assert.equal(h.evaluate("globalThis.sawTimeout === undefined"), true, "pi passes no timeout for user commands");
  } finally {
    h.dispose();
  }
});
