"""Annotations to codecs: the JSON Schema, decoder and encoder of one typed value.

Owns the supported type vocabulary of typed tools (PY-13..PY-17) and nothing else: which Python
annotations map to which JSON, what each accepts, and the loud registration errors for the rest.
The tool layer (typed.py) owns handler signatures, bounds of whole values and results.

Supported: str (valid UTF-8), bool, int (portable, +-(2^53-1)), float (finite; an int becomes a
float), list[T], non-recursive dataclasses (closed records), Optional[T], string Enum and string
Literal. Everything else -- maps, tuples, sets, bytes, Any, general unions, recursive records,
unannotated values -- fails registration: a typed tool never degrades to an unchecked dict.
"""
import collections.abc
import dataclasses
import enum
import math
import typing
from typing import Any, Dict, List, Optional, Tuple

from ._json_bounds import Problems, at, describe, index, lone_surrogate_at, quote, utf8_len
from ._typed_bounds import MAX_SAFE_JSON_INTEGER, MAX_SCHEMA_PROPERTY_NAME_BYTES

try:  # X | None (Python 3.10+)
    from types import UnionType as _UnionType  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.9
    _UnionType = None

_MISSING = dataclasses.MISSING
INVALID = object()
"""What decode/encode return after adding a problem; never a valid value."""


class TypedToolError(TypeError):
    """A typed tool cannot be registered: the message names the tool, the place and the type."""


def type_name(tp: Any) -> str:
    """A readable name of an annotation for error messages."""
    if isinstance(tp, type) and getattr(tp, "__module__", "") == "builtins":
        return tp.__name__
    if isinstance(tp, type):
        return tp.__qualname__
    return repr(tp).replace("typing.", "")


class Codec:
    """One annotation: schema() for the wire, decode() for arguments, encode() for results."""

    def schema(self, output: bool) -> Dict[str, Any]:
        raise NotImplementedError

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        raise NotImplementedError

    def encode(self, v: Any, path: str, p: Problems) -> Any:
        raise NotImplementedError


class StrCodec(Codec):
    def schema(self, output: bool) -> Dict[str, Any]:
        return {"type": "string"}

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        if not isinstance(v, str):
            p.add(path, "expected a string, got %s" % describe(v))
            return INVALID
        i = lone_surrogate_at(v)
        if i is not None:
            p.add(path, "lone surrogate at index %d; strings must be valid UTF-8" % i)
            return INVALID
        return v

    encode = decode


class BoolCodec(Codec):
    def schema(self, output: bool) -> Dict[str, Any]:
        return {"type": "boolean"}

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        if v is True or v is False:
            return v
        p.add(path, "expected a boolean, got %s" % describe(v))
        return INVALID

    encode = decode


def _portable(v: int, path: str, p: Problems) -> bool:
    if -MAX_SAFE_JSON_INTEGER <= v <= MAX_SAFE_JSON_INTEGER:
        return True
    p.add(path, "integer %d is outside the portable range +-%d (2^53-1)" % (v, MAX_SAFE_JSON_INTEGER))
    return False


class IntCodec(Codec):
    def schema(self, output: bool) -> Dict[str, Any]:
        return {"type": "integer", "minimum": -MAX_SAFE_JSON_INTEGER, "maximum": MAX_SAFE_JSON_INTEGER}

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        # JSON does not tell 3 from 3.0 (a JavaScript host cannot), so an integral float is an
        # integer on input, as JSON Schema's "integer" says. Booleans never are.
        if isinstance(v, float) and math.isfinite(v) and v.is_integer():
            v = int(v)
        return self.encode(v, path, p)

    def encode(self, v: Any, path: str, p: Problems) -> Any:
        if isinstance(v, bool) or not isinstance(v, int):
            p.add(path, "expected an integer, got %s" % describe(v))
            return INVALID
        return v if _portable(v, path, p) else INVALID


class FloatCodec(Codec):
    def schema(self, output: bool) -> Dict[str, Any]:
        return {"type": "number"}

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        # An int becomes a float (PY-14) in both directions; a bool is never a number.
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            p.add(path, "expected a number, got %s" % describe(v))
            return INVALID
        try:
            f = float(v)
        except OverflowError:
            p.add(path, "integer is too large for a float")
            return INVALID
        if not math.isfinite(f):
            p.add(path, "%r is not a finite number (NaN and Infinity are refused)" % f)
            return INVALID
        return f

    encode = decode


class ListCodec(Codec):
    def __init__(self, item: Codec):
        self.item = item

    def schema(self, output: bool) -> Dict[str, Any]:
        return {"type": "array", "items": self.item.schema(output)}

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        return self._map(v, path, p, self.item.decode)

    def encode(self, v: Any, path: str, p: Problems) -> Any:
        return self._map(v, path, p, self.item.encode)

    @staticmethod
    def _map(v: Any, path: str, p: Problems, fn: Any) -> Any:
        if not isinstance(v, list):
            p.add(path, "expected an array, got %s" % describe(v))
            return INVALID
        out = [fn(item, index(path, i), p) for i, item in enumerate(v)]
        return INVALID if any(x is INVALID for x in out) else out


class OptionalCodec(Codec):
    """Optional[T]: null is a value, not an omission (PY-15); omission needs a default."""

    def __init__(self, inner: Codec):
        self.inner = inner

    def schema(self, output: bool) -> Dict[str, Any]:
        return {"anyOf": [self.inner.schema(output), {"type": "null"}]}

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        return None if v is None else self.inner.decode(v, path, p)

    def encode(self, v: Any, path: str, p: Problems) -> Any:
        return None if v is None else self.inner.encode(v, path, p)


class EnumCodec(Codec):
    """A string Enum travels as its values; handlers see and return members."""

    def __init__(self, cls: Any):
        self.cls = cls
        self.by_value = {m.value: m for m in cls}

    def schema(self, output: bool) -> Dict[str, Any]:
        return {"type": "string", "enum": list(self.by_value)}

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        if isinstance(v, str) and v in self.by_value:
            return self.by_value[v]
        p.add(path, "expected one of %s, got %s" % (_choices(self.by_value), _shown(v)))
        return INVALID

    def encode(self, v: Any, path: str, p: Problems) -> Any:
        if isinstance(v, self.cls):
            return v.value
        p.add(path, "expected a %s member, got %s" % (self.cls.__qualname__, _shown(v)))
        return INVALID


class LiteralCodec(Codec):
    def __init__(self, values: Tuple[str, ...]):
        self.values = values

    def schema(self, output: bool) -> Dict[str, Any]:
        return {"type": "string", "enum": list(self.values)}

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        if isinstance(v, str) and v in self.values:
            return v
        p.add(path, "expected one of %s, got %s" % (_choices(self.values), _shown(v)))
        return INVALID

    encode = decode


class Field:
    __slots__ = ("name", "codec", "default_json")

    def __init__(self, name: str, codec: Codec, default_json: Any):
        self.name = name
        self.codec = codec
        # The default encoded once at registration (PY-16); _MISSING when the field is required.
        self.default_json = default_json


class RecordCodec(Codec):
    """A dataclass as a closed JSON object: unknown members are refused (PY-14)."""

    def __init__(self, cls: Any):
        self.cls = cls
        self.fields: List[Field] = []

    def schema(self, output: bool) -> Dict[str, Any]:
        props: Dict[str, Any] = {}
        required: List[str] = []
        for f in self.fields:
            s = f.codec.schema(output)
            # Output always carries every field, so all are required there and defaults say
            # nothing; on input a default is what an omitted field becomes.
            if output or f.default_json is _MISSING:
                required.append(f.name)
            else:
                s = dict(s, default=f.default_json)
            props[f.name] = s
        out: Dict[str, Any] = {"type": "object", "properties": props}
        if required:
            out["required"] = required
        out["additionalProperties"] = False
        return out

    def decode(self, v: Any, path: str, p: Problems) -> Any:
        if not isinstance(v, dict):
            p.add(path, "expected an object, got %s" % describe(v))
            return INVALID
        known = {f.name for f in self.fields}
        for key in v:
            if key not in known:
                p.add(at(path, key), "unknown field; %s is a closed record" % self.cls.__qualname__)
        kwargs: Dict[str, Any] = {}
        for f in self.fields:
            where = at(path, f.name)
            if f.name in v:
                kwargs[f.name] = f.codec.decode(v[f.name], where, p)
            elif f.default_json is not _MISSING:
                # Decoded afresh per call: no two calls share a mutable default (PY-16).
                kwargs[f.name] = f.codec.decode(f.default_json, where, p)
            else:
                p.add(where, "missing required field")
        if p or any(x is INVALID for x in kwargs.values()):
            return INVALID
        try:
            return self.cls(**kwargs)
        except (TypeError, ValueError) as err:
            # __post_init__ checks are the author's own input validation.
            p.add(path, "%s rejected the value: %s" % (self.cls.__qualname__, err))
            return INVALID

    def encode(self, v: Any, path: str, p: Problems) -> Any:
        if not isinstance(v, self.cls):
            p.add(path, "expected a %s, got %s" % (self.cls.__qualname__, type(v).__name__))
            return INVALID
        out = {f.name: f.codec.encode(getattr(v, f.name), at(path, f.name), p) for f in self.fields}
        return INVALID if any(x is INVALID for x in out.values()) else out


def _choices(values: Any) -> str:
    vals = list(values)
    shown = ", ".join(quote(x) for x in vals[:8])
    return "[%s%s]" % (shown, ", ..." if len(vals) > 8 else "")


def _shown(v: Any) -> str:
    return quote(v) if isinstance(v, str) else describe(v)


def _is_union(origin: Any) -> bool:
    return origin is typing.Union or (_UnionType is not None and origin is _UnionType)


class Compiler:
    """Turns annotations into codecs; `where` prefixes every error ("tool 'x', parameter 'v'")."""

    def __init__(self, where: str):
        self.where = where
        self._active: List[Any] = []  # dataclasses being compiled, to refuse recursion
        # One codec per dataclass, shared by input and output, so default factories run once.
        self._records: Dict[Any, Codec] = {}

    def fail(self, place: str, tp: Any, why: str) -> TypedToolError:
        return TypedToolError("%s%s: %s %s" % (self.where, place, type_name(tp), why))

    def compile(self, tp: Any, place: str = "") -> Codec:
        if tp is str:
            return StrCodec()
        if tp is bool:
            return BoolCodec()
        if tp is int:
            return IntCodec()
        if tp is float:
            return FloatCodec()
        origin = typing.get_origin(tp)
        args = typing.get_args(tp)
        if origin is list:
            if len(args) != 1:
                raise self.fail(place, tp, "needs one item type: write list[T]")
            return ListCodec(self.compile(args[0], place + "[]"))
        if _is_union(origin):
            rest = [a for a in args if a is not type(None)]
            if len(rest) == 1 and len(args) == 2:
                return OptionalCodec(self.compile(rest[0], place))
            raise self.fail(place, tp, "is a general union; only Optional[T] is supported")
        if origin is typing.Literal:
            if not args or not all(type(a) is str for a in args):
                raise self.fail(place, tp, "is not supported; Literal values must all be strings")
            return LiteralCodec(tuple(dict.fromkeys(args)))
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            members = list(tp)
            if not members or not all(type(m.value) is str for m in members):
                raise self.fail(place, tp, "is not supported; an Enum needs string values (and at least one)")
            return EnumCodec(tp)
        if isinstance(tp, type) and dataclasses.is_dataclass(tp):
            return self._record(tp, place)
        raise self.fail(place, tp, _why_unsupported(tp, origin))

    def _record(self, cls: Any, place: str) -> Codec:
        if cls in self._active:
            raise self.fail(place, cls, "is recursive; typed records must not contain themselves")
        if cls in self._records:
            return self._records[cls]
        try:
            hints = typing.get_type_hints(cls)
        except Exception as err:  # NameError for an unresolvable forward reference, and kin
            raise self.fail(place, cls, "has annotations that cannot be resolved (%s)" % err) from None
        self._active.append(cls)
        codec = RecordCodec(cls)
        for name, f in getattr(cls, "__dataclass_fields__", {}).items():
            # dataclasses.fields() hides InitVars, but the constructor still needs them.
            if f._field_type is dataclasses._FIELD_INITVAR:  # type: ignore[attr-defined]
                raise TypedToolError("%s%s.%s: InitVar fields are not supported" % (self.where, cls.__qualname__, name))
        for f in dataclasses.fields(cls):
            fplace = "%s.%s" % (cls.__qualname__, f.name)
            if not f.init:
                raise TypedToolError("%s%s: fields with init=False cannot be decoded" % (self.where, fplace))
            n = utf8_len(f.name)
            if n > MAX_SCHEMA_PROPERTY_NAME_BYTES:
                raise TypedToolError("%s%s: field name is %d bytes, over the %d-byte limit"
                                     % (self.where, fplace[:80], n, MAX_SCHEMA_PROPERTY_NAME_BYTES))
            if f.name not in hints:
                raise TypedToolError("%s%s: field is unannotated" % (self.where, fplace))
            fcodec = self.compile(hints[f.name], fplace)
            codec.fields.append(Field(f.name, fcodec, self._default(f, fcodec, fplace)))
        self._active.pop()
        self._records[cls] = codec
        return codec

    def _default(self, f: Any, codec: Codec, place: str) -> Any:
        """The default of `f`, evaluated and encoded now (PY-16), or _MISSING."""
        if f.default is not _MISSING:
            value = f.default
        elif f.default_factory is not _MISSING:
            try:
                value = f.default_factory()
            except Exception as err:
                raise TypedToolError("%s%s: default_factory raised %r" % (self.where, place, err)) from None
        else:
            return _MISSING
        p = Problems()
        encoded = codec.encode(value, place + " (default)", p)
        if p:
            raise TypedToolError("%sinvalid default: %s" % (self.where, "; ".join(p.lines())))
        return encoded


def _why_unsupported(tp: Any, origin: Any) -> str:
    if tp is dict or origin is dict or origin is collections.abc.Mapping or origin is collections.abc.MutableMapping:
        return "is not supported; maps are not typed values (use a dataclass)"
    if tp is tuple or origin is tuple:
        return "is not supported; tuples are not typed values (use list[T] or a dataclass)"
    if tp is list:
        return "needs an item type: write list[T]"
    if tp is typing.Any or tp is object:
        return "is not supported; Any would be an unchecked value"
    if tp is type(None):
        return "is not supported on its own; write Optional[T]"
    if isinstance(tp, str) or isinstance(tp, typing.ForwardRef):
        return "is an unresolved forward reference"
    if isinstance(tp, type) and issubclass(tp, (str, int, float)):
        return "is not supported; subclasses of str, int and float are not typed values"
    return (
        "is not a supported typed value "
        "(str, bool, int, float, list[T], dataclass, Optional[T], string Enum, string Literal)"
    )
