"""Tool and command definitions as the wire carries them, checked at registration with the
host's rules (TDEF-01..14) so an author sees the mistake at the decorator, not as a refused
initialize later. The host's validator stays authoritative."""
import inspect
import re
from typing import Any, Callable, Dict, Optional, Sequence

from ._bounds import (MAX_DESCRIPTION_BYTES, MAX_PROMPT_GUIDELINES, MAX_PROMPT_METADATA_BYTES, MAX_SCHEMA_DEPTH)
from .framing import encode_frame

__all__ = ["TOOL_NAME", "tool_definition", "command_definition", "takes_context", "HandlerEntry"]

TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


def _bytes(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def _check_name(kind: str, name: Any) -> str:
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        raise ValueError(f"{kind} name {name!r} does not match ^[A-Za-z0-9_-]{{1,128}}$")
    return name


def _check_text(what: str, value: Any, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty str, got {value!r}")
    if _bytes(value) > limit:
        raise ValueError(f"{what} is {_bytes(value)} bytes, over the {limit}-byte limit")
    return value


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _check_schema(what: str, schema: Any) -> Dict[str, Any]:
    if not isinstance(schema, dict):
        raise TypeError(f"{what} must be a JSON Schema dict, got {type(schema).__name__}")
    if schema.get("type") != "object":
        raise ValueError(f'{what} must be an object schema (type "object"), got type {schema.get("type")!r}')
    if _depth(schema) > MAX_SCHEMA_DEPTH:
        raise ValueError(f"{what} nests {_depth(schema)} levels, over the limit of {MAX_SCHEMA_DEPTH}")
    encode_frame(schema)  # JSON-serializable and within the frame bound
    return schema


def tool_definition(api: str, name: Any, description: Any, parameters: Optional[Dict[str, Any]] = None,
                    output_schema: Optional[Dict[str, Any]] = None, prompt_snippet: Optional[str] = None,
                    prompt_guidelines: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    _check_name("tool", name)
    _check_text(f'tool "{name}" description', description, MAX_DESCRIPTION_BYTES)
    definition: Dict[str, Any] = {
        "name": name,
        "description": description,
        "parameters": _check_schema(
            f'tool "{name}" parameters', parameters if parameters is not None else {"type": "object", "properties": {}}
        ),
    }
    if output_schema is not None:
        if api == "0.1":
            raise ValueError(f'tool "{name}": output_schema needs API 0.2 or later')
        definition["output_schema"] = _check_schema(f'tool "{name}" output_schema', output_schema)
    if prompt_snippet is not None or prompt_guidelines is not None:
        if api != "0.4":
            raise ValueError(
                f'tool "{name}": prompt_snippet and prompt_guidelines need API 0.4 (this extension speaks API {api})'
            )
        if prompt_snippet is not None:
            definition["prompt_snippet"] = _check_text(
                f'tool "{name}" prompt_snippet', prompt_snippet, MAX_PROMPT_METADATA_BYTES
            )
        if prompt_guidelines is not None:
            if isinstance(prompt_guidelines, str) or len(list(prompt_guidelines)) > MAX_PROMPT_GUIDELINES:
                raise ValueError(
                    f'tool "{name}" prompt_guidelines must be a list of at most {MAX_PROMPT_GUIDELINES} strings'
                )
            definition["prompt_guidelines"] = [
                _check_text(f'tool "{name}" prompt guideline', g, MAX_PROMPT_METADATA_BYTES) for g in prompt_guidelines
            ]
    return definition


def command_definition(name: Any, description: Any, usage: Optional[str]) -> Dict[str, Any]:
    _check_name("command", name)
    _check_text(f'command "{name}" description', description, MAX_DESCRIPTION_BYTES)
    return {
        "name": name,
        "description": description,
        "usage": _check_text(f'command "{name}" usage', usage, MAX_DESCRIPTION_BYTES)
        if usage is not None
        else f"/{name}",
    }


def takes_context(fn: Callable[..., Any]) -> bool:
    """Whether a handler takes the ctx argument after its input: two positional parameters or
    *args. A handler written `def hello(args)` gets its input only."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)


class HandlerEntry:
    """A registered handler: its definition (tools, commands), the callable, and whether it
    takes ctx. `asynchronous` handlers run on the event loop; others on a worker thread, unless
    registered `inline` (a `def` handler that never blocks: it runs on the event loop itself,
    with no thread handoff)."""

    __slots__ = ("definition", "handler", "with_context", "asynchronous", "inline")

    def __init__(
        self, definition: Optional[Dict[str, Any]], handler: Callable[..., Any], with_context: Optional[bool] = None,
        inline: bool = False,
    ) -> None:
        if not callable(handler):
            raise TypeError(f"a handler must be callable, got {type(handler).__name__}")
        self.definition = definition
        self.handler = handler
        self.with_context = takes_context(handler) if with_context is None else with_context
        self.asynchronous = inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
            getattr(handler, "__call__", None)
        )
        if not isinstance(inline, bool):
            raise TypeError(f"inline must be True or False, got {inline!r}")
        if inline and self.asynchronous:
            raise ValueError(
                "inline=True is for a plain def handler; an async def handler already runs on the event loop"
            )
        self.inline = inline
