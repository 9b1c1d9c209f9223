"""Running one host content request, the hot half of Serving (serving.py): its scope, its slot
under the concurrency limit, its handler, its answer.

Two paths with one outcome:
- The direct path, for a tool/call that finds a slot free (the usual case): its params are
  checked at once, then a `def` handler runs on a worker thread that also maps the value,
  answers and gives the slot back, so a call costs one thread handoff instead of a round trip
  through the event loop; an `inline` handler runs right there on the loop (no handoff at all);
  an `async def` handler runs in a task.
- The routed path (every other method, and a tool/call that has to queue for a slot): a task
  that waits for a slot or the request's cancellation, then route() (dispatch.py).

Either way the reply is decided once: the slot is given back, the scope settled and forgotten,
then the answer written (a cancelled request that failed is answered -32800), and a queued
session/compact goes out after it (SCOMP-06).
"""
import asyncio
import concurrent.futures
import contextvars
import inspect
import threading
from typing import Any, Dict, Optional

from .dispatch import route, tool_call_error, tool_call_result, tool_call_target
from .errors import ErrorCode, WireError
from .handler_context import HandlerContext
from .peer import Link, RpcPeer
from .scope import RequestScope, set_current
from .session_control import flush_after_reply, has_queued
from .slots import Slots
from .workers import WorkerPool

__all__ = ["RequestRunner"]


class RequestRunner:
    """Mixin of Serving (and so of Extension); the state it uses is created in Extension.__init__
    and at initialize (`_slots`, `_make_progress`)."""

    api_version: str
    _link: Optional[Link]
    _peer: Optional[RpcPeer]
    _active: Dict[Any, RequestScope]
    _active_lock: threading.Lock
    _slots: Optional[Slots]
    _executor: Optional[WorkerPool]

    def _start_request(self, request_id: Any, method: str, params: Any, link: Link) -> None:
        scope = RequestScope(request_id, method, self._make_progress)
        with self._active_lock:
            self._active[request_id] = scope
        slots = self._slots
        # tool/call is legal on every API version and behind no feature, so route()'s method-table
        # check has nothing to refuse on this path.
        if method == "tool/call" and slots is not None and slots.try_take():
            self._call_tool(scope, link, params)
        else:
            self._spawn(self._handle(scope, link, params))

    # ----- the direct tool/call path --------------------------------------------------------

    def _call_tool(self, scope: RequestScope, link: Link, params: Any) -> None:
        """A tool/call holding its slot (event loop)."""
        try:
            entry, arguments, context = tool_call_target(params, self._registry)
        except Exception as err:
            self._finish(scope, link, None, err)
            return
        args = (arguments, HandlerContext(self, scope, link, context)) if entry.with_context else (arguments,)
        if entry.asynchronous:
            self._spawn(self._run_tool_async(scope, link, entry.handler, args))
        elif entry.inline:
            # Its own copy of the context, as a task or a worker thread would have.
            contextvars.copy_context().run(self._run_tool, scope, link, entry.handler, args, True)
        else:
            self._executor.run(contextvars.copy_context().run, self._run_tool, scope, link, entry.handler, args, False)

    def _run_tool(self, scope: RequestScope, link: Link, handler: Any, args: tuple, on_loop: bool) -> None:
        """A `def` tool handler to its answer, on a worker thread or (inline) on the loop."""
        set_current(scope)
        try:
            value = handler(*args)
        except Exception as err:
            self._tool_outcome(scope, link, err, True)
            return
        except BaseException as err:
            self._finish(scope, link, None, err)
            return
        if type(value) not in _PLAIN and inspect.isawaitable(value):
            # A def handler that returned an awaitable: awaited on the loop, as it always was.
            if on_loop:
                self._spawn(self._await_tool(scope, link, value))
            else:
                future = asyncio.run_coroutine_threadsafe(_awaited(value), link.loop)
                future.add_done_callback(lambda f: self._settle_future(scope, link, f))
            return
        self._tool_outcome(scope, link, value, False)

    def _settle_future(self, scope: RequestScope, link: Link, future: "concurrent.futures.Future[Any]") -> None:
        if future.cancelled():
            self._drop(scope)
            return
        err = future.exception()
        if err is None:
            self._tool_outcome(scope, link, future.result(), False)
        elif isinstance(err, Exception):
            self._tool_outcome(scope, link, err, True)
        else:
            self._finish(scope, link, None, err)

    async def _await_tool(self, scope: RequestScope, link: Link, awaitable: Any) -> None:
        try:
            value = await awaitable
        except asyncio.CancelledError:
            self._drop(scope)
            return
        except Exception as err:
            self._tool_outcome(scope, link, err, True)
            return
        except BaseException as err:
            self._finish(scope, link, None, err)
            return
        self._tool_outcome(scope, link, value, False)

    async def _run_tool_async(self, scope: RequestScope, link: Link, handler: Any, args: tuple) -> None:
        set_current(scope)  # this task's own context: the handler and what it starts see it
        await self._await_tool(scope, link, handler(*args))

    def _tool_outcome(self, scope: RequestScope, link: Link, value: Any, raised: bool) -> None:
        """The handler's value (or what it raised) as the answer: a result, an error result, or
        a JSON-RPC error (tool_call_error)."""
        try:
            try:
                if raised:
                    raise value
                outcome = tool_call_result(value, link.api)
            except Exception as err:
                outcome = tool_call_error(err, link.api, scope.cancelled)
        except BaseException as failure:
            self._finish(scope, link, None, failure)
            return
        self._finish(scope, link, outcome, None)

    # ----- the routed path -----------------------------------------------------------------

    async def _handle(self, scope: RequestScope, link: Link, params: Any) -> None:
        set_current(scope)  # this task's own context: the handler and what it starts see it
        outcome: Any = None
        failure: Optional[BaseException] = None
        acquired = False
        try:
            acquired = await self._slots.take(scope.on_abort)
            # Cancelled while waiting for a slot: answer without running the handler, so no
            # work (and no side effect) starts after the host gave up on it.
            scope.raise_if_cancelled()
            outcome = await route(scope.method, params, self._registry, self.api_version, lambda: scope.cancelled,
                                  lambda entry, args, context: self._invoke(entry, args, scope, link, context),
                                  link.features)
        except asyncio.CancelledError:
            self._drop(scope, acquired)
            return
        except BaseException as err:
            failure = err
        self._finish(scope, link, outcome, failure, acquired)

    async def _invoke(
        self, entry: Any, args: tuple, scope: RequestScope, link: Link, context: Dict[str, Any]
    ) -> Any:
        if entry.with_context:
            args = args + (HandlerContext(self, scope, link, context),)
        if entry.asynchronous:
            return await entry.handler(*args)
        if entry.inline:
            value = entry.handler(*args)  # in this task's context, which holds the scope
        else:
            loop = asyncio.get_running_loop()
            value = await loop.run_in_executor(self._executor, contextvars.copy_context().run, entry.handler, *args)
        if inspect.isawaitable(value):
            value = await value
        return value

    # ----- the answer ----------------------------------------------------------------------

    def _finish(self, scope: RequestScope, link: Link, outcome: Any, failure: Optional[BaseException],
                held: bool = True) -> None:
        """Decides and writes the answer (any thread): the slot goes back and the scope is
        settled first, so nothing more is sent for the request once its answer is out."""
        if held:
            self._slots.give()
        scope.settle()
        self._forget(scope)
        peer = self._peer
        if peer.closed is not None:
            return  # the connection is closing: nothing is answered any more
        if failure is not None:
            if scope.cancelled and self.api_version != "0.1":
                failure = WireError(ErrorCode.REQUEST_CANCELLED, f"request {scope.id} was cancelled")
            peer.reply_failure(scope.id, scope.method, failure)
        else:
            peer.reply_result(scope.id, scope.method, outcome)
        # Queued ctx.session_control.compact() goes out only after this reply (SCOMP-06); a tool
        # whose error became an is_error result ended in error, so it is dropped (SCOMP-07).
        if has_queued(scope):
            failed = failure is not None or (isinstance(outcome, dict) and outcome.get("is_error") is True)
            if link.on_loop():
                flush_after_reply(scope, link, not failed)
            else:
                link.loop.call_soon_threadsafe(flush_after_reply, scope, link, not failed)

    def _drop(self, scope: RequestScope, held: bool = True) -> None:
        """The loop is closing (shutdown or EOF): nothing is answered any more, but the slot and
        the scope are still given up."""
        if held:
            self._slots.give()
        scope.settle()
        self._forget(scope)

    def _forget(self, scope: RequestScope) -> None:
        # Under the lock: the loop may be registering a request that reuses the id.
        with self._active_lock:
            if self._active.get(scope.id) is scope:
                del self._active[scope.id]


#: What a tool returns most of the time, and is never awaitable: skips isawaitable's ABC check.
_PLAIN = frozenset((str, dict))


async def _awaited(awaitable: Any) -> Any:
    return await awaitable
