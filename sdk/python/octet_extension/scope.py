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
    """Built for every host request, so it is cheap: the threading.Event that a blocking
    `wait_cancelled` sleeps on is made only when something waits (most requests never do), and
    the $/progress sequence takes the module lock only when progress is sent."""

    __slots__ = ("id", "method", "_make_progress", "_progress", "_cancelled", "_event", "_reason", "_on_abort",
                 "_sequence", "active", "__weakref__")

    def __init__(self, request_id: Any, method: str,
                 make_progress: Optional[Callable[["RequestScope"], Any]] = None) -> None:
        self.id = request_id
        self.method = method
        self._make_progress = make_progress  # the connection's RequestProgress factory, used on first use
        self._progress: Any = None
        self._cancelled = False
        self._event: Optional[threading.Event] = None
        self._reason: Optional[str] = None
        self._on_abort: Optional[List[Callable[[BaseException], None]]] = None
        self._sequence = 0
        self.active = True

    @property
    def progress(self) -> Any:
        """The request's RequestProgress (None for a scope made without a factory)."""
        if self._progress is None and self._make_progress is not None:
            with _lazy_lock:
                if self._progress is None:
                    self._progress = self._make_progress(self)
        return self._progress

    @progress.setter
    def progress(self, value: Any) -> None:
        self._progress = value

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancellation_error(self) -> RequestCancelled:
        return RequestCancelled(f"request {self.id} was cancelled{self._reason or ''}")

    def abort(self, reason: str = "") -> None:
        """Cancels the request (event-loop thread). Idempotent."""
        if self._cancelled:
            return
        self._reason = f" ({reason})" if reason else ""
        # Under the lock, so a waiter making its Event at this moment either sees the flag or
        # has its Event set here (wait_cancelled).
        with _lazy_lock:
            self._cancelled = True
            event = self._event
        if event is not None:
            event.set()
        callbacks, self._on_abort = self._on_abort, None
        for callback in callbacks or ():
            callback(self.cancellation_error())

    def on_abort(self, callback: Callable[[BaseException], None]) -> Callable[[], None]:
        """Runs callback(error) when the request is cancelled (at once if it already was);
        returns a function that removes it."""
        if self._cancelled:
            callback(self.cancellation_error())
            return lambda: None
        if self._on_abort is None:
            self._on_abort = []
        self._on_abort.append(callback)

        def remove() -> None:
            if self._on_abort is not None and callback in self._on_abort:
                self._on_abort.remove(callback)
        return remove

    def raise_if_cancelled(self) -> None:
        if self._cancelled:
            raise self.cancellation_error()

    def wait_cancelled(self, timeout: Optional[float]) -> bool:
        with _lazy_lock:
            if self._cancelled:
                return True
            if self._event is None:
                self._event = threading.Event()
            event = self._event
        return event.wait(timeout)

    def settle(self) -> None:
        """The response is decided: nothing more may be sent for this request."""
        self.active = False

    def next_sequence(self) -> int:
        """1, 2, 3... strictly increasing per request (PROG-03), from any thread."""
        with _lazy_lock:
            self._sequence += 1
            return self._sequence


#: Guards what RequestScope makes lazily and its sequence; held for a few instructions only.
_lazy_lock = threading.Lock()


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
