"""JSON-RPC correlation for the extension, mirroring packages/protocol/src/rpc/peer.ts: outgoing
requests with sequential numeric ids (REV-02) and their futures, tombstones for requests given
up on (a late answer is diagnosed by id, never delivered), notifications, and the one place
where an outcome becomes a response frame.

Threading: the pending table is touched on the event loop only; `notify` and the reply helpers
may run on any thread because they only encode a frame and hand it to the FrameWriter. Helpers
that block a handler thread until an answer arrives (`Link.call`) live here too.
"""
import asyncio
import collections.abc
import sys
import threading
from collections import OrderedDict
from typing import Any, Awaitable, Callable, Dict, Optional, Tuple

from ._bounds import MAX_CHILD_IDS_PER_GENERATION
from .errors import ErrorCode, WireError, to_wire_error
from .framing import FrameTooLarge, encode_frame
from .writer import FrameWriter, Ticket

__all__ = ["RpcPeer", "Link", "HostAnswer", "diagnose"]


def diagnose(message: str) -> None:
    """A note for the host's diagnostics: stderr, one line, never stdout."""
    try:
        sys.stderr.write(f"octet-extension: {message}\n")
        sys.stderr.flush()
    except Exception:
        pass


class RpcPeer:
    def __init__(self, writer: FrameWriter) -> None:
        self._writer = writer
        self._pending: Dict[int, Tuple[str, "asyncio.Future[Any]", Ticket]] = {}
        self._tombstones: "OrderedDict[int, str]" = OrderedDict()
        self._next_id = 1
        self.closed: Optional[BaseException] = None

    @property
    def writer(self) -> FrameWriter:
        return self._writer

    @property
    def pending_count(self) -> int:
        return len(self._pending)

    def request(self, method: str, params: Any) -> Tuple[int, "asyncio.Future[Any]"]:
        """Sends a request (event loop only); the future resolves with its result or raises
        WireError with the answer's error."""
        future: "asyncio.Future[Any]" = asyncio.get_running_loop().create_future()
        request_id = self._next_id
        self._next_id += 1
        if self.closed is not None:
            future.set_exception(self.closed)
            return request_id, future
        frame = encode_frame({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        ticket = self._writer.send(frame)
        self._pending[request_id] = (method, future, ticket)
        return request_id, future

    def abandon(self, request_id: int, reason: str, error: BaseException) -> Optional[bool]:
        """Gives up on an outgoing request: its future fails with `error` and the id is
        tombstoned unless the frame was withdrawn unwritten. None when it was not pending."""
        entry = self._pending.pop(request_id, None)
        if entry is None:
            return None
        _, future, ticket = entry
        withdrawn = self._writer.withdraw(ticket)
        if not withdrawn:
            self._tombstones[request_id] = reason
            if len(self._tombstones) > MAX_CHILD_IDS_PER_GENERATION:
                self._tombstones.popitem(last=False)
        if not future.done():
            future.set_exception(error)
        return withdrawn

    def settle(self, message: Dict[str, Any]) -> None:
        """A response from the host (event loop only)."""
        response_id = message.get("id")
        error = message.get("error")
        if response_id is None:
            diagnose(f"the host sent an error without an id: {str((error or {}).get('message', ''))[:256]}")
            return
        entry = self._pending.pop(response_id, None) if isinstance(response_id, int) else None
        if entry is None:
            tomb = self._tombstones.get(response_id) if isinstance(response_id, int) else None
            if tomb is not None:
                diagnose(f"late response to request {response_id} given up on ({tomb}); dropped")
            else:
                diagnose(f"response to unknown request id {str(response_id)[:64]}; dropped")
            return
        _, future, _ = entry
        if future.done():
            return
        if error is not None:
            future.set_exception(
                WireError(error["code"], error["message"], *(() if "data" not in error else (error["data"],)))
            )
        else:
            future.set_result(message.get("result"))

    def close(self, error: BaseException) -> None:
        if self.closed is not None:
            return
        self.closed = error
        entries, self._pending = list(self._pending.values()), {}
        for _, future, _ in entries:
            if not future.done():
                future.set_exception(error)

    def notify(self, method: str, params: Any) -> Ticket:
        """Queues a notification (any thread). Raises FrameTooLarge before anything is written."""
        return self._writer.send(encode_frame({"jsonrpc": "2.0", "method": method, "params": params}))

    def reply_result(self, request_id: Any, method: str, result: Any) -> None:
        try:
            frame = encode_frame({"jsonrpc": "2.0", "id": request_id, "result": result})
        except (FrameTooLarge, ValueError, TypeError) as err:
            diagnose(f"the result of {method} could not be sent: {err}")
            self.reply_error(request_id, ErrorCode.INTERNAL_ERROR, f"result of {method} could not be sent: {err}")
            return
        self._writer.send(frame)

    def reply_failure(self, request_id: Any, method: str, err: BaseException) -> None:
        if not isinstance(err, WireError):
            diagnose(f"the {method} handler failed: {type(err).__name__}: {err}")
        error = to_wire_error(err)
        try:
            frame = encode_frame({"jsonrpc": "2.0", "id": request_id, "error": error})
        except (FrameTooLarge, ValueError, TypeError):
            # The error's data could not be sent (too large or not JSON): code and message only.
            frame = encode_frame({"jsonrpc": "2.0", "id": request_id,
                                  "error": {"code": error["code"], "message": str(error["message"])[:4096]}})
        self._writer.send(frame)

    def reply_error(self, request_id: Any, code: int, message: str) -> None:
        self._writer.send(
            encode_frame({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})
        )


class Link:
    """The negotiated connection a request uses; exists only after initialize."""

    def __init__(self, api: str, features: frozenset, peer: RpcPeer, loop: asyncio.AbstractEventLoop,
                 contributes: Optional[Dict[str, Any]] = None) -> None:
        self.api = api
        self.features = features
        self.peer = peer
        self.loop = loop
        self.contributes = contributes

    def on_loop(self) -> bool:
        try:
            return asyncio.get_running_loop() is self.loop
        except RuntimeError:
            return False

    def call(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Runs the coroutine `make()` on the event loop. On the loop (an `async def` handler)
        the awaitable is returned for the caller to await; on a handler thread this blocks until
        the result (the helpers are blocking there, PY-57)."""
        if self.on_loop():
            return HostAnswer(make(), helper_name(make))
        if threading.current_thread() is threading.main_thread() and not self.loop.is_running():
            raise RuntimeError(
                "the extension is not running (call this from a handler while ext.run() serves the host)"
            )
        return asyncio.run_coroutine_threadsafe(_run(make), self.loop).result()


class HostAnswer(collections.abc.Coroutine):
    """What a blocking helper returns on the event loop (in an `async def` handler): the helper's
    coroutine, to be awaited (or given to asyncio.gather / create_task). Its truth value is
    refused: a coroutine is always truthy, so `if ctx.confirm(...):` without `await` would read
    as a yes the host was never asked for (issue 13.1). Better a TypeError naming the fix."""

    __slots__ = ("_coro", "_helper")

    def __init__(self, coro: Any, helper: str = "this helper") -> None:
        self._coro = coro
        self._helper = helper

    def send(self, value: Any) -> Any:
        return self._coro.send(value)

    def throw(self, *args: Any) -> Any:
        return self._coro.throw(*args)

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Any:
        return self._coro.__await__()

    def __bool__(self) -> bool:
        raise TypeError(f"`{self._helper}(...)` was not awaited: in an async def handler it returns an awaitable, so"
                        f" write `await {self._helper}(...)` (its truth value is not the host's answer)")

    def __repr__(self) -> str:
        return f"<HostAnswer {self._coro!r}>"


#: How the author reaches each class whose methods call Link.call: `ctx.confirm`, `ext.policy.evaluate`.
_RECEIVERS = {"HandlerContext": "ctx", "Extension": "ext", "Policy": "ext.policy", "Secrets": "ext.secrets"}


def helper_name(make: Callable[..., Any]) -> str:
    """The helper the author called, as they wrote it (`ctx.confirm`), read from where `make` was
    defined ("HandlerContext.confirm.<locals>.<lambda>"), not the internal coroutine it runs."""
    owner = getattr(make, "__qualname__", "").split(".<locals>", 1)[0].split(".")
    if len(owner) < 2 or not owner[-1].isidentifier():
        return "this helper"
    receiver = _RECEIVERS.get(owner[-2])
    return f"{receiver}.{owner[-1]}" if receiver else owner[-1]


async def _run(make: Callable[[], Awaitable[Any]]) -> Any:
    return await make()
