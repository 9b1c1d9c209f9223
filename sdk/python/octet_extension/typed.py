"""Typed tools: `@ext.typed_tool` and TypedResult (PY-11..PY-22).

A typed tool is a synchronous handler that takes one annotated dataclass (optionally plus the
ambient context) and returns an annotated value. At registration this module derives both JSON
Schemas and the codecs from the annotations (_typed_codec.py), checks them against the bounds,
and registers an ordinary tool through `ext._register_tool(definition, handler)`; everything the
runtime already does for tools (dispatch, the worker thread of a `def` handler, concurrency,
cancellation, progress, catalog epochs) applies unchanged, and no asynchronous runtime is
introduced (PY-21).

At call time arguments are bounded, checked and decoded before the handler runs; a mismatch is a
JSON-RPC -32602 (TypedInputError). The returned value is encoded and checked before anything is
published: success goes out as structured_content with the explicit summary as text (PY-12), and
an invalid result becomes a tool error with diagnostics, never a success (PY-20).
"""
import inspect
import typing
from typing import Any, Callable, Dict, Generic, List, Optional, Sequence, TypeVar

from ._json_bounds import Limits, Problems, Violation, compact_json, measure, plain_text_problem, utf8_len
from ._typed_bounds import (MAX_DESCRIPTION_BYTES, MAX_DIAGNOSTIC_MESSAGE_BYTES, MAX_SCHEMA_DEPTH,
                            MAX_SUMMARY_BYTES, MAX_TOOL_NAME_BYTES, MAX_TYPED_SCHEMA_BYTES,
                            MAX_TYPED_STRING_BYTES, MAX_TYPED_VALUE_BYTES, MAX_VALUE_DEPTH,
                            MAX_VALUE_NODES)
from ._typed_codec import INVALID, Codec, Compiler, OptionalCodec, RecordCodec, TypedToolError, type_name
from .diagnostics import Diagnostic, DiagnosticsError, diagnostics_to_wire, tool_result
from .errors import WireError

__all__ = ["TypedResult", "TypedToolError", "TypedInputError", "TypedTool", "typed_tool"]

T = TypeVar("T")

VALUE_LIMITS = Limits(MAX_TYPED_VALUE_BYTES, MAX_VALUE_DEPTH, MAX_VALUE_NODES, max_string_bytes=MAX_TYPED_STRING_BYTES)
INVALID_PARAMS = -32602
_TOOL_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_MAX_PROBLEM_CHARS = 512


class TypedResult(Generic[T]):
    """What a handler annotated `-> TypedResult[T]` returns: a value (None allowed for an error),
    the model-facing summary, and optionally is_error and diagnostics (PY-22)."""

    __slots__ = ("value", "summary", "is_error", "diagnostics")

    def __init__(self, value: Optional[T], summary: str, *, is_error: bool = False,
                 diagnostics: Sequence[Diagnostic] = ()):
        self.value = value
        self.summary = summary
        self.is_error = is_error
        self.diagnostics = tuple(diagnostics)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, TypedResult) and all(getattr(self, k) == getattr(other, k) for k in self.__slots__)

    def __repr__(self) -> str:
        return "TypedResult(%r, %r, is_error=%r, diagnostics=%r)" % (
            self.value,
            self.summary,
            self.is_error,
            self.diagnostics,
        )


class TypedInputError(WireError):
    """Arguments that do not match a typed tool's input: answered -32602 before the handler runs.

    A WireError, so the runtime sends it as the JSON-RPC error {code, message, data} it is.
    """

    def __init__(self, tool: str, problems: List[str]):
        super().__init__(
            INVALID_PARAMS,
            "invalid arguments for tool %r: %s" % (tool, "; ".join(problems[:4])),
            {"problems": problems},
        )

    def to_wire(self) -> Dict[str, Any]:
        return self.to_json()


def _cut(line: str, limit: int = _MAX_PROBLEM_CHARS) -> str:
    return line if len(line) <= limit else line[:limit] + "..."


def _schema_depth(node: Any, level: int = 1) -> int:
    """Schema levels as validate-schema.ts counts them: the root is 1, each subschema one more."""
    deepest = level
    subs: List[Any] = list((node.get("properties") or {}).values()) + list(node.get("anyOf") or [])
    if isinstance(node.get("items"), dict):
        subs.append(node["items"])
    for sub in subs:
        deepest = max(deepest, _schema_depth(sub, level + 1))
    return deepest


def _check_schema(where: str, schema: Dict[str, Any]) -> None:
    """PY-18 and TDEF-05: at most 64 KiB as compact JSON and 32 schema levels."""
    depth = _schema_depth(schema)
    if depth > MAX_SCHEMA_DEPTH:
        raise TypedToolError(
            "%s: schema nesting of %d levels, over the %d-level limit" % (where, depth, MAX_SCHEMA_DEPTH)
        )
    size = utf8_len(compact_json(schema))
    if size > MAX_TYPED_SCHEMA_BYTES:
        raise TypedToolError("%s: schema of %d bytes, over the %d-byte limit" % (where, size, MAX_TYPED_SCHEMA_BYTES))


def _sanitized(s: str) -> str:
    """Problem text as plain text: controls become '?' so a diagnostic can always carry it."""
    return "".join("?" if plain_text_problem(ch) else ch for ch in s) or "?"


class TypedTool:
    """One registered typed tool: its definition, its codecs, and the call path."""

    def __init__(self, fn: Callable[..., Any], *, name: Optional[str] = None, description: Optional[str] = None,
                 summary: Optional[Callable[[Any], str]] = None):
        self.fn = fn
        self.name = name if name is not None else getattr(fn, "__name__", "")
        where = "typed tool %r" % self.name
        self._check_name_and_description(where, description)
        if inspect.iscoroutinefunction(fn) or inspect.isasyncgenfunction(fn) or inspect.isgeneratorfunction(fn):
            raise TypedToolError(
                "%s: the handler must be a plain synchronous function (async handlers and generators are not supported)"
                % where
            )
        param, self.takes_context = self._signature(where)
        try:
            hints = typing.get_type_hints(fn)
        except Exception as err:
            raise TypedToolError("%s: annotations cannot be resolved (%s)" % (where, err)) from None
        if param not in hints:
            raise TypedToolError("%s, parameter %r: unannotated; annotate it with a dataclass" % (where, param))
        compiler = Compiler("%s, parameter %r: " % (where, param))
        self.input: Codec = compiler.compile(hints[param])
        if not isinstance(self.input, RecordCodec):
            raise TypedToolError("%s, parameter %r: %s is not a dataclass; the arguments are one record"
                                 % (where, param, type_name(hints[param])))
        if "return" not in hints:
            raise TypedToolError("%s: the return value is unannotated" % where)
        ret = hints["return"]
        self.returns_typed_result = typing.get_origin(ret) is TypedResult or ret is TypedResult
        if self.returns_typed_result:
            args = typing.get_args(ret)
            if not args:
                raise TypedToolError("%s, return: write TypedResult[T] with the value type" % where)
            ret = args[0]
            if summary is not None:
                raise TypedToolError(
                    "%s: a handler returning TypedResult[T] gives its own summary; omit summary=" % where
                )
        elif summary is None or not callable(summary):
            raise TypedToolError(
                "%s: summary= must be a callable that returns the model-facing text for a value" % where
            )
        self.summary = summary
        compiler.where = "%s, return: " % where
        self.output: Codec = compiler.compile(ret)
        if isinstance(self.output, OptionalCodec):
            # structured_content is required when an output_schema is declared; null is no value.
            raise TypedToolError(
                "%s, return: %s may be None, but a result value cannot be null" % (where, type_name(ret))
            )
        parameters = self.input.schema(output=False)
        output_schema = self.output.schema(output=True)
        _check_schema(where + " parameters", parameters)
        _check_schema(where + " output_schema", output_schema)
        self.definition: Dict[str, Any] = {"name": self.name, "description": self.description,
                                           "parameters": parameters, "output_schema": output_schema}

    def _check_name_and_description(self, where: str, description: Optional[str]) -> None:
        name = self.name
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_TOOL_NAME_BYTES or not set(name) <= _TOOL_NAME_CHARS:
            raise TypedToolError("%s: the name must match ^[A-Za-z0-9_-]{1,%d}$" % (where, MAX_TOOL_NAME_BYTES))
        if description is None:
            description = inspect.getdoc(self.fn)
        if not isinstance(description, str) or description.strip() == "":
            raise TypedToolError("%s: a non-empty description= (or a docstring) is required" % where)
        if utf8_len(description) > MAX_DESCRIPTION_BYTES:
            raise TypedToolError("%s: description over the %d-byte limit" % (where, MAX_DESCRIPTION_BYTES))
        self.description = description

    def _signature(self, where: str) -> Any:
        try:
            params = list(inspect.signature(self.fn).parameters.values())
        except (TypeError, ValueError) as err:
            raise TypedToolError("%s: cannot read the handler signature (%s)" % (where, err)) from None
        kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        if not 1 <= len(params) <= 2 or any(p.kind not in kinds for p in params):
            raise TypedToolError(
                "%s: the handler takes one dataclass argument, optionally followed by the context" % where
            )
        return params[0].name, len(params) == 2

    # --- call path --------------------------------------------------------------------------------

    def decode(self, arguments: Any) -> Any:
        """Bounded, checked and decoded arguments, or TypedInputError (before the handler runs)."""
        bounded = measure(arguments, VALUE_LIMITS, "arguments")
        if isinstance(bounded, Violation):
            raise TypedInputError(self.name, [_cut("%s: %s" % (bounded.path, bounded.message))])
        p = Problems()
        value = self.input.decode(arguments, "arguments", p)
        if p or value is INVALID:
            raise TypedInputError(self.name, [_cut(line) for line in p.lines()])
        return value

    def call(self, arguments: Any, ctx: Any = None) -> Dict[str, Any]:
        """Decode, run the handler synchronously, publish. What the handler raises propagates."""
        value = self.decode(arguments)
        returned = self.fn(value, ctx) if self.takes_context else self.fn(value)
        return self.publish(returned)

    def handler(self, arguments: Any, ctx: Any) -> Dict[str, Any]:
        """The handler given to ext._register_tool. A plain function on purpose: the runtime runs
        it on a worker thread exactly like an @ext.tool `def` handler, so the author's synchronous
        code never blocks the event loop ($/cancelRequest still arrives and is observable) and
        every helper it calls (ctx.confirm, ext.input, ...) blocks and returns its value. As an
        `async def` it ran on the loop, where those helpers return awaitables (issue 13.1)."""
        return self.call(arguments, ctx)

    def publish(self, returned: Any) -> Dict[str, Any]:
        """The wire result for what the handler returned; invalid output becomes a tool error."""
        if self.returns_typed_result:
            if not isinstance(returned, TypedResult):
                return self._invalid(
                    "octet.typed.invalid_result", ["expected a TypedResult, got %s" % type(returned).__name__]
                )
            value, summary, is_error, diagnostics = (
                returned.value,
                returned.summary,
                returned.is_error,
                returned.diagnostics,
            )
            if not isinstance(is_error, bool):
                return self._invalid(
                    "octet.typed.invalid_result", ["is_error must be a bool, got %s" % type(is_error).__name__]
                )
        else:
            if isinstance(returned, TypedResult):
                return self._invalid(
                    "octet.typed.invalid_result",
                    ["got a TypedResult; annotate the handler -> TypedResult[T] to return one"],
                )
            value, summary, is_error, diagnostics = returned, None, False, ()
        structured: Dict[str, Any] = {}
        if value is not None or not is_error:  # an error may omit its value (PY-22)
            p = Problems()
            encoded = self.output.encode(value, "result", p)
            if p or encoded is INVALID:
                return self._invalid("octet.typed.invalid_output", p.lines())
            bounded = measure(encoded, VALUE_LIMITS, "result")
            if isinstance(bounded, Violation):
                return self._invalid("octet.typed.invalid_output", ["%s: %s" % (bounded.path, bounded.message)])
            structured["structured_content"] = encoded
        if not self.returns_typed_result:
            summary = self.summary(value)  # type: ignore[misc]  # author code: what it raises propagates
        why = self._summary_problem(summary)
        if why is not None:
            return self._invalid("octet.typed.invalid_summary", ["summary: " + why])
        try:
            return tool_result([{"type": "text", "text": summary}], is_error=is_error,
                               diagnostics=diagnostics_to_wire(diagnostics), **structured)
        except (DiagnosticsError, TypeError) as err:
            lines = err.problems if isinstance(err, DiagnosticsError) else [str(err)]
            return self._invalid("octet.typed.invalid_diagnostics", lines)

    @staticmethod
    def _summary_problem(summary: Any) -> Optional[str]:
        """PY-19: non-empty plain text of at most 4096 UTF-8 bytes."""
        if not isinstance(summary, str):
            return "expected a string, got %s" % type(summary).__name__
        if summary.strip() == "":
            return "must not be empty"
        n = utf8_len(summary)
        if n > MAX_SUMMARY_BYTES:
            return "%d bytes, over the %d-byte limit" % (n, MAX_SUMMARY_BYTES)
        return plain_text_problem(summary)

    def _invalid(self, code: str, lines: List[str]) -> Dict[str, Any]:
        """A tool error naming what was wrong; nothing of the invalid value (or of the author's
        diagnostics, which could carry new references, DIAG-05) is published."""
        limit = MAX_DIAGNOSTIC_MESSAGE_BYTES // 4  # characters, so at most 4 bytes each
        diagnostics = [
            {"severity": "error", "code": code, "message": _sanitized(_cut(line, limit))} for line in lines[:8]
        ]
        text = "Tool %r returned an invalid result; nothing was published." % self.name
        return tool_result([{"type": "text", "text": text}], is_error=True, diagnostics=diagnostics)


def typed_tool(ext: Any, fn: Optional[Callable[..., Any]] = None, *, name: Optional[str] = None,
               description: Optional[str] = None, summary: Optional[Callable[[Any], str]] = None) -> Any:
    """`@ext.typed_tool` and `@ext.typed_tool(name=..., description=..., summary=...)`.

    Registers through `ext._register_tool(definition, handler)` and returns the function
    unchanged (with its TypedTool as `__octet_typed_tool__`), so it stays callable in tests.
    Unsupported annotations raise TypedToolError here, at registration (PY-17).
    """
    def register(f: Callable[..., Any]) -> Callable[..., Any]:
        tool = TypedTool(f, name=name, description=description, summary=summary)
        ext._register_tool(tool.definition, tool.handler)
        try:
            f.__octet_typed_tool__ = tool  # type: ignore[attr-defined]
        except (AttributeError, TypeError):
            pass  # builtins and slotted callables cannot carry it; nothing depends on it
        return f

    return register(fn) if fn is not None else register
