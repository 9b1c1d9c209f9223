"""A bounded walk over a JSON value: encoded size, nesting depth, node count, key and string sizes.

The Python twin of packages/protocol/src/validate/json-bounds.ts, with the same definitions so
the SDK refuses exactly what the host would:
- bytes: UTF-8 bytes of the compact JSON encoding, escapes included (a lone surrogate counts as
  its 6-byte \\uXXXX escape, as JSON.stringify writes it);
- depth: containers on the deepest path; a scalar is depth 0, [] and {} are 1, [[1]] is 2;
- nodes: every value counts once, containers and scalars alike; object keys are not nodes.
One knowing difference: a float is counted as Python writes it ("100.0", where JSON.stringify
writes "100"), which is what this SDK puts on the wire and never less than the host counts.
Only JSON values are accepted: None, bool, int, finite float, str, list and dict with str keys.
The walk stops at the first limit passed, so a hostile value costs at most the work up to it.

Also the small text helpers (UTF-8 length, plain-text check, quoting) the typed and diagnostics
modules share.
"""
import json
import math
import re
from typing import Any, List, Optional, Tuple, Union

from ._typed_bounds import MAX_QUOTED_VALUE_CHARS

_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_len(s: str) -> int:
    """UTF-8 bytes of `s`; a lone surrogate counts as the 3 bytes surrogatepass would write."""
    return len(s.encode("utf-8", "surrogatepass"))


def lone_surrogate_at(s: str) -> Optional[int]:
    """Index of the first lone surrogate (a str that is not valid UTF-8 text), or None."""
    m = _SURROGATE.search(s)
    return None if m is None else m.start()


def string_token_bytes(s: str) -> int:
    """Bytes of `s` as a compact JSON string token, quotes included."""
    token = json.dumps(s, ensure_ascii=False)
    # json.dumps leaves lone surrogates raw (3 bytes); JSON.stringify escapes them (6 bytes).
    return utf8_len(token) + 3 * len(_SURROGATE.findall(s))


def plain_text_problem(s: str) -> Optional[str]:
    """Why `s` is not plain text (a control character other than LF and TAB), or None.

    Control characters are Unicode Cc (C0, DEL, C1), as checkPlainText in the TS protocol: a bare
    CR can overwrite a line on a terminal, so it is refused too.
    """
    for i, ch in enumerate(s):
        c = ord(ch)
        if c in (0x0A, 0x09):
            continue
        if c < 0x20 or 0x7F <= c <= 0x9F:
            return "control character U+%04X at index %d; only LF and TAB are allowed" % (c, i)
    i = lone_surrogate_at(s)
    if i is not None:
        return "lone surrogate at index %d; text must be valid UTF-8" % i
    return None


def quote(s: str) -> str:
    """A short JSON-quoted form of `s` for messages (at most 64 characters of it)."""
    if len(s) > MAX_QUOTED_VALUE_CHARS:
        return json.dumps(s[:MAX_QUOTED_VALUE_CHARS]) + "..."
    return json.dumps(s)


def describe(v: Any) -> str:
    """The JSON kind of `v`, for "expected X, got Y" messages."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, float):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return "a %s (not JSON)" % type(v).__name__


def at(path: str, key: str) -> str:
    return key if path == "" else "%s.%s" % (path, key)


def index(path: str, i: int) -> str:
    return "%s[%d]" % (path, i)


class Problems:
    """Problems found in one value, each "path: message"; the first few are kept."""

    LIMIT = 16

    def __init__(self) -> None:
        self.items: List[Tuple[str, str]] = []
        self.count = 0

    def add(self, path: str, message: str) -> None:
        self.count += 1
        if len(self.items) < self.LIMIT:
            self.items.append((path, message))

    def __bool__(self) -> bool:
        return self.count > 0

    def lines(self) -> List[str]:
        out = ["%s: %s" % (p, m) if p else m for p, m in self.items]
        if self.count > len(self.items):
            out.append("... and %d more problems" % (self.count - len(self.items)))
        return out


class Limits:
    """What measure() enforces; None means unbounded."""

    __slots__ = ("max_bytes", "max_depth", "max_nodes", "max_key_bytes", "max_string_bytes")

    def __init__(self, max_bytes: int, max_depth: int, max_nodes: int,
                 max_key_bytes: Optional[int] = None, max_string_bytes: Optional[int] = None):
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.max_key_bytes = max_key_bytes
        self.max_string_bytes = max_string_bytes


class Violation:
    """The first limit a value passed: which rule, where (under the given root), and why."""

    __slots__ = ("rule", "path", "message")

    def __init__(self, rule: str, path: str, message: str):
        self.rule = rule
        self.path = path
        self.message = message

    def __repr__(self) -> str:
        return "Violation(%r, %r, %r)" % (self.rule, self.path, self.message)


Measure = Tuple[int, int, int]  # bytes, depth, nodes


def measure(value: Any, limits: Limits, root: str = "") -> Union[Measure, Violation]:
    """(bytes, depth, nodes) of `value`, or the first Violation of `limits`."""
    nbytes = 0
    depth = 0
    nodes = 1
    # (value, containers above it, path)
    stack: List[Tuple[Any, int, str]] = [(value, 0, root)]
    while stack:
        v, level, path = stack.pop()
        if v is None or v is True:
            nbytes += 4
        elif v is False:
            nbytes += 5
        elif isinstance(v, int) and not isinstance(v, bool):
            nbytes += len(str(v))
        elif isinstance(v, float):
            if not math.isfinite(v):
                return Violation("type", path, "%r is not a JSON number (NaN and Infinity are refused)" % v)
            nbytes += len(json.dumps(v))
        elif isinstance(v, str):
            if limits.max_string_bytes is not None:
                n = utf8_len(v)
                if n > limits.max_string_bytes:
                    return Violation("string", path, "string of %d bytes, over the %d-byte limit"
                                     % (n, limits.max_string_bytes))
            nbytes += string_token_bytes(v)
        elif isinstance(v, (list, dict)):
            level += 1
            if level > limits.max_depth:
                return Violation("depth", path, "%d levels of nesting, over the %d-level limit"
                                 % (level, limits.max_depth))
            depth = max(depth, level)
            nodes += len(v)
            if nodes > limits.max_nodes:
                return Violation("nodes", path, "at least %d nodes, over the %d-node limit"
                                 % (nodes, limits.max_nodes))
            nbytes += 2 + max(0, len(v) - 1)
            if isinstance(v, list):
                for i in range(len(v) - 1, -1, -1):
                    stack.append((v[i], level, index(path, i)))
            else:
                for k in v:
                    if not isinstance(k, str):
                        return Violation("type", path, "object key %r is not a string" % (k,))
                    if limits.max_key_bytes is not None:
                        n = utf8_len(k)
                        if n > limits.max_key_bytes:
                            return Violation("key", path, "key %s is %d bytes, over the %d-byte limit"
                                             % (quote(k), n, limits.max_key_bytes))
                    nbytes += string_token_bytes(k) + 1  # the key token and its colon
                for k in reversed(list(v)):
                    stack.append((v[k], level, at(path, k)))
        else:
            return Violation("type", path, "%s is not a JSON value" % describe(v))
        if nbytes > limits.max_bytes:
            # Size belongs to the whole value, so the report names the root.
            return Violation("bytes", root, "at least %d bytes encoded, over the %d-byte limit"
                             % (nbytes, limits.max_bytes))
    return (nbytes, depth, nodes)


def compact_json(value: Any) -> str:
    """The compact encoding the byte bounds are defined on."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
