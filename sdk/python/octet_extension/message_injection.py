"""``ctx.session.send_message`` / ``send_user_message`` (W 2.22, feature message_injection) and
``ctx.tools.set_active`` (W 2.23, feature active_tools), mirroring
sdk/typescript/src/message-injection.ts. Each call is parented to the running request as
``ctx.session``'s are, and checked here before anything is written (WAVE1-18/33/34/36): role
assistant or system, text non-empty and at most 256 KiB, at most 256 names of at most 128 bytes,
none twice. A refusal begins with bounds_exceeded (ValueError) or invalid_request (TypeError).
The model's text arrives through ``@ext.on("message/updated")`` and ``@ext.on("message/settled")``.
"""
from typing import Any, Callable, Dict, Optional, Sequence

from .peer import Link
from .reverse import send
from .scope import RequestScope
from .session import _parent_of

__all__ = ["ActiveTools", "MESSAGE_EVENTS", "message_params", "send_message", "send_user_message"]

MAX_INJECTED_TEXT_BYTES = 262_144
MAX_ACTIVE_TOOL_NAMES = 256
MAX_ACTIVE_TOOL_NAME_BYTES = 128
INJECTED_ROLES = ("assistant", "system")
#: The notifications of the model's text (gated on message_injection, WAVE1-07).
MESSAGE_EVENTS = ("message/updated", "message/settled")
#: The SDK-shaped batch: an array of deltas under `deltas` (alias `updates`), at most this long (WAVE1-06).
MAX_MESSAGE_DELTA_ARRAY = 1024
#: A message id, as the protocol bounds it (a longer or blank one is refused, WAVE1-02).
MAX_MESSAGE_ID_BYTES = 256


def message_params(method: str, params: Any) -> Optional[Dict[str, Any]]:
    """A message/updated batch as handlers get it, {message_id, delta, deltas}, with an array of
    deltas read as its joined text and count; None (nothing delivered) for a shape the protocol
    refuses, such as an array of more than 1024 deltas (bounds_exceeded, WAVE1-06)."""
    if not isinstance(params, dict) or not isinstance(params.get("message_id"), str):
        return None
    if not params["message_id"].strip() or _bytes(params["message_id"]) > MAX_MESSAGE_ID_BYTES:
        return None
    if method == "message/settled":
        return {"message_id": params["message_id"]}
    raw = params.get("deltas") if params.get("deltas") is not None else params.get("updates")
    if isinstance(raw, list):
        if len(raw) > MAX_MESSAGE_DELTA_ARRAY or not all(isinstance(d, str) for d in raw):
            return None
        delta = params.get("delta") if isinstance(params.get("delta"), str) else "".join(raw)
        return {"message_id": params["message_id"], "delta": delta, "deltas": len(raw)}
    if not isinstance(params.get("delta"), str) or not isinstance(raw, int) or isinstance(raw, bool) or raw < 1:
        return None
    return {"message_id": params["message_id"], "delta": params["delta"], "deltas": raw}


def _bytes(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def _text(what: str, text: Any) -> None:
    if not isinstance(text, str):
        raise TypeError(f"invalid_request {what}(): text: expected a str, got {type(text).__name__}")
    if not text.strip():
        raise TypeError(f"invalid_request {what}(): text: must not be empty")
    n = _bytes(text)
    if n > MAX_INJECTED_TEXT_BYTES:
        raise ValueError(f"bounds_exceeded {what}(): text: {n} bytes, over the {MAX_INJECTED_TEXT_BYTES}-byte limit")


def _call(link: Optional[Link], scope: Optional[RequestScope], what: str, feature: str, method: str,
          params: Dict[str, Any]) -> Any:
    if link is None:
        raise RuntimeError(f"{what}() is available only after the host initialized the extension")
    if feature not in link.features:
        raise RuntimeError(f"{what}() needs the {feature} feature, which the host did not offer (no agent session)")
    if scope is None:
        raise RuntimeError(f"{what}() must be called from a request handler (no request is running here)")
    wire = {"parent_request_id": _parent_of(scope, what.split(".")[-1]), **params}

    async def run() -> None:
        await send(scope, link, method, wire)
    return link.call(run)


def send_message(link: Optional[Link], scope: Optional[RequestScope], role: Any, text: Any) -> Any:
    """session/send_message {role, text}; answered once the host admitted it."""
    what = "session.send_message"
    if role not in INJECTED_ROLES:
        raise TypeError(f"invalid_request {what}(): role: {role!r} is not one of \"assistant\", \"system\"")
    _text(what, text)
    return _call(link, scope, what, "message_injection", "session/send_message", {"role": role, "text": text})


def send_user_message(link: Optional[Link], scope: Optional[RequestScope], text: Any) -> Any:
    """session/send_user_message {text}: a run now when the agent is idle, else queued behind it."""
    what = "session.send_user_message"
    _text(what, text)
    return _call(link, scope, what, "message_injection", "session/send_user_message", {"text": text})


class ActiveTools:
    """tools/set_active for the running request (as ctx.tools and ext.tools)."""

    def __init__(self, link: Callable[[], Optional[Link]], scope: Callable[[], Optional[RequestScope]]) -> None:
        self._link, self._scope = link, scope

    @property
    def available(self) -> bool:
        link = self._link()
        return link is not None and "active_tools" in link.features

    def set_active(self, names: Sequence[str]) -> Any:
        """The complete set of tool names the model is offered from its next request on."""
        what = "tools.set_active"
        if isinstance(names, (str, bytes)) or not isinstance(names, Sequence):
            raise TypeError(f"invalid_request {what}(): names: expected a list of str")
        names = list(names)
        if len(names) > MAX_ACTIVE_TOOL_NAMES:
            raise ValueError(
                f"bounds_exceeded {what}(): names: {len(names)} names, over the {MAX_ACTIVE_TOOL_NAMES}-name limit"
            )
        for i, name in enumerate(names):
            if not isinstance(name, str) or not name.strip():
                raise TypeError(f"invalid_request {what}(): names[{i}]: expected a non-empty str")
            if _bytes(name) > MAX_ACTIVE_TOOL_NAME_BYTES:
                raise ValueError(
                    f"bounds_exceeded {what}(): names[{i}]: {_bytes(name)} bytes, over the "
                    f"{MAX_ACTIVE_TOOL_NAME_BYTES}-byte limit"
                )
        if len(set(names)) != len(names):
            raise TypeError(f"invalid_request {what}(): names: a name is listed more than once")
        return _call(self._link(), self._scope(), what, "active_tools", "tools/set_active", {"names": names})
