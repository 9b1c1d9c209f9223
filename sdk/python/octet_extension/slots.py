"""The negotiated concurrency limit (max_concurrent_requests): at most that many host requests
run their handler at once; the others wait, in arrival order, for a slot or for their
cancellation.

Not an asyncio.Semaphore because a slot is given back where the request finishes, and a `def`
handler's request finishes on its worker thread (it answers from there, without a trip through
the event loop): `give()` is safe on any thread. Taking a slot happens on the event loop only,
so the waiters' queue is the loop's own; the count is shared and guarded by a lock.
"""
import asyncio
import threading
from collections import deque
from typing import Callable, Deque

__all__ = ["Slots"]


class Slots:
    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        self._free = limit
        self._lock = threading.Lock()
        self._waiters: "Deque[asyncio.Future[None]]" = deque()
        self._loop = loop
        self._loop_thread = threading.get_ident()

    def try_take(self) -> bool:
        """A slot now (event loop only), if one is free and nobody queued before this request."""
        if self._waiters:
            return False
        with self._lock:
            if self._free > 0:
                self._free -= 1
                return True
        return False

    async def take(self, on_abort: Callable[[Callable[[BaseException], None]], Callable[[], None]]) -> bool:
        """Waits for a slot (True) or for the request's cancellation (False), whichever comes
        first (event loop only). `on_abort(callback)` is the request's RequestScope.on_abort: a
        request cancelled while queued is answered at once, not when a running handler frees
        its slot (the host ends a generation that leaves a cancelled request unanswered past its
        2 s grace, CANCEL-07)."""
        if self.try_take():
            return True
        granted: "asyncio.Future[None]" = self._loop.create_future()
        self._waiters.append(granted)
        # A slot given on a worker thread between try_take() and the append saw no waiter.
        self._grant()
        cancelled = self._loop.create_future()
        remove = on_abort(lambda _err: cancelled.done() or cancelled.set_result(None))
        try:
            await asyncio.wait({granted, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            remove()
            if not cancelled.done():
                cancelled.cancel()
            if not granted.done():
                # Cancelled first (or the loop is closing): give the place in the queue up.
                granted.cancel()
        if granted.cancelled():
            return False
        if cancelled.done() and not cancelled.cancelled():
            # Granted and cancelled in the same turn: the slot goes on to the next request.
            self.give()
            return False
        return True

    def give(self) -> None:
        """Returns a slot (any thread); the first live waiter gets it."""
        with self._lock:
            self._free += 1
        if self._waiters:
            if threading.get_ident() == self._loop_thread:
                self._grant()
            else:
                try:
                    self._loop.call_soon_threadsafe(self._grant)
                except RuntimeError:  # the loop is closed: nobody waits any more
                    pass

    def _grant(self) -> None:
        while self._waiters:
            with self._lock:
                if self._free <= 0:
                    return
                waiter = self._waiters[0]
                if waiter.done():  # given up while queued
                    self._waiters.popleft()
                    continue
                self._free -= 1
                self._waiters.popleft()
            waiter.set_result(None)
