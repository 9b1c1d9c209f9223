// The raw floor's child: LF-delimited JSON lines in, one reply line out per request. No validation,
// no bounds, no framing checks: the least any JSONL wire can do.
import { createInterface } from "node:readline";

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
const blobs = new Map();
function blob(n) {
  let text = blobs.get(n);
  if (text === undefined) blobs.set(n, (text = "x".repeat(n)));
  return text;
}

rl.on("line", (line) => {
  const msg = JSON.parse(line);
  const text = msg.params?.name === "blob" ? blob(Number(msg.params.arguments.bytes)) : msg.params?.arguments?.text ?? "";
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: { text } }) + "\n");
});
rl.on("close", () => process.exit(0));
