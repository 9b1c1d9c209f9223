# bench-echo in Python: the Python SDK candidate's extension (API 0.4, full parameters schemas).
# It runs the SDK from this checkout (sdk/python), so the benchmark needs no pip install.
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "sdk", "python"))

from octet_extension import Extension  # noqa: E402

ext = Extension(api_version="0.4", max_concurrent_requests=64)


@ext.tool(
    name="echo",
    description="Return the text argument unchanged",
    parameters={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    },
    inline=True,  # returns at once: run on the event loop, no thread handoff
)
def echo(args):
    return str(args["text"])


_blobs = {}


@ext.tool(
    name="blob",
    description="Return a text of the requested number of bytes",
    parameters={
        "type": "object",
        "properties": {"bytes": {"type": "integer", "minimum": 0}},
        "required": ["bytes"],
        "additionalProperties": False,
    },
    inline=True,
)
def blob(args):
    n = int(args["bytes"])
    text = _blobs.get(n)
    if text is None:
        text = _blobs[n] = "x" * n
    return text


ext.run()
