"""The extension runtime: registration of tools, commands, hooks, context, status, renderers and
lifecycle handlers; the initialize handshake and feature negotiation (negotiation.py); dispatch
of host requests under the concurrency limit, each in its request scope (scope.py); cancellation;
notifications; shutdown and stdin EOF. Mirrors sdk/typescript/src/extension.ts.

Threading model: one asyncio event loop reads stdin, routes frames and owns all request state.
`async def` handlers run on it; ordinary `def` handlers run on a worker thread each (at most the
negotiated concurrency limit at once), so a blocking handler never stalls the wire. Helpers that
wait for the host (confirm, input, policy, secrets, artifacts, register_tools) block a `def`
handler's thread and are awaited in an `async def` handler. Frames leave only through the one
FrameWriter (writer.py), which owns stdout from the moment the Extension is created.
"""
import asyncio
import concurrent.futures
import contextvars
import inspect
import os
import sys
import threading
from typing import Any, Awaitable, Callable, Dict, Iterable, List, Optional, Sequence

from ._bounds import (MAX_CONCURRENT_REQUESTS, MAX_CONTEXT_CONTENT_BYTES, MAX_CONTEXT_LABEL_BYTES,
                      MAX_STATUS_TEXT_BYTES,
                      SHUTDOWN_STAGE_TIMEOUT_MS)
from .artifacts import publish_artifact
from .catalog import ToolCatalog
from .definitions import TOOL_NAME, HandlerEntry, command_definition, tool_definition
from .dispatch import HOOK_NAMES, HOOKS_04, route
from .errors import ErrorCode, WireError
from .framing import FrameDecoder, parse_envelope
from .host_services import Policy, Secrets
from .menu_rules import check_menu_handler
from .negotiation import LIFECYCLE_EVENTS, check_supported_features, negotiate
from .peer import Link, RpcPeer, diagnose
from .presentation import Presentation
from .progress import AmbientProgress, RequestProgress
from .reverse import confirm as _confirm, request_input as _input
from .scope import Cancellation, RequestScope, current_scope, set_current
from .writer import FrameWriter, take_stdout

__all__ = ["Extension", "HandlerContext"]

DEFAULT_MAX_CONCURRENT = 16
API_VERSIONS = ("0.1", "0.2", "0.4")
_LEVELS = ("info", "success", "warning", "error")
_PLACEMENTS = ("system_prefix", "system_suffix", "prompt_prefix", "prompt_suffix")


def _bounded(what: str, value: Any, limit: int, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise ValueError(f"{what} must be a non-empty str, got {value!r}")
    n = len(value.encode("utf-8", "surrogatepass"))
    if n > limit:
        raise ValueError(f"{what} is {n} bytes, over the {limit}-byte limit")
    return value


class HandlerContext:
    """The `ctx` a handler receives when it takes a second argument."""

    def __init__(self, ext: "Extension", scope: RequestScope, link: Link, context: Dict[str, Any]) -> None:
        self._ext, self._scope, self._link = ext, scope, link
        self.request_id = scope.id
        self.method = scope.method
        #: The execution context the host sent (workspace, host state, resource_owner...).
        self.context = context
        self.progress: RequestProgress = scope.progress

    @property
    def cancelled(self) -> bool:
        return self._scope.cancelled

    def raise_if_cancelled(self) -> None:
        self._scope.raise_if_cancelled()

    def notify(self, title: str, message: str, *, level: str = "info") -> None:
        self._ext.notify(title, message, level=level)

    def confirm(self, prompt: str, **options: Any) -> Any:
        return self._link.call(lambda: _confirm(self._scope, self._link, prompt, **options))

    def input(self, prompt: str, *, secret: bool = False) -> Any:
        return self._link.call(lambda: _input(self._scope, self._link, prompt, secret=secret))

    def publish_artifact(self, source: Any, mime_type: str, **options: Any) -> Any:
        return self._link.call(lambda: publish_artifact(self._scope, self._link, source, mime_type, **options))


class _Registry:
    def __init__(self) -> None:
        self.tools: Dict[str, HandlerEntry] = {}
        self.commands: Dict[str, HandlerEntry] = {}
        self.hooks: Dict[str, HandlerEntry] = {}
        self.renderers: Dict[str, HandlerEntry] = {}
        self.context_handler: Optional[HandlerEntry] = None
        self.status_handler: Optional[HandlerEntry] = None
        self.menu_handler: Optional[HandlerEntry] = None
        self.catalog: Optional[ToolCatalog] = None

    def tools_at(self, revision: Optional[int]) -> Dict[str, HandlerEntry]:
        return self.catalog.at(revision) if self.catalog is not None else self.tools


class Extension:
    """An octet extension. Register handlers with the decorators, then call run()."""

    def __init__(self, api_version: str, max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT,
                 supported_features: Optional[Iterable[str]] = None, dynamic_tools: bool = False) -> None:
        if api_version == "0.3":
            raise ValueError('api_version "0.3" is refused: there is no canonical API 0.3 stdio runtime; use "0.4" (and a matching manifest)')
        if api_version not in API_VERSIONS:
            raise ValueError(f'api_version must be "0.1", "0.2" or "0.4", got {api_version!r}')
        if isinstance(max_concurrent_requests, bool) or not isinstance(max_concurrent_requests, int) or not 1 <= max_concurrent_requests <= MAX_CONCURRENT_REQUESTS:
            raise ValueError(f"max_concurrent_requests must be an integer from 1 to {MAX_CONCURRENT_REQUESTS}, got {max_concurrent_requests!r}")
        if supported_features is not None and api_version == "0.1":
            raise ValueError("supported_features needs API 0.2 or later (API 0.1 negotiates no features)")
        if dynamic_tools and api_version == "0.1":
            raise ValueError("dynamic_tools needs API 0.2 or later")
        self.api_version = api_version
        self.max_concurrent_requests = max_concurrent_requests
        self._supported = check_supported_features(supported_features)
        self._dynamic_tools = bool(dynamic_tools)
        self._registry = _Registry()
        self._lifecycle: Dict[str, List[HandlerEntry]] = {}
        self._subscribed: frozenset = frozenset()
        self._link: Optional[Link] = None
        self._peer: Optional[RpcPeer] = None
        self._active: Dict[Any, RequestScope] = {}
        self._tasks: set = set()
        self._semaphore: Optional[asyncio.Semaphore] = None
        self._executor: Optional[concurrent.futures.ThreadPoolExecutor] = None
        self._done: Optional["asyncio.Future[int]"] = None
        self._running = False
        #: The running request's cancellation token, wherever the handler's code is.
        self.cancellation = Cancellation()
        #: The running request's progress (as ctx.progress); raises outside a request handler.
        self.progress = AmbientProgress(lambda: self._link.features if self._link else frozenset())
        self.presentation = Presentation(lambda: self._link)
        self.policy = Policy(lambda: self._link)
        self.secrets = Secrets(lambda: self._link)
        # Take stdout now, not in run(): a "loading..." print between the two must not reach
        # the host as a non-frame (FRAME-03).
        self._stdout_fd = take_stdout()

    # ----- registration -------------------------------------------------------------------

    @property
    def features(self) -> List[str]:
        """The features negotiated in initialize (empty before it, and always on API 0.1)."""
        return sorted(self._link.features) if self._link else []

    def tool(self, name: Optional[str] = None, description: Optional[str] = None, *, parameters: Optional[Dict[str, Any]] = None,
             output_schema: Optional[Dict[str, Any]] = None, prompt_snippet: Optional[str] = None,
             prompt_guidelines: Optional[Sequence[str]] = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator registering a dictionary-arguments tool. The handler takes `(args)` or
        `(args, ctx)` and returns a str (one text part) or a dict with `content` (str or content
        parts), `is_error`, `structured_content`, `metadata`. Raising an ordinary exception
        gives an error result; raising WireError answers that error."""
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            tool_name = name if name is not None else fn.__name__
            text = description if description is not None else inspect.getdoc(fn)
            definition = tool_definition(self.api_version, tool_name, text, parameters, output_schema, prompt_snippet, prompt_guidelines)
            self._add_tool(definition, HandlerEntry(definition, fn))
            return fn
        return register

    def _register_tool(self, definition: Dict[str, Any], handler: Callable[..., Any]) -> None:
        """Internal, stable registration used by typed tools (typed.py).

        `definition` is a wire tool definition dict: name, description, parameters and the
        optional output_schema, prompt_snippet, prompt_guidelines; it is checked like @ext.tool's.
        `handler(arguments: dict, ctx)` is called with the arguments dict and the HandlerContext
        and returns what an @ext.tool handler may return (a str, or a dict with content,
        is_error, structured_content, metadata). An `async def` handler is awaited on the event
        loop; a plain function runs on a worker thread, where ext.cancellation, ext.progress and
        the blocking helpers find its request. Raise WireError(-32602, ...) to refuse input.
        """
        checked = tool_definition(self.api_version, definition.get("name"), definition.get("description"), definition.get("parameters"),
                                  definition.get("output_schema"), definition.get("prompt_snippet"), definition.get("prompt_guidelines"))
        self._add_tool(checked, HandlerEntry(checked, handler, with_context=True))

    def typed_tool(self, *args: Any, **kwargs: Any) -> Any:
        from .typed import typed_tool
        return typed_tool(self, *args, **kwargs)

    def _add_tool(self, definition: Dict[str, Any], entry: HandlerEntry) -> None:
        name = definition["name"]
        if self._running:
            raise RuntimeError(f'tool "{name}" registered after run(); use register_tools() with dynamic_tools=True')
        if name in self._registry.tools:
            raise ValueError(f'tool "{name}" is registered twice')
        self._registry.tools[name] = entry

    def command(self, name: Optional[str] = None, description: Optional[str] = None, *, usage: Optional[str] = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: handler `(args: list[str])` or `(args, ctx)` returning a str or
        {"text", "notifications"?, "context"?}."""
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            definition = command_definition(name if name is not None else fn.__name__,
                                            description if description is not None else inspect.getdoc(fn), usage)
            if definition["name"] in self._registry.commands:
                raise ValueError(f'command "{definition["name"]}" is registered twice')
            self._registry.commands[definition["name"]] = HandlerEntry(definition, fn)
            return fn
        return register

    def hook(self, name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: handler `(payload)` or `(payload, ctx)` returning None (continue) or
        {"deny": reason} / {"context": [...], "notifications": [...]}. On API 0.4 also
        "compaction_strategy" and "cache_warming_decision" with their own results."""
        if name in HOOKS_04:
            if self.api_version != "0.4":
                raise ValueError(f'hook "{name}" needs API 0.4 (this extension speaks API {self.api_version})')
        elif name not in HOOK_NAMES:
            raise ValueError(f"unknown hook {name!r}; expected one of {', '.join(HOOK_NAMES + HOOKS_04)}")

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            if name in self._registry.hooks:
                raise ValueError(f'hook "{name}" is registered twice')
            self._registry.hooks[name] = HandlerEntry(None, fn)
            return fn
        return register

    def cache_warming_decision(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator (API 0.4): advice `(payload)` or `(payload, ctx)` returning "warm", "stop"
        or None (no opinion)."""
        return self.hook("cache_warming_decision")(fn)

    def context(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: `(prompt)` or `(prompt, ctx)` returning a list of {label, content, placement?}."""
        self._registry.context_handler = HandlerEntry(None, fn)
        return fn

    def status(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: `(surface)` or `(surface, ctx)` returning None, a str or {text, style_role?, priority?}."""
        self._registry.status_handler = HandlerEntry(None, fn)
        return fn

    def menu(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator (API 0.2+; the manifest needs `menu = true` and a command): `(ctx)` returning
        the menu {"title", "status"?, "detail"?, "items"}, built fresh on each menu/collect. Each
        action runs a declared command with literal arguments; the host checks the rules and
        shows its generated menu (one entry per command) when they are broken or there is no
        handler. See docs/sdk-options.md."""
        if self.api_version == "0.1":
            raise ValueError("menu needs API 0.2 or later (menu/collect is not part of API 0.1)")
        check_menu_handler(fn)
        # One menu per extension: a second handler would silently replace the first, unlike tools.
        if self._registry.menu_handler is not None:
            raise ValueError("menu is registered twice; an extension has one menu handler")
        self._registry.menu_handler = HandlerEntry(None, fn, with_context=True)
        return fn

    def renderer(self, tool_name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator: `(input)` or `(input, ctx)`, input {name, arguments, output, is_error},
        returning a str or a list of {text, style_role} segments."""
        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            if tool_name in self._registry.renderers:
                raise ValueError(f'renderer for "{tool_name}" is registered twice')
            self._registry.renderers[tool_name] = HandlerEntry(None, fn)
            return fn
        return register

    def on(self, event: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        """Decorator subscribing to a lifecycle notification (API 0.2+, before run()). Runs only
        if the host offered lifecycle_events; best-effort: never awaited by dispatch, takes no
        concurrency slot, and what it raises goes to stderr."""
        if self.api_version == "0.1":
            raise ValueError(f"lifecycle events need API 0.2 or later (this extension speaks API {self.api_version})")
        if event not in LIFECYCLE_EVENTS:
            raise ValueError(f"unknown lifecycle event {event!r}; expected one of {', '.join(LIFECYCLE_EVENTS)}")
        if self._link is not None:
            raise RuntimeError(f'on("{event}") after initialize: the subscription was already negotiated')

        def register(fn: Callable[..., Any]) -> Callable[..., Any]:
            self._lifecycle.setdefault(event, []).append(HandlerEntry(None, fn, with_context=False))
            return fn
        return register

    # ----- talking to the host ---------------------------------------------------------------

    def _require_link(self, what: str) -> Link:
        if self._link is None:
            raise RuntimeError(f"{what}() is available only after the host initialized the extension")
        return self._link

    def notify(self, title: str, message: str, *, level: str = "info") -> None:
        """Sends a user-visible notification (after initialize)."""
        link = self._require_link("notify")
        if level not in _LEVELS:
            raise ValueError(f"notify() level must be one of {', '.join(_LEVELS)}, got {level!r}")
        if not isinstance(title, str) or not isinstance(message, str):
            raise TypeError(f"notify() title and message must be str, got {type(title).__name__} and {type(message).__name__}")
        # The title and message bounds are the host's to apply (it truncates, NOTIF-03), as for
        # the TypeScript SDK; the frame bound is checked on send.
        params = {"level": level, "title": title, "message": message}
        link.peer.notify("notification", params)

    def contribute_context(self, label: str, content: str, placement: str = "prompt_suffix") -> None:
        """Pushes unsolicited prompt context (after initialize)."""
        link = self._require_link("contribute_context")
        if placement not in _PLACEMENTS:
            raise ValueError(f"contribute_context() placement must be one of {', '.join(_PLACEMENTS)}, got {placement!r}")
        link.peer.notify("context/contribution", {"label": _bounded("contribute_context() label", label, MAX_CONTEXT_LABEL_BYTES),
                                                  "content": _bounded("contribute_context() content", content, MAX_CONTEXT_CONTENT_BYTES, True),
                                                  "placement": placement})

    def contribute_status(self, surface: str, text: str, style_role: Optional[str] = None, priority: int = 0) -> None:
        """Pushes unsolicited status for a surface the manifest declares (after initialize)."""
        link = self._require_link("contribute_status")
        if surface not in ("status", "header", "footer"):
            raise ValueError(f'contribute_status() surface must be "status", "header" or "footer", got {surface!r}')
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise ValueError(f"contribute_status() priority must be an integer, got {priority!r}")
        link.peer.notify("status/contribution", {"surface": surface, "text": _bounded("contribute_status() text", text, MAX_STATUS_TEXT_BYTES, True),
                                                 "style_role": style_role, "priority": priority})

    def _scope(self, what: str):
        link = self._require_link(what)
        scope = current_scope()
        if scope is None:
            raise RuntimeError(f"{what}() must be called from a tool/call or command/execute handler (no request is running here)")
        return scope, link

    def confirm(self, prompt: str, *, detail: Optional[str] = None, destructive: bool = False, default: bool = False) -> Any:
        """confirmation/request for the running request: True only when confirmed."""
        scope, link = self._scope("confirm")
        return link.call(lambda: _confirm(scope, link, prompt, detail=detail, destructive=destructive, default=default))

    def input(self, prompt: str, *, secret: bool = False) -> Any:
        """input/request (API 0.2+): the answer, or None when there is none."""
        scope, link = self._scope("input")
        return link.call(lambda: _input(scope, link, prompt, secret=secret))

    def publish_artifact(self, source: Any, mime_type: str, *, alt: Optional[str] = None, transcript: Optional[str] = None) -> Any:
        """artifact/publish (API 0.2+, `artifacts` negotiated): bytes, or {"path": p} relative to
        OCTET_EXTENSION_SCRATCH. Returns {"artifact_id", "mime_type", "part"}."""
        scope, link = self._scope("publish_artifact")
        return link.call(lambda: publish_artifact(scope, link, source, mime_type, alt=alt, transcript=transcript))

    def evaluate_policy(self, operation: str, target: Dict[str, str], **options: Any) -> Any:
        """ext.policy.evaluate(): {"decision", "approval_token"?}."""
        return self.policy.evaluate(operation, target, **options)

    def get_secret(self, name: str) -> Any:
        """ext.secrets.get(): the value of a declared secret."""
        return self.secrets.get(name)

    # ----- dynamic tools -----------------------------------------------------------------------

    def _catalog(self, what: str) -> ToolCatalog:
        if not self._dynamic_tools:
            raise RuntimeError(f"{what}() needs Extension(..., dynamic_tools=True)")
        self._require_link(what)
        if self._registry.catalog is None:
            raise RuntimeError(f"{what}(): the host did not offer dynamic_tools, so the tool catalog is fixed for this process")
        return self._registry.catalog

    def register_tools(self, tools: Sequence[Dict[str, Any]]) -> Any:
        """Adds or replaces tools at run time (tools/register). Each entry is a dict of @ext.tool's
        keywords (name, description, parameters, ...) plus "handler". Returns {"revision",
        "tools"}: every tool published now (the host's policy may have left some out)."""
        if isinstance(tools, dict) or not isinstance(tools, (list, tuple)) or len(tools) == 0:
            raise ValueError("register_tools() needs at least one tool: an empty change is not sent (it would only move the epoch)")
        catalog = self._catalog("register_tools")
        entries = []
        for t in tools:
            spec = dict(t) if isinstance(t, dict) else {}
            handler = spec.pop("handler", None)
            if not callable(handler):
                raise TypeError(f"register_tools(): tool {spec.get('name')!r} needs a callable handler")
            definition = tool_definition(self.api_version, spec.pop("name", None), spec.pop("description", None), **spec)
            entries.append((definition["name"], HandlerEntry(definition, handler)))
        names = [n for n, _ in entries]
        duplicate = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if duplicate is not None:
            raise ValueError(f'register_tools(): tool "{duplicate}" appears twice; names in one change must be unique')
        link = self._link
        assert link is not None
        return link.call(lambda: catalog.mutate(lambda current: {**current, **dict(entries)},
                                                lambda: _request(link, "tools/register", {"tools": [e.definition for _, e in entries]})))

    def unregister_tools(self, names: Sequence[str]) -> Any:
        """Removes tools at run time (tools/unregister). Returns {"revision", "tools"}."""
        if isinstance(names, str) or not isinstance(names, (list, tuple)) or len(names) == 0:
            raise ValueError("unregister_tools() needs at least one name: an empty change is not sent (it would only move the epoch)")
        catalog = self._catalog("unregister_tools")
        for n in names:
            if not isinstance(n, str) or not TOOL_NAME.match(n):
                raise ValueError(f"unregister_tools(): {n!r} is not a tool name (^[A-Za-z0-9_-]{{1,128}}$)")
        duplicate = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if duplicate is not None:
            raise ValueError(f'unregister_tools(): "{duplicate}" appears twice; names in one change must be unique')
        link = self._link
        assert link is not None
        return link.call(lambda: catalog.mutate(lambda current: {k: v for k, v in current.items() if k not in names},
                                                lambda: _request(link, "tools/unregister", {"names": list(names)})))

    @property
    def catalog_revision(self) -> Optional[int]:
        """The current catalog epoch (0 = initialize), or None without dynamic_tools negotiated."""
        return self._registry.catalog.revision if self._registry.catalog is not None else None

    # ----- serving ------------------------------------------------------------------------------

    def run(self) -> None:
        """Serves the host on stdin/stdout until `shutdown` or stdin EOF, then exits the process
        (code 0; 1 when the host's input was unreadable)."""
        if self._running:
            raise RuntimeError("run() was called twice")
        writer = FrameWriter.for_fd(self._stdout_fd)
        code = asyncio.run(self._serve(_stdin_chunks(), writer))
        try:
            sys.stderr.flush()
        finally:
            # Handler threads still running (shutdown does not wait for requests in flight) must
            # not hold the exit: leave without joining them.
            os._exit(code)

    async def _serve(self, next_chunk: Callable[[], Awaitable[bytes]], writer: FrameWriter) -> int:
        """Serves one connection: `next_chunk()` returns input bytes (b"" at EOF); frames go to
        `writer`. Returns the exit code. Tests drive this directly."""
        self._running = True
        loop = asyncio.get_running_loop()
        writer.never_wait_on(threading.current_thread())
        self._peer = RpcPeer(writer)
        self._done = loop.create_future()
        self._executor = concurrent.futures.ThreadPoolExecutor(self.max_concurrent_requests + 2, thread_name_prefix="octet-handler")
        reading = loop.create_task(self._read(next_chunk))
        try:
            code = await self._done
        finally:
            reading.cancel()
            for scope in list(self._active.values()):
                scope.abort("extension is shutting down")
            self._peer.close(RuntimeError("the extension is shutting down"))
            await loop.run_in_executor(None, writer.wait_idle, SHUTDOWN_STAGE_TIMEOUT_MS / 1000)
            self._executor.shutdown(wait=False)
        return code

    def _exit(self, code: int) -> None:
        if self._done is not None and not self._done.done():
            self._done.set_result(code)

    async def _read(self, next_chunk: Callable[[], Awaitable[bytes]]) -> None:
        decoder = FrameDecoder()
        while True:
            chunk = await next_chunk()
            frames = decoder.push(chunk) if chunk else decoder.end()
            for value, error in frames:
                if error is None:
                    self._on_value(value)
                elif error.fatal:
                    diagnose(f"unreadable input from the host ({error.message}); exiting")
                    self._exit(1)
                    return
                else:
                    self._peer.reply_error(None, ErrorCode.PARSE_ERROR, f"parse error: {error.message}")
            if not chunk:
                # Stdin EOF is transport loss or final teardown: exit promptly (FRAME-12).
                self._exit(0)
                return

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
        # API 0.1 has no cancellation (CANCEL-01). The id names a host request only (FRAME-14).
        if method == "$/cancelRequest":
            if self.api_version != "0.1" and isinstance(params, dict):
                reason = params.get("reason")
                scope = self._active.get(params.get("id")) if isinstance(params.get("id"), (int, str)) else None
                if scope is not None:
                    scope.abort(f"cancelled by the host: {reason[:256]}" if isinstance(reason, str) else "cancelled by the host")
            return
        if method in self._subscribed:
            self._deliver_lifecycle(method, params)

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
                        await asyncio.get_running_loop().run_in_executor(self._executor, contextvars.copy_context().run, entry.handler, dict(params))
                except Exception as err:
                    diagnose(f"the {event} handler failed: {type(err).__name__}: {err}")
            self._spawn(run())

    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _on_request(self, request_id: Any, method: str, params: Any) -> None:
        peer = self._peer
        if method == "initialize":
            try:
                peer.reply_result(request_id, method, self._initialize(params))
            except Exception as err:
                peer.reply_failure(request_id, method, err)
            return
        if method == "shutdown":
            peer.reply_result(request_id, method, {})
            asyncio.get_running_loop().call_soon(self._exit, 0)
            return
        link = self._link
        if link is None:
            peer.reply_error(request_id, ErrorCode.UNAVAILABLE, f"{method} before initialize")
            return
        scope = RequestScope(request_id, method)
        scope.progress = RequestProgress(scope, link)
        self._active[request_id] = scope
        self._spawn(self._handle(scope, link, params))

    async def _handle(self, scope: RequestScope, link: Link, params: Any) -> None:
        set_current(scope)  # this task's own context: the handler and what it starts see it
        outcome: Any = None
        failure: Optional[BaseException] = None
        acquired = False
        try:
            acquired = await self._slot(scope)
            # Cancelled while waiting for a slot: answer without running the handler, so no
            # work (and no side effect) starts after the host gave up on it.
            scope.raise_if_cancelled()
            outcome = await route(scope.method, params, self._registry, self.api_version, lambda: scope.cancelled,
                                  lambda entry, args, context: self._invoke(entry, args, scope, link, context))
        except asyncio.CancelledError:
            return  # the loop is closing (shutdown or EOF): nothing is answered any more
        except BaseException as err:
            failure = err
            if scope.cancelled and self.api_version != "0.1":
                failure = WireError(ErrorCode.REQUEST_CANCELLED, f"request {scope.id} was cancelled")
        finally:
            if acquired:
                self._semaphore.release()
            # The response is decided: nothing more may be sent for this request.
            scope.settle()
            if self._active.get(scope.id) is scope:
                del self._active[scope.id]
        if failure is not None:
            self._peer.reply_failure(scope.id, scope.method, failure)
        else:
            self._peer.reply_result(scope.id, scope.method, outcome)

    async def _slot(self, scope: RequestScope) -> bool:
        """Waits for a concurrency slot (True) or for the request's cancellation (False), whichever
        comes first: a request cancelled while queued is answered at once, not when a running
        handler frees its slot (the host ends a generation that leaves a cancelled request
        unanswered past its 2 s grace, CANCEL-07)."""
        semaphore = self._semaphore
        if not semaphore.locked():
            await semaphore.acquire()
            return True
        acquire = asyncio.ensure_future(semaphore.acquire())
        cancelled = asyncio.get_running_loop().create_future()
        remove = scope.on_abort(lambda _err: cancelled.done() or cancelled.set_result(None))
        try:
            await asyncio.wait({acquire, cancelled}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            remove()
            if not cancelled.done():
                cancelled.cancel()
            if not acquire.done():
                # Cancelled first (or the loop is closing): give the place in the queue up; a
                # slot granted meanwhile goes back to the semaphore (asyncio does that on cancel).
                acquire.cancel()
        return acquire.done() and not acquire.cancelled()

    async def _invoke(self, entry: HandlerEntry, args: tuple, scope: RequestScope, link: Link, context: Dict[str, Any]) -> Any:
        if entry.with_context:
            args = args + (HandlerContext(self, scope, link, context),)
        if entry.asynchronous:
            return await entry.handler(*args)
        loop = asyncio.get_running_loop()
        value = await loop.run_in_executor(self._executor, contextvars.copy_context().run, entry.handler, *args)
        if inspect.isawaitable(value):
            value = await value
        return value

    def _initialize(self, params: Any) -> Dict[str, Any]:
        if self._link is not None:
            raise WireError(ErrorCode.INVALID_REQUEST, "initialize was already received")
        if not isinstance(params, dict):
            raise WireError(ErrorCode.INVALID_PARAMS, "initialize params must be an object")
        if params.get("api_version") != self.api_version:
            raise WireError(ErrorCode.INVALID_PARAMS, f"host asked for API {params.get('api_version')!r} but this extension speaks API {self.api_version}; make the manifest's api_version match")
        contributes = params.get("contributes") if isinstance(params.get("contributes"), dict) else None
        loop = asyncio.get_running_loop()
        tools = [e.definition for e in self._registry.tools.values()]
        commands = [e.definition for e in self._registry.commands.values()]
        if self.api_version == "0.1":
            self._semaphore = asyncio.Semaphore(self.max_concurrent_requests)
            self._link = Link(self.api_version, frozenset(), self._peer, loop, contributes)
            return {"api_version": self.api_version, "tools": tools, "commands": commands}
        events = [e for e in LIFECYCLE_EVENTS if e in self._lifecycle]
        n = negotiate(params.get("protocol"), api=self.api_version, max_concurrent=self.max_concurrent_requests,
                      lifecycle_events=events, tools=tools, supported=self._supported, dynamic_tools=self._dynamic_tools,
                      hooks=self._registry.hooks.keys())
        if n["stripped_prompt_metadata"]:
            diagnose(f"the host did not offer tool_prompt_metadata_v1; the prompt metadata of {', '.join(n['stripped_prompt_metadata'])} is not sent")
        if events and "lifecycle_events" not in n["features"]:
            diagnose(f"the host did not offer lifecycle_events; the handlers for {', '.join(events)} will not run")
        self._subscribed = frozenset(n["protocol"].get("lifecycle_events", []))
        self._semaphore = asyncio.Semaphore(n["max_concurrent"])
        self._link = Link(self.api_version, n["features"], self._peer, loop, contributes)
        if "dynamic_tools" in n["features"]:
            # Epoch 0 is the catalog sent in this response (CAT-09), definitions as sent.
            self._registry.catalog = ToolCatalog({d["name"]: _with_definition(self._registry.tools[d["name"]], d) for d in n["tools"]})
        elif self._dynamic_tools:
            diagnose("the host did not offer dynamic_tools; register_tools() and unregister_tools() will refuse")
        return {"api_version": self.api_version, "tools": n["tools"], "commands": commands, "protocol": n["protocol"]}


def _with_definition(entry: HandlerEntry, definition: Dict[str, Any]) -> HandlerEntry:
    return HandlerEntry(definition, entry.handler, entry.with_context)


async def _request(link: Link, method: str, params: Any) -> Any:
    _, future = link.peer.request(method, params)
    return await future


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
            threading.Thread(target=reader, args=(asyncio.get_running_loop(), queue), name="octet-stdin-reader", daemon=True).start()
        return await queue.get()

    return next_chunk
