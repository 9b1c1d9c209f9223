"""``ctx.session_control`` and ``ext.session_control`` (W 2.21b session_control_v1, W 2.21c
session_compaction_v1), mirroring sdk/typescript/src/session-control.ts: the agent's active session.

- ``wait_for_idle()`` and ``switch_session(id)``: inside a handler they are children of its request;
  after it settled they need ``parent_request_id`` and ``owner`` (``ctx.context["resource_owner"]``).
  Do not wait on them inside a tool or hook handler of the agent's run: the session becomes idle
  only after that handler settles, and the host refuses the wait (invalid_request, deadlock).
- ``ctx.session_control.compact()``: queued, not awaited. session/compact is sent only after the
  handler's successful reply was written; a handler that failed or was cancelled drops it and
  calls ``on_error`` (SCOMP-06/07).
- ``compact_now(parent_request_id, owner)``: session/compact from outside a live handler.

Everything is checked here before anything is sent; a refusal begins with bounds_exceeded
(ValueError) or invalid_request (TypeError).
"""
import weakref
from typing import Any, Callable, Dict, List, Optional

from ._bounds import MAX_COMPACT_INSTRUCTIONS_BYTES
from .peer import Link
from .scope import RequestScope

__all__ = ["SessionControl", "flush_after_reply", "mark_compaction_hook"]

_MAX_SESSION_ID_BYTES = 256
_QUEUED: "weakref.WeakKeyDictionary[RequestScope, List[Dict[str, Any]]]" = weakref.WeakKeyDictionary()


#: Requests running a compaction hook (compaction_strategy, session_before_compact, session_compact):
#: compaction from them is refused (SCOMP-07).
_COMPACTION_HOOKS: "weakref.WeakSet[RequestScope]" = weakref.WeakSet()


def mark_compaction_hook(scope: RequestScope) -> None:
    _COMPACTION_HOOKS.add(scope)


def _refuse_in_compaction_hook(scope: Optional[RequestScope], what: str) -> None:
    if scope is not None and scope in _COMPACTION_HOOKS:
        raise RuntimeError(f"invalid_request session_control.{what}() refused: called from a compaction hook "
                           "(compaction_strategy, session_before_compact or session_compact); a compaction cannot "
                           "start a compaction (SCOMP-07)")


def has_queued(scope: RequestScope) -> bool:
    """Whether the request queued a compaction for after its reply (any thread)."""
    return scope in _QUEUED


def flush_after_reply(scope: RequestScope, link: Optional[Link], succeeded: bool) -> None:
    """Called by the serving loop right after the request's reply was written: sends the queued
    compactions on success, else drops each and tells its on_error why."""
    queued = _QUEUED.pop(scope, None)
    if not queued or link is None:
        return
    for q in queued:
        if not succeeded:
            _report(q["on_error"], RuntimeError(f"session/compact was not sent: request {scope.id} did not succeed"))
            continue
        _, future = link.peer.request("session/compact", q["params"])

        def done(f: Any, q: Dict[str, Any] = q) -> None:
            err = f.exception()
            if err is not None:
                _report(q["on_error"], err)
                return
            try:
                result = _compact_result(f.result())
            except RuntimeError as bad:
                _report(q["on_error"], bad)
                return
            if q["on_success"] is not None:
                try:
                    q["on_success"](result)
                except Exception:  # the author's callback failing is theirs
                    pass
        future.add_done_callback(done)


class SessionControl:
    """session/wait_for_idle, session/switch and session/compact for the running request."""

    def __init__(self, link: Callable[[], Optional[Link]], scope: Callable[[], Optional[RequestScope]],
                 owner: Callable[[], Any] = lambda: None) -> None:
        self._link, self._scope, self._owner = link, scope, owner

    @property
    def available(self) -> bool:
        link = self._link()
        return link is not None and "session_control_v1" in link.features

    @property
    def compaction_available(self) -> bool:
        link = self._link()
        return link is not None and "session_compaction_v1" in link.features

    def wait_for_idle(self, parent_request_id: Optional[int] = None, owner: Any = None) -> Any:
        """Resolves once the active session is idle (after every operation queued before it)."""
        return self._call("wait_for_idle", "session/wait_for_idle", {}, parent_request_id, owner, False)

    def switch_session(self, session_id: str, parent_request_id: Optional[int] = None, owner: Any = None) -> Any:
        """Closes the active session and opens session `session_id` of the same workspace."""
        _text("switch_session", "session_id", session_id, _MAX_SESSION_ID_BYTES, non_empty=True)
        return self._call("switch_session", "session/switch", {"session_id": session_id}, parent_request_id, owner,
                          False)

    def compact(self, custom_instructions: Optional[str] = None, *,
                on_success: Optional[Callable[[Dict[str, str]], None]] = None,
                on_error: Optional[Callable[[BaseException], None]] = None) -> None:
        """Queues session/compact until this handler's successful reply is written (handlers only)."""
        link = self._ready("compact", "session_compaction_v1")
        del link
        scope = self._scope()
        _refuse_in_compaction_hook(scope, "compact")
        if scope is None or not scope.active or not isinstance(scope.id, int) or isinstance(scope.id, bool):
            raise RuntimeError("session_control.compact() queues from an active request handler; elsewhere use "
                               "compact_now()")
        owner = _owner("compact", self._owner())
        params: Dict[str, Any] = {"parent_request_id": scope.id, "resource_owner": owner}
        params.update(_instructions("compact", custom_instructions))
        _QUEUED.setdefault(scope, []).append({"params": params, "on_success": on_success, "on_error": on_error})

    def compact_now(self, parent_request_id: int, owner: Any, custom_instructions: Optional[str] = None) -> Any:
        """session/compact once the request `parent_request_id` was answered; returns
        {entry_id, summary, first_kept} of the new compaction entry."""
        _refuse_in_compaction_hook(self._scope(), "compact_now")
        extra = _instructions("compact_now", custom_instructions)
        return self._call("compact_now", "session/compact", extra, parent_request_id, _owner("compact_now", owner),
                          True, "session_compaction_v1")

    def _ready(self, what: str, feature: str) -> Link:
        link = self._link()
        if link is None:
            raise RuntimeError(f"session_control.{what}() is available only after the host initialized the extension")
        if feature not in link.features:
            raise RuntimeError(f"session_control.{what}() needs {feature}, which the host did not offer "
                               "(no agent session)")
        return link

    def _call(self, what: str, method: str, extra: Dict[str, Any], parent: Optional[int], owner: Any,
              compact: bool, feature: str = "session_control_v1") -> Any:
        link = self._ready(what, feature)
        scope = self._scope()
        if parent is not None:
            if not isinstance(parent, int) or isinstance(parent, bool) or parent < 0:
                raise TypeError(f"invalid_request session_control.{what}(): parent_request_id must be an int >= 0")
            params: Dict[str, Any] = {"parent_request_id": parent, "resource_owner": _owner(what, owner), **extra}
            live = None
        elif scope is not None and scope.active and isinstance(scope.id, int) and not isinstance(scope.id, bool):
            params = {"parent_request_id": scope.id, **extra}
            live = scope
        else:
            raise RuntimeError(f"session_control.{what}() outside an active request needs parent_request_id and "
                               "owner (the settled request's id and ctx.context['resource_owner'])")

        async def run() -> Any:
            request_id, future = link.peer.request(method, params)
            remove = live.on_abort(lambda err: link.loop.call_soon_threadsafe(
                link.peer.abandon, request_id, "cancelled", err)) if live is not None else (lambda: None)
            try:
                answer = await future
            finally:
                remove()
            return _compact_result(answer) if compact else None
        return link.call(run)


def _compact_result(answer: Any) -> Dict[str, str]:
    if not isinstance(answer, dict) or set(answer) != {"entry_id", "summary", "first_kept"} or not all(
            isinstance(v, str) and v for v in answer.values()):
        raise RuntimeError("the host's session/compact answer is invalid: expected {entry_id, summary, first_kept}")
    return dict(answer)


def _owner(what: str, owner: Any) -> Dict[str, Any]:
    ok = isinstance(owner, dict) and set(owner) == {"session_id", "extension_instance_id", "process_generation"} \
        and isinstance(owner["session_id"], str) and isinstance(owner["extension_instance_id"], str) \
        and isinstance(owner["process_generation"], int) and not isinstance(owner["process_generation"], bool)
    if not ok:
        raise TypeError(f"invalid_request session_control.{what}(): owner must be the issued "
                        "{session_id, extension_instance_id, process_generation} (ctx.context['resource_owner'])")
    return dict(owner)


def _instructions(what: str, text: Optional[str]) -> Dict[str, Any]:
    if text is None:
        return {}
    _text(what, "custom_instructions", text, MAX_COMPACT_INSTRUCTIONS_BYTES)
    return {"custom_instructions": text} if text.strip() else {}


def _text(what: str, field: str, value: Any, limit: int, non_empty: bool = False) -> None:
    if not isinstance(value, str):
        raise TypeError(f"invalid_request session_control.{what}(): {field}: expected a str, got "
                        f"{type(value).__name__}")
    if non_empty and not value.strip():
        raise TypeError(f"invalid_request session_control.{what}(): {field}: must not be empty")
    n = len(value.encode("utf-8", "surrogatepass"))
    if n > limit:
        raise ValueError(f"bounds_exceeded session_control.{what}(): {field}: {n} bytes, over the {limit}-byte limit")
    if any(ord(c) < 0x20 and c not in "\n\t" or 0x7F <= ord(c) <= 0x9F for c in value):
        raise TypeError(f"invalid_request session_control.{what}(): {field}: contains a control character")


def _report(on_error: Optional[Callable[[BaseException], None]], err: BaseException) -> None:
    if on_error is None:
        return
    try:
        on_error(err)
    except Exception:  # the author's callback failing is theirs; the serving loop goes on
        pass
