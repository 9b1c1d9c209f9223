"""Operation-scoped reverse requests (W 2.2, 2.7): confirmation/request and input/request, and
the two pieces every reverse helper shares: `parent_of` (REV-07: on API 0.2+ a reverse request
carries the numeric id of the active tool/call or command/execute it serves, and is refused here,
before anything is sent, from anywhere else) and `send` (a pending request is given up when its
parent is cancelled, so a handler never waits on an answer nobody will give; the host's late
answer is then dropped by id).
"""
from typing import Any, Dict, Optional

from ._bounds import MAX_CONFIRMATION_TEXT_BYTES, MAX_INPUT_PROMPT_BYTES
from .errors import ErrorCode, WireError
from .peer import Link
from .scope import RequestScope

__all__ = ["confirm", "request_input", "parent_of", "send"]

PARENT_METHODS = ("tool/call", "command/execute")


def parent_of(scope: RequestScope, what: str) -> int:
    """The numeric id of the active parent request, or a local error saying what is wrong."""
    if scope.method not in PARENT_METHODS:
        raise RuntimeError(
            f"{what}() is available only in a tool/call or command/execute handler on API 0.2+, not in {scope.method}"
        )
    if not scope.active:
        raise RuntimeError(
            f"{what}() was called after request {scope.id} was answered; it needs an active parent request"
        )
    if not isinstance(scope.id, int) or isinstance(scope.id, bool):
        raise RuntimeError(f"{what}() needs a numeric parent request id, and the host sent {scope.id!r}")
    return scope.id


async def send(scope: RequestScope, link: Link, method: str, params: Any) -> Any:
    """Sends the request and waits for its answer, giving it up if the parent is cancelled."""
    scope.raise_if_cancelled()
    request_id, future = link.peer.request(method, params)
    remove = scope.on_abort(lambda err: link.loop.call_soon_threadsafe(link.peer.abandon, request_id, "cancelled", err))
    try:
        return await future
    finally:
        remove()


def _text_bytes(what: str, value: Any, limit: int) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    n = len(value.encode("utf-8", "surrogatepass"))
    if n > limit:
        raise ValueError(f"{what} is {n} bytes, over the {limit}-byte limit")
    return value


async def confirm(scope: RequestScope, link: Link, prompt: str, *, detail: Optional[str] = None,
                  destructive: bool = False, default: bool = False) -> bool:
    """confirmation/request: True only for {confirmed: true}; a refusal by the host is a denial."""
    params: Dict[str, Any] = {
        "prompt": _text_bytes("confirm() prompt", prompt, MAX_CONFIRMATION_TEXT_BYTES),
        "destructive": bool(destructive),
        "default": bool(default),
    }
    if detail is not None:
        params["detail"] = _text_bytes("confirm() detail", detail, MAX_CONFIRMATION_TEXT_BYTES)
    # Frozen API 0.1 has no parent correlation: the request goes out as it always did.
    if link.api != "0.1":
        params["parent_request_id"] = parent_of(scope, "confirm")
    try:
        answer = await send(scope, link, "confirmation/request", params)
    except WireError as err:
        if err.code == ErrorCode.REQUEST_CANCELLED and scope.cancelled:
            raise
        return False
    return isinstance(answer, dict) and answer.get("confirmed") is True


async def request_input(scope: RequestScope, link: Link, prompt: str, *, secret: bool = False) -> Optional[str]:
    """input/request (API 0.2+): the answer, or None when the frontend cancelled, cannot answer,
    or the host refused for lack of one (INPUT-02, INPUT-06). A -32602 refusal means this request
    itself was invalid, which is the author's to fix: it raises instead of reading as None."""
    if link.api == "0.1":
        raise RuntimeError("input() needs API 0.2 or later (input/request is not part of API 0.1)")
    if not isinstance(prompt, str) or not prompt.strip():
        raise TypeError("input() needs a prompt with non-whitespace text")
    _text_bytes("input() prompt", prompt, MAX_INPUT_PROMPT_BYTES)
    if not isinstance(secret, bool):
        raise TypeError("input() secret must be a bool")
    params = {"parent_request_id": parent_of(scope, "input"), "prompt": prompt, "secret": secret}
    try:
        answer = await send(scope, link, "input/request", params)
    except WireError as err:
        if err.code == ErrorCode.REQUEST_CANCELLED and scope.cancelled:
            raise
        if err.code == ErrorCode.INVALID_PARAMS:
            raise RuntimeError(f"the host refused input/request: {err.message}") from err
        return None
    value = answer.get("value") if isinstance(answer, dict) else None
    return value if isinstance(value, str) else None
