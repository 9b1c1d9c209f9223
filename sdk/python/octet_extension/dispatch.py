"""Routing of one host content request to the author's handler, mirroring
sdk/typescript/src/dispatch.ts: params checked (-32602 naming the problem), unknown names
refused, the handler's value turned into the wire result of its method, and what it raises mapped
to the wire (tool errors become error results; other methods answer a JSON-RPC error).
Concurrency, the request scope and the handler's thread are the caller's (extension.py): it
passes `invoke(handler, args)`, which runs the handler and returns its value.
"""
import base64
from typing import Any, Awaitable, Callable, Dict, List, Optional

from .errors import ErrorCode, WireError, author_error
from .results import (to_command_result, to_context, to_hook_result, to_render_result, to_status_result,
                      to_tool_result)
from .diagnostics import normalize_result
from .menu_rules import check_menu

__all__ = ["route", "HOOK_NAMES", "HOOKS_04", "cache_warming_decision"]

HOOK_NAMES = ("before_prompt", "after_response", "before_tool_call", "after_tool_call")
#: API 0.4 hooks with their own result shape, each behind its negotiated feature.
HOOKS_04 = ("compaction_strategy", "cache_warming_decision")
CACHE_WARMING_ACTIONS = ("warm", "stop")
#: PY-45 GAP default: at most 16 frames per compaction_strategy result.
MAX_COMPACTION_FRAMES = 16
_PNG = b"\x89PNG\r\n\x1a\n"
UI_SURFACES = ("status", "header", "footer")


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
        raise _bad(f"{key} must be a{' non-blank' if non_blank else ''} string, got {type(v).__name__ if key in p else 'nothing'}")
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


async def route(method: str, params: Any, registry: Any, api: str, cancelled: Callable[[], bool],
                invoke: Callable[[Any, tuple, Dict[str, Any]], Awaitable[Any]]) -> Any:
    """`invoke(entry, args, context)` runs an author handler entry with its arguments (plus ctx,
    built from `context`, when the handler takes it)."""
    if method == "tool/call":
        p = _params(params)
        name = _string(p, "name", True)
        arguments = _object(p, "arguments")
        revision = p.get("catalog_revision")
        if revision is not None and (not isinstance(revision, int) or isinstance(revision, bool) or revision < 0):
            raise _bad(f"catalog_revision must be an integer >= 0, got {revision!r}")
        context = _context(p)
        tools = registry.tools_at(revision)
        entry = tools.get(name)
        if entry is None:
            raise WireError(ErrorCode.INVALID_PARAMS, f'unknown tool "{name}"')
        try:
            # Reserved diagnostics metadata is checked and projected on every result (PY-24, DIAG-03).
            return to_tool_result(normalize_result(await invoke(entry, (arguments,), context)), api)
        except Exception as err:
            if isinstance(err, WireError) or cancelled():
                raise author_error(err)
            return to_tool_result({"content": f"Error: {err}", "is_error": True}, api)
    if method == "command/execute":
        p = _params(params)
        name = _string(p, "name", True)
        arguments = p.get("arguments")
        if not isinstance(arguments, list) or not all(isinstance(a, str) for a in arguments):
            raise _bad("arguments must be an array of strings")
        context = _context(p)
        entry = registry.commands.get(name)
        if entry is None:
            raise WireError(ErrorCode.INVALID_PARAMS, f'unknown command "{name}"')
        return to_command_result(await _author(invoke(entry, (arguments,), context)))
    if method == "hook/run":
        p = _params(params)
        hook = p.get("hook")
        if hook not in HOOK_NAMES and not (api == "0.4" and hook in HOOKS_04):
            raise _bad(f"hook must be one of {', '.join(HOOK_NAMES)}, got {hook!r}")
        payload = _object(p, "payload")
        if hook in HOOK_NAMES:
            _check_payload(hook, payload)
        context = _context(p)
        entry = registry.hooks.get(hook)
        if entry is None:
            raise WireError(ErrorCode.INVALID_PARAMS, f'no handler for hook "{hook}"')
        value = await _author(invoke(entry, (payload,), context))
        if hook == "cache_warming_decision":
            return _cache_warming_result(value)
        if hook == "compaction_strategy":
            return _compaction_result(value)
        return to_hook_result(value)
    if method == "context/collect":
        p = _params(params)
        prompt = p.get("prompt")
        if prompt is not None and not isinstance(prompt, str):
            raise _bad("prompt must be a string or null")
        context = _context(p)
        entry = registry.context_handler
        if entry is None:
            return []
        value = await _author(invoke(entry, (prompt,), context))
        return [to_context(c) for c in value or []]
    if method == "status/collect":
        p = _params(params)
        surface = p.get("surface")
        if surface not in UI_SURFACES:
            raise _bad(f"surface must be one of {', '.join(UI_SURFACES)}, got {surface!r}")
        context = _context(p)
        entry = registry.status_handler
        if entry is None:
            return None
        return to_status_result(await _author(invoke(entry, (surface,), context)), surface)
    if method == "tool/render":
        p = _params(params)
        name = _string(p, "name", True)
        arguments = _object(p, "arguments")
        output = _string(p, "output")
        is_error = p.get("is_error")
        if not isinstance(is_error, bool):
            raise _bad("is_error must be a boolean")
        context = _context(p)
        entry = registry.renderers.get(name)
        if entry is None:
            raise WireError(ErrorCode.INVALID_PARAMS, f'no renderer for tool "{name}"')
        rendered = {"name": name, "arguments": arguments, "output": output, "is_error": is_error}
        return to_render_result(await _author(invoke(entry, (rendered,), context)))
    if method == "menu/collect":
        entry = registry.menu_handler
        if api == "0.1" or entry is None:
            raise WireError(ErrorCode.METHOD_NOT_FOUND, "method not found: menu/collect (this extension registers no menu: @ext.menu)")
        context = _context(_params(params))
        value = await _author(invoke(entry, (), context))
        if not isinstance(value, dict):
            raise WireError(ErrorCode.INTERNAL_ERROR, f"invalid menu {str(value)[:64]}; expected a dict with title (str) and items (list)")
        # The host's rules, checked here as the TS SDK does, so the author reads the rule broken.
        return check_menu(value, registry.commands)
    raise WireError(ErrorCode.METHOD_NOT_FOUND, f"method not found: {method}")


def _check_payload(hook: str, payload: Dict[str, Any]) -> None:
    """The payload shape of the four legacy hooks (HOOK-01..04)."""
    def text(key: str) -> None:
        if not isinstance(payload.get(key), str):
            raise _bad(f"payload.{key} must be a string, got {type(payload.get(key)).__name__ if key in payload else 'nothing'}")
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
    raise WireError(ErrorCode.INTERNAL_ERROR, f"invalid cache_warming_decision result {str(value)[:64]}; expected \"warm\", \"stop\" or None")


def _compaction_result(value: Any) -> Dict[str, Any]:
    """PY-43/PY-45: {"compaction_frames": [base64 PNG, ...]}, at most 16 frames, each a PNG."""
    frames = value.get("compaction_frames") if isinstance(value, dict) and set(value) == {"compaction_frames"} else None
    if not isinstance(frames, list):
        raise WireError(ErrorCode.INTERNAL_ERROR, 'a compaction_strategy hook must return {"compaction_frames": [<base64 PNG>, ...]}')
    if len(frames) > MAX_COMPACTION_FRAMES:
        raise WireError(ErrorCode.INTERNAL_ERROR, f"compaction_strategy returned {len(frames)} frames, over the limit of {MAX_COMPACTION_FRAMES}")
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
