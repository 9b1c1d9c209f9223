"""Bytes in, envelopes out, and frames out: the extension's side of the JSONL wire.

FrameDecoder mirrors packages/protocol/src/jsonl/decoder.ts: LF is the only separator; a raw CR,
a blank line, invalid UTF-8 or invalid JSON refuses that line (the reader goes on); a line longer
than MAX_FRAME_BYTES is one fatal error as soon as the byte past the bound arrives, without
waiting for its LF. Lines are assembled from chunks, so the bound is ours, not asyncio's 64 KiB
StreamReader limit (which would refuse legal frames).

parse_envelope mirrors jsonrpc.ts: closed envelopes (unknown members, batches and scalars are
refused), id rules, and duplicate top-level members (json keeps the last one silently, so which
"id" is meant cannot be trusted). encode_frame checks the bound before any byte is written.
"""
import json
from typing import Any, List, Optional, Tuple

from ._bounds import MAX_CHILD_ID_BYTES, MAX_FRAME_BYTES, MAX_QUOTED_LINE_BYTES, MAX_SAFE_JSON_INTEGER

__all__ = ["FrameDecoder", "FrameError", "FrameTooLarge", "parse_envelope", "encode_frame", "check_id", "quote_bytes"]

_ENVELOPE_KEYS = frozenset(["jsonrpc", "id", "method", "params", "result", "error"])
_ERROR_KEYS = frozenset(["code", "message", "data"])


class FrameError:
    """One refused line: code (blank_line, carriage_return, invalid_utf8, invalid_json,
    frame_too_large, truncated_frame), a message, whether the stream is now unreadable, and the
    first bytes of the line escaped to printable ASCII."""

    __slots__ = ("code", "message", "fatal", "quoted")

    def __init__(self, code: str, message: str, fatal: bool, quoted: str) -> None:
        self.code, self.message, self.fatal, self.quoted = code, message, fatal, quoted

    def __repr__(self) -> str:
        return f"FrameError({self.code!r}, {self.message!r}, fatal={self.fatal})"


class FrameTooLarge(ValueError):
    """An outbound message whose frame would exceed MAX_FRAME_BYTES; nothing was written."""


class _Obj(dict):
    duplicate: Optional[str] = None


def _pairs(pairs: List[Tuple[str, Any]]) -> dict:
    # Called for every object of every frame: a plain dict (built in C) unless a key repeats,
    # which the sizes tell; only then the pairs are walked to name the first duplicate.
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Obj()
    for key, value in pairs:
        if key in marked and marked.duplicate is None:
            marked.duplicate = key
        marked[key] = value
    return marked


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_decoder = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_no_constant)
_scan_once = _decoder.scan_once


def _decode_json(text: str) -> Any:
    """_decoder.decode(text), calling its C scanner directly for a text that is exactly one value
    (every frame the host writes): decode() wraps the same scan in two Python frames and two
    whitespace matches, about 0.6 us of a frame. Anything else (surrounding whitespace, extra
    data, no value) takes decode() itself, so its errors are decode()'s."""
    try:
        value, end = _scan_once(text, 0)
    except StopIteration:
        return _decoder.decode(text)
    return value if end == len(text) else _decoder.decode(text)


# Made once: json.dumps with options builds a new JSONEncoder on every call.
_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_encode_ascii = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"), allow_nan=False).encode


class FrameDecoder:
    """Chunks in, (value, None) or (None, FrameError) per line out."""

    def __init__(self, max_frame_bytes: int = MAX_FRAME_BYTES) -> None:
        self._max = max_frame_bytes
        self._parts: List[bytes] = []
        self._length = 0
        self.failed = False

    @property
    def buffered(self) -> int:
        return self._length

    def push(self, chunk: bytes) -> List[Tuple[Any, Optional[FrameError]]]:
        out: List[Tuple[Any, Optional[FrameError]]] = []
        if self.failed:
            return out
        start = 0
        n = len(chunk)
        while start <= n:
            nl = chunk.find(b"\n", start)
            if nl == -1:
                rest = n - start
                if rest == 0:
                    break
                if self._length + rest > self._max:
                    out.append((None, self._fail(chunk[start:start + min(rest, MAX_QUOTED_LINE_BYTES)])))
                    return out
                self._parts.append(bytes(chunk[start:]))
                self._length += rest
                break
            piece_length = nl - start
            if self._length + piece_length > self._max:
                out.append((None, self._fail(chunk[start:start + min(piece_length, MAX_QUOTED_LINE_BYTES)])))
                return out
            piece = bytes(chunk[start:nl])
            if self._length:
                self._parts.append(piece)
                piece = b"".join(self._parts)
                self._parts, self._length = [], 0
            out.append(decode_line(piece))
            start = nl + 1
        return out

    def end(self) -> List[Tuple[Any, Optional[FrameError]]]:
        """At end of input: a partial line left over is a truncated frame (fatal)."""
        if self.failed or self._length == 0:
            return []
        head = b"".join(self._parts)[:MAX_QUOTED_LINE_BYTES]
        self.failed = True
        self._parts, self._length = [], 0
        return [
            (
                None,
                FrameError(
                    "truncated_frame", "input ended inside a frame (no terminating LF)", True, quote_bytes(head)
                ),
            )
        ]

    def _fail(self, tail: bytes) -> FrameError:
        head = b"".join(self._parts)[:MAX_QUOTED_LINE_BYTES] if self._parts else tail
        self._parts, self._length = [], 0
        self.failed = True
        return FrameError("frame_too_large", f"frame exceeds the {self._max}-byte limit", True, quote_bytes(head))


def _line_error(code: str, message: str, line: bytes) -> Tuple[None, FrameError]:
    return None, FrameError(code, message, False, quote_bytes(line[:MAX_QUOTED_LINE_BYTES]))


def decode_line(line: bytes) -> Tuple[Any, Optional[FrameError]]:
    """One complete line (without its LF) to its JSON value, or the reason it is refused."""
    if not line:
        return _line_error("blank_line", "blank line (an empty frame is not allowed)", line)
    cr = line.find(b"\r")
    if cr != -1:
        return _line_error(
            "carriage_return",
            f"raw carriage return at byte {cr} (CRLF and CR are not allowed; frames end with LF only)",
            line,
        )
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return _line_error("invalid_utf8", "frame is not valid UTF-8", line)
    try:
        value = _decode_json(text)
    except (ValueError, RecursionError) as err:
        return _line_error("invalid_json", f"frame is not valid JSON ({str(err)[:120]})", line)
    return value, None


def quote_bytes(data: bytes) -> str:
    """Printable-ASCII rendering of bytes for diagnostics: anything else becomes \\xNN."""
    out = []
    for b in data:
        if b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\x{b:02x}")
    return "".join(out)


def check_id(value: Any) -> Optional[str]:
    """None for a valid id: an integer in [0, 2^53-1] or a string of at most 256 UTF-8 bytes."""
    if isinstance(value, str):
        n = len(value.encode("utf-8", "surrogatepass"))
        return None if n <= MAX_CHILD_ID_BYTES else f"id string is {n} bytes, over the {MAX_CHILD_ID_BYTES}-byte limit"
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            return f"id {value} is not an unsigned integer"
        if value > MAX_SAFE_JSON_INTEGER:
            return f"id {value} is above 2^53-1 and cannot be represented exactly"
        return None
    if isinstance(value, float):
        return f"id {value} is not an unsigned integer"
    kind = "null" if value is None else type(value).__name__
    return f"id must be an unsigned integer or a string, got {kind}"


def _salvage(obj: dict) -> Any:
    return obj["id"] if "id" in obj and check_id(obj["id"]) is None else None


def parse_envelope(value: Any) -> Tuple[Optional[str], Optional[str], Any]:
    """(kind, reason, id): kind is "request", "notification" or "response" for a valid envelope;
    otherwise kind is None, reason says why, and id is the usable id to answer with (or None)."""
    if isinstance(value, list):
        return None, "batch arrays are not supported on this wire", None
    if not isinstance(value, dict):
        kind = "null" if value is None else type(value).__name__
        return None, f"a frame must be a JSON object, got {kind}", None
    for key in value:
        if key not in _ENVELOPE_KEYS:
            return None, f'unknown envelope member "{key[:64]}"', _salvage(value)
    duplicate = getattr(value, "duplicate", None)
    if duplicate is not None:
        # No id is reported: which of the duplicates is "the" id is exactly what cannot be trusted.
        return None, f'member "{duplicate}" appears more than once', None
    if value.get("jsonrpc") != "2.0":
        return None, '"jsonrpc" must be "2.0"', _salvage(value)
    has_result, has_error = "result" in value, "error" in value
    if "method" in value:
        if has_result or has_error:
            return None, "a request cannot carry result or error", _salvage(value)
        method = value["method"]
        if not isinstance(method, str) or not method:
            return None, '"method" must be a non-empty string', _salvage(value)
        if "params" in value and not isinstance(value["params"], (dict, list)):
            return None, '"params" must be an object or an array', _salvage(value)
        if "id" not in value:
            return "notification", None, None
        problem = check_id(value["id"])
        if problem is not None:
            return None, problem, None
        return "request", None, value["id"]
    if "params" in value:
        return None, "a response cannot carry params", _salvage(value)
    if has_result == has_error:
        return None, "a response must carry exactly one of result or error", _salvage(value)
    if "id" not in value:
        return None, "a response must carry an id", None
    if has_error:
        error = value["error"]
        if not isinstance(error, dict):
            return None, '"error" must be an object', _salvage(value)
        for key in error:
            if key not in _ERROR_KEYS:
                return None, f'unknown error member "{key[:64]}"', _salvage(value)
        code = error.get("code")
        if not isinstance(code, int) or isinstance(code, bool):
            return None, '"error.code" must be an integer', _salvage(value)
        if not isinstance(error.get("message"), str):
            return None, '"error.message" must be a string', _salvage(value)
        if value["id"] is not None:
            problem = check_id(value["id"])
            if problem is not None:
                return None, problem, None
        return "response", None, value["id"]
    problem = check_id(value["id"])
    if problem is not None:
        return None, problem, None
    return "response", None, value["id"]


def encode_frame(message: Any, max_frame_bytes: int = MAX_FRAME_BYTES) -> bytes:
    """The frame of one message (its JSON text plus LF). Raises FrameTooLarge over the bound and
    ValueError/TypeError for a value with no JSON text (NaN, a set, a cycle), before any write."""
    try:
        data = _encode(message).encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate has no UTF-8 form: escape it as \\udXXX, as JSON.stringify does.
        data = _encode_ascii(message).encode("ascii")
    if len(data) > max_frame_bytes:
        raise FrameTooLarge(f"outbound frame is {len(data)} bytes, over the {max_frame_bytes}-byte limit")
    return data + b"\n"
