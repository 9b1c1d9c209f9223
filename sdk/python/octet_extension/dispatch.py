"""Routing of one host content request to the author's handler, mirroring
sdk/typescript/src/dispatch.ts: params checked (-32602 naming the problem), unknown names
refused, the handler's value turned into the wire result of its method, and what it raises mapped
to the wire (tool errors become error results; other methods answer a JSON-RPC error).
Concurrency, the request scope and the handler's thread are the caller's (extension.py): it
passes `invoke(handler, args)`, which runs the handler and returns its value.
"""
import base64
from typing import AbstractSet, Any, Awaitable, Callable, Dict, List, NamedTuple, Optional, Tuple

from ._methods import ADVISORY_HOOKS, COMPACTION_HOOKS, HOOK_NAMES, METHODS, TURN_HOOKS, MethodSpec
from .errors import ErrorCode, WireError, author_error
from .results import (to_command_result, to_context, to_hook_result, to_render_result, to_status_result,
                      to_tool_result)
from .diagnostics import normalize_result
from .scope import current_scope
from .session import mark_turn_hook
from .session_control import mark_compaction_hook
from .menu_rules import check_menu

__all__ = ["route", "legal_method", "tool_call_target", "tool_call_result", "tool_call_error", "HOOK_NAMES",
           "HOOKS_04", "cache_warming_decision"]

#: API 0.4 hooks with their own result shape, each behind its negotiated feature.
HOOKS_04 = ADVISORY_HOOKS + TURN_HOOKS + COMPACTION_HOOKS
CACHE_WARMING_ACTIONS = ("warm", "stop")
#: PY-45 GAP default: at most 16 frames per compaction_strategy result.
MAX_COMPACTION_FRAMES = 16
_PNG = b"\x89PNG\r\n\x1a\n"
UI_SURFACES = ("status", "header", "footer")


def legal_method(method: str, direction: str, api: str, features: AbstractSet[str]) -> Optional[MethodSpec]:
    """The declaration of `method` (_methods.py, generated from the protocol's method table) if
    it is legal here: sent in `direction` (or both ways), carried by `api`, and its feature, if
    any, negotiated. None otherwise: the caller answers or ignores it as an unknown method."""
    spec = METHODS.get(method)
    if spec is None or spec.direction not in (direction, "both") or api not in spec.api_versions:
        return None
    return spec if spec.feature is None or spec.feature in features else None


def cache_warming_decision(action: Optional[str]) -> Dict[str, Any]:
    """The typed wire result of a cache_warming_decision hook: "warm", "stop" or None (no
    opinion). Anything else fails closed (PY-49)."""
    if action is not None and action not in CACHE_WARMING_ACTIONS:
        raise ValueError(f'cache_warming_decision() action must be "warm", "stop" or None, got {action!r}')
    return {"cache_warming_decision": action}


def _bad(message: str) -> WireError:
    return WireError(ErrorCode.INVALID_PARAMS, f"invalid params: {message}")


def _params(params: Any) -> Dict[str, Any]:
    if not isinstance(params, dict):
        raise _bad("params must be an object")
    return params


def _string(p: Dict[str, Any], key: str, non_blank: bool = False) -> str:
    v = p.get(key)
    if not isinstance(v, str) or (non_blank and not v.strip()):
        raise _bad(
            f"{key} must be a{' non-blank' if non_blank else ''} string, got "
            f"{type(v).__name__ if key in p else 'nothing'}"
        )
    return v


def _object(p: Dict[str, Any], key: str) -> Dict[str, Any]:
    v = p.get(key)
    if not isinstance(v, dict):
        raise _bad(f"{key} must be an object, got {type(v).__name__ if key in p else 'nothing'}")
    return v


def _context(p: Dict[str, Any]) -> Dict[str, Any]:
    """The execution context (CALL-01, CALL-02): open, but workspace and host must be there."""
    c = _object(p, "context")
    if not isinstance(c.get("workspace"), str):
        raise _bad("context.workspace must be a string")
    if not isinstance(c.get("host"), dict):
        raise _bad("context.host must be an object")
    owner = c.get("resource_owner")
    if owner is not None and not (isinstance(owner, dict) and isinstance(owner.get("session_id"), str)
                                  and isinstance(owner.get("extension_instance_id"), str)
                                  and isinstance(owner.get("process_generation"), int)):
        raise _bad("context.resource_owner must be {session_id, extension_instance_id, process_generation}")
    return c


class _Routed(NamedTuple):
    registry: Any
    api: str
    cancelled: Callable[[], bool]
    invoke: Callable[[Any, tuple, Dict[str, Any]], Awaitable[Any]]


async def route(method: str, params: Any, registry: Any, api: str, cancelled: Callable[[], bool],
                invoke: Callable[[Any, tuple, Dict[str, Any]], Awaitable[Any]],
                features: AbstractSet[str] = frozenset()) -> Any:
    """Routes a host content request by the method table: a name with no handler here, or one
    not legal on this API version or behind a feature not in `features`, is an unknown method
    (-32601). `invoke(entry, args, context)` runs an author handler entry with its arguments
    (plus ctx, built from `context`, when the handler takes it)."""
    handler = _HANDLERS.get(method)
    if handler is None or legal_method(method, "host->child", api, features) is None:
        raise _unknown(method)
    return await handler(params, _Routed(registry, api, cancelled, invoke))


#: Said after "method not found" where the reason is the author's to fix.
_UNKNOWN_HINTS = {"menu/collect": "this extension registers no menu: @ext.menu"}


def _unknown(method: str) -> WireError:
    hint = _UNKNOWN_HINTS.get(method)
    return WireError(ErrorCode.METHOD_NOT_FOUND, f"method not found: {method}" + (f" ({hint})" if hint else ""))


def tool_call_target(params: Any, registry: Any) -> Tuple[Any, Dict[str, Any], Dict[str, Any]]:
    """A tool/call's params checked (-32602 naming the problem): (entry, arguments, context).
    The serving loop's direct path (request_runner.py) and route() both start here."""
    p = _params(params)
    name = _string(p, "name", True)
    arguments = _object(p, "arguments")
    revision = p.get("catalog_revision")
    if revision is not None and (not isinstance(revision, int) or isinstance(revision, bool) or revision < 0):
        raise _bad(f"catalog_revision must be an integer >= 0, got {revision!r}")
    context = _context(p)
    entry = registry.tools_at(revision).get(name)
    if entry is None:
        raise WireError(ErrorCode.INVALID_PARAMS, f'unknown tool "{name}"')
    return entry, arguments, context


def tool_call_result(value: Any, api: str) -> Dict[str, Any]:
    """A tool handler's value as the wire result. Reserved diagnostics metadata is checked and
    projected on every result (PY-24, DIAG-03). A value that cannot be a result raises: the
    caller passes that to tool_call_error like an exception of the handler."""
    if type(value) is str:  # the common case, with no metadata to check (and no ABC check)
        return to_tool_result(value, api)
    return to_tool_result(normalize_result(value), api)


def tool_call_error(err: Exception, api: str, cancelled: bool) -> Dict[str, Any]:
    """What a tool handler raised: an error result, or (a WireError, or any error once the
    request was cancelled) raised again for the JSON-RPC error answer."""
    if isinstance(err, WireError) or cancelled:
        raise author_error(err)
    return to_tool_result({"content": f"Error: {err}", "is_error": True}, api)


async def _tool_call(params: Any, r: _Routed) -> Any:
    entry, arguments, context = tool_call_target(params, r.registry)
    try:
        return tool_call_result(await r.invoke(entry, (arguments,), context), r.api)
    except Exception as err:
        return tool_call_error(err, r.api, r.cancelled())


async def _command_execute(params: Any, r: _Routed) -> Any:
    p = _params(params)
    name = _string(p, "name", True)
    arguments = p.get("arguments")
    if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
        raise _bad("arguments must be an array of strings")
    context = _context(p)
    entry = r.registry.commands.get(name)
    if entry is None:
        raise WireError(ErrorCode.INVALID_PARAMS, f'unknown command "{name}"')
    return to_command_result(await _author(r.invoke(entry, (arguments,), context)))


async def _hook_run(params: Any, r: _Routed) -> Any:
    p = _params(params)
    hook = p.get("hook")
    if hook not in HOOK_NAMES and not (r.api == "0.4" and hook in HOOKS_04):
        raise _bad(f"hook must be one of {', '.join(HOOK_NAMES)}, got {hook!r}")
    payload = _object(p, "payload")
    if hook in HOOK_NAMES:
        _check_payload(hook, payload)
    context = _context(p)
    entry = r.registry.hooks.get(hook)
    if entry is None:
        raise WireError(ErrorCode.INVALID_PARAMS, f'no handler for hook "{hook}"')
    if hook in TURN_HOOKS or hook in COMPACTION_HOOKS:
        if payload.get("kind") != hook:
            raise _bad(f"payload.kind must be {hook!r}, got {payload.get('kind')!r}")
        # While it runs, this request parents ctx.session's requests (the private append lane, TURN-08).
        # session_before_compact / session_compact (WAVE1-40) too, and cannot start a compaction.
        scope = current_scope()
        if scope is not None:
            mark_turn_hook(scope)
            if hook in COMPACTION_HOOKS:
                mark_compaction_hook(scope)
        return to_turn_hook_result(await _author(r.invoke(entry, (payload,), context)))
    if hook == "compaction_strategy":
        # A compaction cannot start a compaction: session_control refuses it from this scope (SCOMP-07).
        scope = current_scope()
        if scope is not None:
            mark_compaction_hook(scope)
    value = await _author(r.invoke(entry, (payload,), context))
    if hook == "cache_warming_decision":
        return _cache_warming_result(value)
    if hook == "compaction_strategy":
        return _compaction_result(value)
    return to_hook_result(value)


async def _context_collect(params: Any, r: _Routed) -> Any:
    p = _params(params)
    prompt = p.get("prompt")
    if prompt is not None and not isinstance(prompt, str):
        raise _bad("prompt must be a string or null")
    context = _context(p)
    entry = r.registry.context_handler
    if entry is None:
        return []
    value = await _author(r.invoke(entry, (prompt,), context))
    return [to_context(c) for c in value or []]


async def _status_collect(params: Any, r: _Routed) -> Any:
    p = _params(params)
    surface = p.get("surface")
    if surface not in UI_SURFACES:
        raise _bad(f"surface must be one of {', '.join(UI_SURFACES)}, got {surface!r}")
    context = _context(p)
    entry = r.registry.status_handler
    if entry is None:
        return None
    return to_status_result(await _author(r.invoke(entry, (surface,), context)), surface)


async def _tool_render(params: Any, r: _Routed) -> Any:
    p = _params(params)
    name = _string(p, "name", True)
    arguments = _object(p, "arguments")
    output = _string(p, "output")
    is_error = p.get("is_error")
    if not isinstance(is_error, bool):
        raise _bad("is_error must be a boolean")
    context = _context(p)
    entry = r.registry.renderers.get(name)
    if entry is None:
        raise WireError(ErrorCode.INVALID_PARAMS, f'no renderer for tool "{name}"')
    rendered = {"name": name, "arguments": arguments, "output": output, "is_error": is_error}
    return to_render_result(await _author(r.invoke(entry, (rendered,), context)))


async def _menu_collect(params: Any, r: _Routed) -> Any:
    entry = r.registry.menu_handler
    if entry is None:
        raise _unknown("menu/collect")
    context = _context(_params(params))
    value = await _author(r.invoke(entry, (), context))
    if not isinstance(value, dict):
        raise WireError(ErrorCode.INTERNAL_ERROR,
                        f"invalid menu {str(value)[:64]}; expected a dict with title (str) and items (list)")
    # The host's rules, checked here as the TS SDK does, so the author reads the rule broken.
    return check_menu(value, r.registry.commands)


#: The host content requests an extension answers, by method name.
_HANDLERS: Dict[str, Callable[[Any, _Routed], Awaitable[Any]]] = {
    "tool/call": _tool_call,
    "command/execute": _command_execute,
    "hook/run": _hook_run,
    "context/collect": _context_collect,
    "status/collect": _status_collect,
    "tool/render": _tool_render,
    "menu/collect": _menu_collect,
}
for _method in _HANDLERS:
    _spec = METHODS.get(_method)
    if _spec is None or _spec.direction != "host->child" or _spec.kind != "request":
        raise RuntimeError(f"dispatch: {_method} is not a declared host request")


def to_turn_hook_result(value: Any) -> Dict[str, Any]:
    """The ordinary envelope, plus session_operation when the handler returned one (the host
    accepts {"action": "continue"} alone, W 1.4b TURN-10/11)."""
    result = to_hook_result(value)
    if isinstance(value, dict) and value.get("session_operation") is not None:
        result["session_operation"] = value["session_operation"]
    return result


def _check_payload(hook: str, payload: Dict[str, Any]) -> None:
    """The payload shape of the four legacy hooks (HOOK-01..04)."""
    def text(key: str) -> None:
        if not isinstance(payload.get(key), str):
            raise _bad(
                f"payload.{key} must be a string, got "
                f"{type(payload.get(key)).__name__ if key in payload else 'nothing'}"
            )

    if hook == "before_prompt":
        text("prompt")
    elif hook == "after_response":
        text("response")
    else:
        text("name")
        if not isinstance(payload.get("arguments"), dict):
            raise _bad("payload.arguments must be an object")
        if hook == "after_tool_call":
            text("output")
            if not isinstance(payload.get("is_error"), bool):
                raise _bad("payload.is_error must be a boolean")


async def _author(awaitable: Awaitable[Any]) -> Any:
    try:
        return await awaitable
    except Exception as err:
        raise author_error(err)


def _cache_warming_result(value: Any) -> Dict[str, Any]:
    """PY-49: "warm"/"stop", the helper's dict, or no opinion (None, {}, a null action);
    anything else fails closed."""
    if value is None or value == {}:
        return {"cache_warming_decision": None}
    if isinstance(value, str):
        return cache_warming_decision(value)
    if isinstance(value, dict) and set(value) == {"cache_warming_decision"}:
        return cache_warming_decision(value["cache_warming_decision"])
    raise WireError(
        ErrorCode.INTERNAL_ERROR,
        f'invalid cache_warming_decision result {str(value)[:64]}; expected "warm", "stop" or None',
    )


def _compaction_result(value: Any) -> Dict[str, Any]:
    """PY-43/PY-45: {"compaction_frames": [base64 PNG, ...]}, at most 16 frames, each a PNG."""
    frames = value.get("compaction_frames") if isinstance(value, dict) and set(value) == {"compaction_frames"} else None
    if not isinstance(frames, list):
        raise WireError(
            ErrorCode.INTERNAL_ERROR,
            'a compaction_strategy hook must return {"compaction_frames": [<base64 PNG>, ...]}',
        )
    if len(frames) > MAX_COMPACTION_FRAMES:
        raise WireError(
            ErrorCode.INTERNAL_ERROR,
            f"compaction_strategy returned {len(frames)} frames, over the limit of {MAX_COMPACTION_FRAMES}",
        )
    for i, frame in enumerate(frames):
        try:
            ok = isinstance(frame, str) and base64.b64decode(frame, validate=True).startswith(_PNG)
        except ValueError:
            ok = False
        if not ok:
            raise WireError(ErrorCode.INTERNAL_ERROR, f"compaction_frames[{i}] is not a base64 PNG")
    return {"compaction_frames": frames}


def tool_entries(tools: Dict[str, Any]) -> List[Dict[str, Any]]:
    return [t.definition for t in tools.values()]
