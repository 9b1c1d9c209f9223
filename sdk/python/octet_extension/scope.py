"""One host request while the SDK serves it, and the ambient access to it.

RequestScope holds the request's id and method, its cancellation state, its $/progress sequence
and whether it is still active (not yet answered). The running scope lives in a ContextVar, set
in the handler's own context (its asyncio task, or the context copied into its worker thread), so
``ext.cancellation`` and ``ext.progress`` find their request anywhere inside the handler without
threading ``ctx`` through every call. Code outside any handler simply sees no request.

Cancellation is cooperative, never a rollback: ``abort()`` (on the event loop, when
$/cancelRequest or shutdown arrives) only sets state that handlers poll and wakes what waits on it.
"""
import contextvars
import threading
from typing import Any, Callable, List, Optional

from .errors import RequestCancelled

__all__ = ["RequestScope", "Cancellation", "current_scope"]

_current: "contextvars.ContextVar[Optional[RequestScope]]" = contextvars.ContextVar("octet_request", default=None)


def current_scope() -> "Optional[RequestScope]":
    return _current.get()


def set_current(scope: "Optional[RequestScope]") -> None:
    _current.set(scope)


class RequestScope:
    def __init__(self, request_id: Any, method: str) -> None:
        self.id = request_id
        self.method = method
        self.progress: Any = None  # set by the runtime: a RequestProgress
        self._event = threading.Event()
        self._reason: Optional[str] = None
        self._on_abort: List[Callable[[BaseException], None]] = []
        self._sequence = 0
        self._lock = threading.Lock()
        self.active = True

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancellation_error(self) -> RequestCancelled:
        return RequestCancelled(f"request {self.id} was cancelled{self._reason or ''}")

    def abort(self, reason: str = "") -> None:
        """Cancels the request (event-loop thread). Idempotent."""
        if self._event.is_set():
            return
        self._reason = f" ({reason})" if reason else ""
        self._event.set()
        callbacks, self._on_abort = self._on_abort, []
        for callback in callbacks:
            callback(self.cancellation_error())

    def on_abort(self, callback: Callable[[BaseException], None]) -> Callable[[], None]:
        """Runs callback(error) when the request is cancelled (at once if it already was);
        returns a function that removes it."""
        if self._event.is_set():
            callback(self.cancellation_error())
            return lambda: None
        self._on_abort.append(callback)

        def remove() -> None:
            if callback in self._on_abort:
                self._on_abort.remove(callback)
        return remove

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise self.cancellation_error()

    def wait_cancelled(self, timeout: Optional[float]) -> bool:
        return self._event.wait(timeout)

    def settle(self) -> None:
        """The response is decided: nothing more may be sent for this request."""
        self.active = False

    def next_sequence(self) -> int:
        """1, 2, 3... strictly increasing per request (PROG-03), from any thread."""
        with self._lock:
            self._sequence += 1
            return self._sequence


class Cancellation:
    """``ext.cancellation``: the running request's token, found through the ContextVar."""

    @property
    def cancelled(self) -> bool:
        scope = _current.get()
        return scope is not None and scope.cancelled

    def raise_if_cancelled(self) -> None:
        """Raises RequestCancelled (answered -32800) once the host cancelled the running request;
        outside a request handler it does nothing."""
        scope = _current.get()
        if scope is not None:
            scope.raise_if_cancelled()

    def wait(self, seconds: float) -> bool:
        """Sleeps up to `seconds` in a synchronous handler, waking early on cancellation; True
        when the request was cancelled. Outside a handler it just sleeps."""
        scope = _current.get()
        if scope is None:
            threading.Event().wait(seconds)
            return False
        return scope.wait_cancelled(seconds)
