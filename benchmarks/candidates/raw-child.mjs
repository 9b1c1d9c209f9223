// The raw floor's child: LF-delimited JSON lines in, one reply line out per request. No validation,
// no bounds, no framing checks: the least any JSONL wire can do. A `$/cancelRequest` notification
// ({id}) cancels a running `wait`; `live` reports how many `wait` calls are still running.
import { createInterface } from "node:readline";

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const blobs = new Map();
function blob(n) {
  let text = blobs.get(n);
  if (text === undefined) blobs.set(n, (text = "x".repeat(n)));
  return text;
}
const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");

// wait: polls its cancelled flag every 1 ms, like the SDK handler polls ctx.throwIfCancelled().
const waiting = new Map(); // id -> { cancelled }
async function wait(id, maxMs) {
  const state = { cancelled: false };
  waiting.set(id, state);
  const until = Date.now() + maxMs;
  try {
    while (Date.now() < until) {
      if (state.cancelled) {
        process.stdout.write(
          JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32800, message: "cancelled" } }) + "\n",
        );
        return;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
    reply(id, { text: "not cancelled" });
  } finally {
    waiting.delete(id);
  }
}

rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.method === "$/cancelRequest") {
    const w = waiting.get(msg.params?.id);
    if (w) w.cancelled = true;
    return;
  }
  const name = msg.params?.name;
  if (name === "wait") return void wait(msg.id, Number(msg.params.arguments?.max_ms ?? 30_000));
  const text =
    name === "blob"
      ? blob(Number(msg.params.arguments.bytes))
      : name === "live"
        ? String(waiting.size)
        : (msg.params?.arguments?.text ?? "");
  reply(msg.id, { text });
});
rl.on("close", () => process.exit(0));
