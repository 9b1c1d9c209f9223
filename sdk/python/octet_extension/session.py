"""``ctx.session`` and ``ext.session`` (W 2.21, feature session_entries), mirroring
sdk/typescript/src/session.ts: an extension's own entries in the agent's session, its name and
entry labels. Each call is parented to the running request: a tool/call or command/execute, or a
model_turn_start / model_turn_end hook while it runs (the private append lane, W 1.4b TURN-08).
The host answers only once the entry is durable, with its real id.

Everything is checked here before anything is written (WAVE1-29/30): entry_type 128 bytes, data
64 KiB of plain JSON nested at most 32 deep, entry id 256 bytes, name and label 4 KiB. A refusal
begins with bounds_exceeded (ValueError) or invalid_request (TypeError).
"""
import json
import weakref
from typing import Any, Callable, Dict, Optional

from ._bounds import (
    MAX_SESSION_ENTRY_DATA_BYTES,
    MAX_SESSION_ENTRY_ID_BYTES,
    MAX_SESSION_ENTRY_TYPE_BYTES,
    MAX_SESSION_NAME_BYTES,
    MAX_VALUE_DEPTH,
)
from .peer import Link
from .reverse import PARENT_METHODS, send
from .scope import RequestScope

__all__ = ["Session", "mark_turn_hook"]

#: Requests that run a model-turn hook: they parent session requests while they are active.
_TURN_HOOK_SCOPES: "weakref.WeakSet[RequestScope]" = weakref.WeakSet()


def mark_turn_hook(scope: RequestScope) -> None:
    _TURN_HOOK_SCOPES.add(scope)


class Session:
    """session/append_entry, session/set_name and session/set_label for the running request."""

    def __init__(self, link: Callable[[], Optional[Link]], scope: Callable[[], Optional[RequestScope]]) -> None:
        self._link, self._scope = link, scope

    @property
    def available(self) -> bool:
        link = self._link()
        return link is not None and "session_entries" in link.features

    def append_entry(self, entry_type: str, data: Any) -> Any:
        """Appends a custom entry (never sent to the model); returns its durable entry id."""
        _text("append_entry", "entry_type", entry_type, MAX_SESSION_ENTRY_TYPE_BYTES, non_empty=True)
        _plain_json("append_entry", data)
        return self._call("append_entry", "session/append_entry", {"entry_type": entry_type, "data": data}, True)

    def set_name(self, name: str) -> Any:
        """Names the session; "" clears the name."""
        _text("set_name", "name", name, MAX_SESSION_NAME_BYTES)
        return self._call("set_name", "session/set_name", {"name": name}, False)

    def set_label(self, entry_id: str, label: str) -> Any:
        """Labels an entry of the session; "" clears the label."""
        _text("set_label", "entry_id", entry_id, MAX_SESSION_ENTRY_ID_BYTES, non_empty=True)
        _text("set_label", "label", label, MAX_SESSION_NAME_BYTES)
        return self._call("set_label", "session/set_label", {"entry_id": entry_id, "label": label}, False)

    def send_message(self, role: str, text: str) -> Any:
        """An assistant or system message in the session's context (message_injection, W 2.22)."""
        from .message_injection import send_message
        return send_message(self._link(), self._scope(), role, text)

    def send_user_message(self, text: str) -> Any:
        """A user message: a run now when the agent is idle, else queued behind it (W 2.22)."""
        from .message_injection import send_user_message
        return send_user_message(self._link(), self._scope(), text)

    def _call(self, what: str, method: str, params: Dict[str, Any], want_id: bool) -> Any:
        link = self._link()
        if link is None:
            raise RuntimeError(f"session.{what}() is available only after the host initialized the extension")
        if "session_entries" not in link.features:
            raise RuntimeError(
                f"session.{what}() needs the session_entries feature, which the host did not offer (it binds no "
                "session writer: no agent session)"
            )
        scope = self._scope()
        if scope is None:
            raise RuntimeError(f"session.{what}() must be called from a request handler (no request is running here)")
        wire = {"parent_request_id": _parent_of(scope, what), **params}

        async def run() -> Any:
            answer = await send(scope, link, method, wire)
            if not want_id:
                return None
            entry_id = answer.get("entry_id") if isinstance(answer, dict) else None
            if not isinstance(answer, dict) or set(answer) != {"entry_id"} or not isinstance(entry_id, str) \
                    or not entry_id:
                raise RuntimeError("the host's session/append_entry answer is invalid: expected {entry_id}")
            return entry_id
        return link.call(run)


def _parent_of(scope: RequestScope, what: str) -> int:
    if scope.method not in PARENT_METHODS and scope not in _TURN_HOOK_SCOPES:
        raise RuntimeError(
            f"session.{what}() is available in a tool/call or command/execute handler, or a model_turn_start / "
            f"model_turn_end hook, not in {scope.method}"
        )
    if not scope.active:
        raise RuntimeError(
            f"session.{what}() was called after request {scope.id} was answered; it needs an active parent"
        )
    if not isinstance(scope.id, int) or isinstance(scope.id, bool):
        raise RuntimeError(f"session.{what}() needs a numeric parent request id, and the host sent {scope.id!r}")
    return scope.id


def _text(what: str, field: str, value: Any, limit: int, non_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise TypeError(f"invalid_request session.{what}(): {field}: expected a str, got {type(value).__name__}")
    if non_empty and not value.strip():
        raise TypeError(f"invalid_request session.{what}(): {field}: must not be empty")
    n = len(value.encode("utf-8", "surrogatepass"))
    if n > limit:
        raise ValueError(f"bounds_exceeded session.{what}(): {field}: {n} bytes, over the {limit}-byte limit")
    if any(ord(c) < 0x20 and c not in "\n\t" or 0x7F <= ord(c) <= 0x9F for c in value):
        raise TypeError(f"invalid_request session.{what}(): {field}: contains a control character")


def _plain_json(what: str, data: Any) -> None:
    """Plain JSON only (dict with str keys, list, str, int, finite float, bool, None), nested at
    most MAX_VALUE_DEPTH deep and at most 64 KiB as compact JSON."""
    def depth_of(v: Any, level: int) -> int:
        if isinstance(v, dict):
            if level + 1 > MAX_VALUE_DEPTH:
                raise ValueError(
                    f"bounds_exceeded session.{what}(): data: {level + 1} levels of nesting, over the "
                    f"{MAX_VALUE_DEPTH}-level limit"
                )
            for k, x in v.items():
                if not isinstance(k, str):
                    raise TypeError(f"invalid_request session.{what}(): data: key {k!r} is not a str")
                depth_of(x, level + 1)
        elif isinstance(v, list):
            if level + 1 > MAX_VALUE_DEPTH:
                raise ValueError(
                    f"bounds_exceeded session.{what}(): data: {level + 1} levels of nesting, over the "
                    f"{MAX_VALUE_DEPTH}-level limit"
                )
            for x in v:
                depth_of(x, level + 1)
        elif not (v is None or isinstance(v, (str, int, float, bool))):
            raise TypeError(f"invalid_request session.{what}(): data: {type(v).__name__} is not a JSON value")
        return level
    depth_of(data, 0)
    try:
        text = json.dumps(data, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except ValueError as err:
        raise TypeError(f"invalid_request session.{what}(): data: {err}") from None
    n = len(text.encode("utf-8", "surrogatepass"))
    if n > MAX_SESSION_ENTRY_DATA_BYTES:
        raise ValueError(
            f"bounds_exceeded session.{what}(): data: {n} bytes, over the {MAX_SESSION_ENTRY_DATA_BYTES}-byte limit"
        )
