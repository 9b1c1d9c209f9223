# The raw Python floor's child: LF-delimited JSON lines in, one reply line out per request, with
# the standard library only. No validation, no bounds: the least a Python JSONL extension can do.
# Tools: echo (returns its text), blob (a text of `bytes` ASCII bytes, cached per size), live (0).
import json
import sys

blobs = {}
out = sys.stdout.buffer
for raw in sys.stdin.buffer:
    msg = json.loads(raw)
    params = msg.get("params") or {}
    name = params.get("name")
    args = params.get("arguments") or {}
    if name == "blob":
        n = int(args.get("bytes", 0))
        text = blobs.get(n)
        if text is None:
            text = blobs[n] = "x" * n
    elif name == "live":
        text = "0"
    else:
        text = args.get("text", "")
    out.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {"text": text}}).encode() + b"\n")
    out.flush()
