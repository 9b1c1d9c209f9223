"""Serving the host, the runtime half of Extension (extension.py): the stdin loop, routing of
frames by the method table (dispatch.py for content requests), the initialize handshake and
feature negotiation (negotiation.py), each request under the concurrency limit in its request
scope (request_runner.py, scope.py, slots.py), cancellation, lifecycle notifications, shutdown
and stdin EOF.
"""
import asyncio
import contextvars
import inspect
import os
import sys
import threading
from typing import Any, Awaitable, Callable, Dict, List, Optional

from ._bounds import SHUTDOWN_STAGE_TIMEOUT_MS
from ._malloc import keep_frame_memory
from .catalog import ToolCatalog
from .definitions import HandlerEntry
from .dispatch import legal_method
from .errors import ErrorCode, WireError
from .framing import FrameDecoder, parse_envelope
from .message_injection import MESSAGE_EVENTS, message_params
from .negotiation import LIFECYCLE_EVENTS, negotiate
from .peer import Link, RpcPeer, diagnose
from .progress import RequestProgress
from .request_runner import RequestRunner
from .scope import RequestScope
from .slots import Slots
from .terminal import TerminalGrants
from .workers import WorkerPool
from .writer import FrameWriter


class Serving(RequestRunner):
    """Mixin of Extension: serves one connection. The state it reads and writes is created in
    Extension.__init__."""

    api_version: str
    max_concurrent_requests: int
    _link: Optional[Link]
    _peer: Optional[RpcPeer]
    _active: Dict[Any, RequestScope]
    _lifecycle: Dict[str, List[HandlerEntry]]
    _subscribed: frozenset
    _terminal_grants: TerminalGrants


    def run(self) -> None:
        """Serves the host on stdin/stdout until `shutdown` or stdin EOF, then exits the process
        (code 0; 1 when the host's input was unreadable)."""
        if self._running:
            raise RuntimeError("run() was called twice")
        writer = FrameWriter.for_fd(self._stdout_fd, on_first_large_frame=keep_frame_memory)
        fd = sys.stdin.fileno() if sys.stdin is not None else 0
        code = asyncio.run(self._serve(_stdin_chunks(), writer, fd))
        try:
            sys.stderr.flush()
        finally:
            # Handler threads still running (shutdown does not wait for requests in flight) must
            # not hold the exit: leave without joining them.
            os._exit(code)

    async def _serve(self, next_chunk: Callable[[], Awaitable[bytes]], writer: FrameWriter,
                     stdin_fd: Optional[int] = None) -> int:
        """Serves one connection: `next_chunk()` returns input bytes (b"" at EOF); frames go to
        `writer`. Returns the exit code. Tests drive this directly. With `stdin_fd`, the loop
        reads that descriptor itself when it can wait on it (a socket or a pipe), and
        `next_chunk` is used only when it cannot (a regular file)."""
        self._running = True
        loop = asyncio.get_running_loop()
        writer.never_wait_on(threading.current_thread())
        self._peer = RpcPeer(writer)
        self._done = loop.create_future()
        self._executor = WorkerPool(self.max_concurrent_requests + 2, thread_name_prefix="octet-handler")
        decoder = FrameDecoder()
        watching = stdin_fd is not None and _watch(loop, stdin_fd, lambda: self._on_readable(stdin_fd, decoder))
        reading = None if watching else loop.create_task(self._read(next_chunk, decoder))
        try:
            code = await self._done
        finally:
            if watching:
                loop.remove_reader(stdin_fd)
            if reading is not None:
                reading.cancel()
            with self._active_lock:
                active = list(self._active.values())
            for scope in active:
                scope.abort("extension is shutting down")
            self._peer.close(RuntimeError("the extension is shutting down"))
            await loop.run_in_executor(None, writer.wait_idle, SHUTDOWN_STAGE_TIMEOUT_MS / 1000)
            self._executor.shutdown(wait=False)
        return code

    def _exit(self, code: int) -> None:
        if self._done is not None and not self._done.done():
            self._done.set_result(code)

    async def _read(self, next_chunk: Callable[[], Awaitable[bytes]], decoder: FrameDecoder) -> None:
        while self._feed(decoder, await next_chunk()):
            pass

    def _on_readable(self, fd: int, decoder: FrameDecoder) -> None:
        """The loop's reader callback: one read (it does not block: the descriptor is ready)."""
        try:
            chunk = os.read(fd, 65536)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not self._feed(decoder, chunk):
            asyncio.get_running_loop().remove_reader(fd)

    def _feed(self, decoder: FrameDecoder, chunk: bytes) -> bool:
        """Handles one chunk of input (b"" at EOF); False once reading is over. The frames this
        sends from the loop (inline answers, refusals) leave in one write."""
        writer = self._peer.writer
        writer.cork()
        try:
            frames = decoder.push(chunk) if chunk else decoder.end()
            for value, error in frames:
                if error is None:
                    self._on_value(value)
                elif error.fatal:
                    diagnose(f"unreadable input from the host ({error.message}); exiting")
                    self._exit(1)
                    return False
                else:
                    self._peer.reply_error(None, ErrorCode.PARSE_ERROR, f"parse error: {error.message}")
        finally:
            writer.uncork()
        if not chunk:
            # Stdin EOF is transport loss or final teardown: exit promptly (FRAME-12).
            self._exit(0)
            return False
        return True

    def _on_value(self, value: Any) -> None:
        kind, reason, message_id = parse_envelope(value)
        if kind is None:
            self._peer.reply_error(message_id, ErrorCode.INVALID_REQUEST, f"invalid request: {reason}")
        elif kind == "response":
            self._peer.settle(value)
        elif kind == "notification":
            self._on_notification(value["method"], value.get("params"))
        else:
            self._on_request(value["id"], value["method"], value.get("params"))

    def _on_notification(self, method: str, params: Any) -> None:
        # Legal by the method table: API 0.1 has no cancellation (CANCEL-01), and a lifecycle
        # event needs lifecycle_events negotiated (and a subscription, checked on delivery).
        handler = _NOTIFICATIONS.get(method)
        features = self._link.features if self._link is not None else frozenset()
        if handler is not None and legal_method(method, "host->child", self.api_version, features) is not None:
            handler(self, method, params)
        elif handler is not None and method in _WAVE1_NOTIFICATIONS:
            # A Wave-1 notification this connection did not negotiate: diagnosed, not delivered (WAVE1-02).
            diagnose(f"ignored {method}: its feature was not negotiated")

    def _on_cancel(self, _method: str, params: Any) -> None:
        # The id names a host request only (FRAME-14).
        if isinstance(params, dict):
            reason = params.get("reason")
            scope = self._active.get(params.get("id")) if isinstance(params.get("id"), (int, str)) else None
            if scope is not None:
                said = f": {reason[:256]}" if isinstance(reason, str) else ""
                scope.abort(f"cancelled by the host{said}")

    def _on_lifecycle(self, method: str, params: Any) -> None:
        if method in self._subscribed:
            self._deliver_lifecycle(method, params)

    def _on_message(self, method: str, params: Any) -> None:
        batch = message_params(method, params)
        if batch is None:
            diagnose(f"ignored {method}: not a bounded {{message_id, delta, deltas}} batch")
            return
        self._deliver_lifecycle(method, batch)

    def _deliver_lifecycle(self, event: str, params: Any) -> None:
        if not isinstance(params, dict):
            diagnose(f"ignored {event} without an object of params")
            return
        for entry in self._lifecycle.get(event, []):
            async def run(entry: HandlerEntry = entry) -> None:
                try:
                    if entry.asynchronous:
                        await entry.handler(dict(params))
                    else:
                        await asyncio.get_running_loop().run_in_executor(
                            self._executor, contextvars.copy_context().run, entry.handler, dict(params)
                        )
                except Exception as err:
                    diagnose(f"the {event} handler failed: {type(err).__name__}: {err}")
            self._spawn(run())

    def _on_terminal_lost(self, method: str, params: Any) -> None:
        # The grant's lost event is set first; then each handler runs as a lifecycle one does.
        payload = self._terminal_grants.lost(params)
        if payload is None:
            diagnose(f"ignored an invalid {method}")
            return
        for fn in self._terminal_grants.handlers:
            async def run(fn: Callable[..., Any] = fn) -> None:
                try:
                    if inspect.iscoroutinefunction(fn):
                        await fn(dict(payload))
                    else:
                        await asyncio.get_running_loop().run_in_executor(
                            self._executor, contextvars.copy_context().run, fn, dict(payload)
                        )
                except Exception as err:
                    diagnose(f"the {method} handler failed: {type(err).__name__}: {err}")
            self._spawn(run())

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_request(self, request_id: Any, method: str, params: Any) -> None:
        session = _SESSION_REQUESTS.get(method)
        if session is not None:
            session(self, request_id, params)
            return
        link = self._link
        if link is None:
            self._peer.reply_error(request_id, ErrorCode.UNAVAILABLE, f"{method} before initialize")
            return
        self._start_request(request_id, method, params, link)

    def _answer_initialize(self, request_id: Any, params: Any) -> None:
        try:
            self._peer.reply_result(request_id, "initialize", self._initialize(params, request_id))
        except Exception as err:
            self._peer.reply_failure(request_id, "initialize", err)

    def _answer_shutdown(self, request_id: Any, _params: Any) -> None:
        self._peer.reply_result(request_id, "shutdown", {})
        asyncio.get_running_loop().call_soon(self._exit, 0)

    def _on_shortcut(self, _method: str, params: Any) -> None:
        # shortcut/trigger: only an id this process registered with the host runs (WAVE1-03).
        handler = self._frontend.triggered(params)
        if handler is None:
            return

        async def run() -> None:
            try:
                await self._run_plain(handler)
            except Exception as err:
                diagnose(f"the shortcut handler failed: {type(err).__name__}: {err}")
        self._spawn(run())

    def _answer_complete(self, request_id: Any, params: Any) -> None:
        async def run() -> None:
            try:
                answer = await self._frontend.complete(params, self._link, self._run_plain)
                self._peer.reply_result(request_id, "ui/autocomplete/complete", answer)
            except Exception as err:
                self._peer.reply_failure(request_id, "ui/autocomplete/complete", err)
        self._spawn(run())

    async def _run_plain(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Runs an author callback outside any request: awaited on the loop, or on a worker thread."""
        if inspect.iscoroutinefunction(fn):
            return await fn(*args)
        value = await asyncio.get_running_loop().run_in_executor(self._executor, fn, *args)
        return await value if inspect.isawaitable(value) else value

    def _initialize(self, params: Any, request_id: Any = None) -> Dict[str, Any]:
        if self._link is not None:
            raise WireError(ErrorCode.INVALID_REQUEST, "initialize was already received")
        if not isinstance(params, dict):
            raise WireError(ErrorCode.INVALID_PARAMS, "initialize params must be an object")
        if params.get("api_version") != self.api_version:
            raise WireError(
                ErrorCode.INVALID_PARAMS,
                f"host asked for API {params.get('api_version')!r} but this extension speaks API {self.api_version}; "
                "make the manifest's api_version match",
            )
        contributes = params.get("contributes") if isinstance(params.get("contributes"), dict) else None
        loop = asyncio.get_running_loop()
        tools = [e.definition for e in self._registry.tools.values()]
        commands = [e.definition for e in self._registry.commands.values()]
        if self.api_version == "0.1":
            self._slots = Slots(self.max_concurrent_requests, loop)
            self._link = link = Link(self.api_version, frozenset(), self._peer, loop, contributes)
            self._make_progress = lambda scope: RequestProgress(scope, link)
            return {"api_version": self.api_version, "tools": tools, "commands": commands}
        events = [e for e in LIFECYCLE_EVENTS if e in self._lifecycle]
        n = negotiate(
            params.get("protocol"),
            api=self.api_version,
            max_concurrent=self.max_concurrent_requests,
            lifecycle_events=events,
            tools=tools,
            supported=self._supported,
            dynamic_tools=self._dynamic_tools,
            hooks=self._registry.hooks.keys(),
            shortcuts=self._frontend.wants_shortcuts,
            autocomplete=self._frontend.wants_autocomplete,
        )
        if n["stripped_prompt_metadata"]:
            diagnose(
                "the host did not offer tool_prompt_metadata_v1; the prompt metadata of "
                f"{', '.join(n['stripped_prompt_metadata'])} is not sent"
            )
        if events and "lifecycle_events" not in n["features"]:
            diagnose(f"the host did not offer lifecycle_events; the handlers for {', '.join(events)} will not run")
        self._subscribed = frozenset(n["protocol"].get("lifecycle_events", []))
        self._slots = Slots(n["max_concurrent"], loop)
        self._link = link = Link(self.api_version, n["features"], self._peer, loop, contributes)
        self._make_progress = lambda scope: RequestProgress(scope, link)
        # Inside initialize, before its answer (WAVE1-24); the chain registers once it is answered.
        self._frontend.register_shortcuts(self._link, request_id)
        self._frontend.register_autocomplete(self._link)
        if "dynamic_tools" in n["features"]:
            # Epoch 0 is the catalog sent in this response (CAT-09), definitions as sent.
            self._registry.catalog = ToolCatalog(
                {d["name"]: _with_definition(self._registry.tools[d["name"]], d) for d in n["tools"]}
            )
        elif self._dynamic_tools:
            diagnose("the host did not offer dynamic_tools; register_tools() and unregister_tools() will refuse")
        return {"api_version": self.api_version, "tools": n["tools"], "commands": commands, "protocol": n["protocol"]}


#: The host notifications the runtime acts on, by method; the others are ignored.
_WAVE1_NOTIFICATIONS = frozenset(("shortcut/trigger", *MESSAGE_EVENTS))
_NOTIFICATIONS: Dict[str, Callable[[Serving, str, Any], None]] = {
    "$/cancelRequest": Serving._on_cancel,
    "shortcut/trigger": Serving._on_shortcut,
    **{event: Serving._on_lifecycle for event in LIFECYCLE_EVENTS},
    # message/updated and message/settled: handlers kept beside the lifecycle ones, no subscription.
    **{event: Serving._on_message for event in MESSAGE_EVENTS},
    "terminal/grant-lost": Serving._on_terminal_lost,
}

#: The session requests answered by the runtime itself; content requests go to route().
_SESSION_REQUESTS: Dict[str, Callable[[Serving, Any, Any], None]] = {
    "initialize": Serving._answer_initialize,
    "shutdown": Serving._answer_shutdown,
    "ui/autocomplete/complete": Serving._answer_complete,
}


def _with_definition(entry: HandlerEntry, definition: Dict[str, Any]) -> HandlerEntry:
    return HandlerEntry(definition, entry.handler, entry.with_context, entry.inline)



def _watch(loop: asyncio.AbstractEventLoop, fd: int, callback: Callable[[], None]) -> bool:
    """Whether the loop can wait on `fd` (epoll refuses a regular file, for one): then it reads
    stdin itself, with no reader thread and no handoff per chunk. The descriptor stays blocking
    (it may be shared); a read after readiness returns what is there. A flooding host is held
    back by the pipe: nothing is read while the loop is busy with what was read."""
    try:
        loop.add_reader(fd, callback)
        return True
    except (OSError, ValueError, NotImplementedError):
        return False


def _stdin_chunks() -> Callable[[], Awaitable[bytes]]:
    """Stdin read on a daemon thread (any kind of descriptor, never asyncio's 64 KiB line limit),
    handed to the loop one chunk at a time; b"" is EOF."""
    queue: "Optional[asyncio.Queue[bytes]]" = None

    def reader(target_loop: asyncio.AbstractEventLoop, q: "asyncio.Queue[bytes]") -> None:
        fd = sys.stdin.fileno() if sys.stdin is not None else 0
        while True:
            try:
                chunk = os.read(fd, 65536)
            except InterruptedError:
                continue
            except OSError:
                chunk = b""
            # Bounded hand-off: wait for the loop to take the chunk before reading more, so a
            # flooding host is held back by the pipe, not by our memory.
            asyncio.run_coroutine_threadsafe(q.put(chunk), target_loop).result()
            if not chunk:
                return

    async def next_chunk() -> bytes:
        nonlocal queue
        if queue is None:
            queue = asyncio.Queue(maxsize=16)
            threading.Thread(
                target=reader, args=(asyncio.get_running_loop(), queue), name="octet-stdin-reader", daemon=True
            ).start()
        return await queue.get()

    return next_chunk
