"""The extension runtime: registration of tools, commands, hooks, context, status, renderers and
lifecycle handlers; the initialize handshake and feature negotiation (negotiation.py); dispatch
of host requests under the concurrency limit, each in its request scope (scope.py); cancellation;
notifications; shutdown and stdin EOF. Mirrors sdk/typescript/src/extension.ts.

Threading model: one asyncio event loop reads stdin, routes frames and owns all request state.
`async def` handlers run on it; ordinary `def` handlers run on a worker thread each (at most the
negotiated concurrency limit at once), so a blocking handler never stalls the wire; a tool
registered `inline=True` declares that it never blocks and runs on the loop (request_runner.py). Helpers that
wait for the host (confirm, input, policy, secrets, artifacts, register_tools) block a `def`
handler's thread and are awaited in an `async def` handler. Frames leave only through the one
FrameWriter (writer.py), which owns stdout from the moment the Extension is created.

By concern: registration.py (the decorators), serving.py (the wire loop, handshake and request
handling), handler_context.py (a handler's ctx); this file holds the state and the helpers that
talk to the host.
"""
import asyncio
import threading
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from ._bounds import MAX_CONCURRENT_REQUESTS, MAX_CONTEXT_CONTENT_BYTES, MAX_CONTEXT_LABEL_BYTES, MAX_STATUS_TEXT_BYTES
from ._methods import API_VERSIONS
from .artifacts import publish_artifact
from .catalog import ToolCatalog
from .definitions import TOOL_NAME, HandlerEntry, tool_definition
from .handler_context import HandlerContext
from .terminal import Terminal, TerminalGrants
from .host_services import Policy, Secrets
from .negotiation import check_supported_features
from .peer import Link, RpcPeer
from .presentation import Presentation
from .progress import AmbientProgress
from .registration import Registration, _Registry
from .reverse import confirm as _confirm, request_input as _input
from .scope import Cancellation, RequestScope, current_scope
from .serving import Serving
from .session import Session
from .slots import Slots
from .workers import WorkerPool
from .message_injection import ActiveTools
from .session_control import SessionControl
from .frontend import Composer, Frontend
from .writer import take_stdout

__all__ = ["Extension", "HandlerContext"]

DEFAULT_MAX_CONCURRENT = 16
_LEVELS = ("info", "success", "warning", "error")
_PLACEMENTS = ("system_prefix", "system_suffix", "prompt_prefix", "prompt_suffix")


def _bounded(what: str, value: Any, limit: int, allow_empty: bool = False) -> str:
    if not isinstance(value, str) or (not allow_empty and not value.strip()):
        raise ValueError(f"{what} must be a non-empty str, got {value!r}")
    n = len(value.encode("utf-8", "surrogatepass"))
    if n > limit:
        raise ValueError(f"{what} is {n} bytes, over the {limit}-byte limit")
    return value


class Extension(Registration, Serving):
    """An octet extension. Register handlers with the decorators, then call run()."""

    def __init__(self, api_version: str, max_concurrent_requests: int = DEFAULT_MAX_CONCURRENT,
                 supported_features: Optional[Iterable[str]] = None, dynamic_tools: bool = False) -> None:
        if api_version == "0.3":
            raise ValueError(
                'api_version "0.3" is refused: there is no canonical API 0.3 stdio runtime; use "0.4" (and a '
                'matching manifest)'
            )
        if api_version not in API_VERSIONS:
            raise ValueError(f'api_version must be "0.1", "0.2" or "0.4", got {api_version!r}')
        if (
            isinstance(max_concurrent_requests, bool)
            or not isinstance(max_concurrent_requests, int)
            or not 1 <= max_concurrent_requests <= MAX_CONCURRENT_REQUESTS
        ):
            raise ValueError(
                f"max_concurrent_requests must be an integer from 1 to {MAX_CONCURRENT_REQUESTS}, got "
                f"{max_concurrent_requests!r}"
            )
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
        self._active_lock = threading.Lock()
        self._slots: Optional[Slots] = None
        self._make_progress: Optional[Callable[[RequestScope], Any]] = None
        self._executor: Optional[WorkerPool] = None
        self._done: Optional["asyncio.Future[int]"] = None
        self._running = False
        #: The running request's cancellation token, wherever the handler's code is.
        self.cancellation = Cancellation()
        #: The running request's progress (as ctx.progress); raises outside a request handler.
        self.progress = AmbientProgress(lambda: self._link.features if self._link else frozenset())
        self.presentation = Presentation(lambda: self._link)
        self.policy = Policy(lambda: self._link)
        self.secrets = Secrets(lambda: self._link)
        #: session_entries for the running request (as ctx.session).
        self.session = Session(lambda: self._link, current_scope)
        #: tools/set_active for the running request (as ctx.tools).
        self.tools = ActiveTools(lambda: self._link, current_scope)
        #: session_control_v1 / session_compaction_v1 (as ctx.session_control; retained calls pass the owner).
        self.session_control = SessionControl(lambda: self._link, current_scope)
        #: terminal_handoff for the running request (as ctx.terminal).
        self._terminal_grants = TerminalGrants()
        self.terminal = Terminal(lambda: self._link, current_scope, self._terminal_grants)
        #: The host's prompt line for the running request (as ctx.composer).
        self.composer = Composer(lambda: self._link, current_scope)
        self._frontend = Frontend()
        # Take stdout now, not in run(): a "loading..." print between the two must not reach
        # the host as a non-frame (FRAME-03).
        self._stdout_fd = take_stdout()

    @property
    def features(self) -> List[str]:
        """The features negotiated in initialize (empty before it, and always on API 0.1)."""
        return sorted(self._link.features) if self._link else []

    # ----- talking to the host ---------------------------------------------------------------

    def _require_link(self, what: str) -> Link:
        if self._link is None:
            raise RuntimeError(f"{what}() is available only after the host initialized the extension")
        return self._link

    def on_terminal_grant_lost(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """Decorator: runs `fn({"grant_id", "reason"})` when the host takes a terminal grant back
        (the call ended, shutdown, a revocation); the grant's `lost` event is set first."""
        if not callable(fn):
            raise TypeError(f"a handler must be callable, got {type(fn).__name__}")
        self._terminal_grants.handlers.append(fn)
        return fn

    def shortcut(self, key: str, *, description: str = "") -> Callable[[Callable[[], Any]], Callable[[], Any]]:
        """Decorator binding `key` in the host's line editor (before run(); feature shortcuts). The
        key is lowercase ``+``-joined modifiers (ctrl, alt, shift, meta) and one key (a-z, 0-9,
        f1..f12), e.g. "ctrl+g"; it is sent inside initialize. The handler takes no arguments."""
        if self._link is not None:
            raise RuntimeError("shortcut() after initialize: shortcuts are registered inside initialize")

        def register(fn: Callable[[], Any]) -> Callable[[], Any]:
            self._frontend.add_shortcut(key, fn, description)
            return fn
        return register

    def autocomplete(self, fn: Callable[[Dict[str, Any]], Any]) -> Callable[[Dict[str, Any]], Any]:
        """Decorator: completions for the host's prompt line on Tab (feature autocomplete). The
        handler gets {text, cursor (UTF-8 bytes), revision} and returns None or {prefix, items:
        [{value, label, description?, replace_after_bytes?, cursor_offset_bytes?}]}."""
        if self._link is not None:
            raise RuntimeError("autocomplete() after initialize")
        self._frontend.set_autocomplete(fn)
        return fn

    def notify(self, title: str, message: str, *, level: str = "info") -> None:
        """Sends a user-visible notification (after initialize)."""
        link = self._require_link("notify")
        if level not in _LEVELS:
            raise ValueError(f"notify() level must be one of {', '.join(_LEVELS)}, got {level!r}")
        if not isinstance(title, str) or not isinstance(message, str):
            raise TypeError(
                f"notify() title and message must be str, got {type(title).__name__} and {type(message).__name__}"
            )
        # The title and message bounds are the host's to apply (it truncates, NOTIF-03), as for
        # the TypeScript SDK; the frame bound is checked on send.
        params = {"level": level, "title": title, "message": message}
        link.peer.notify("notification", params)

    def contribute_context(self, label: str, content: str, placement: str = "prompt_suffix") -> None:
        """Pushes unsolicited prompt context (after initialize)."""
        link = self._require_link("contribute_context")
        if placement not in _PLACEMENTS:
            raise ValueError(
                f"contribute_context() placement must be one of {', '.join(_PLACEMENTS)}, got {placement!r}"
            )
        link.peer.notify(
            "context/contribution",
            {
                "label": _bounded("contribute_context() label", label, MAX_CONTEXT_LABEL_BYTES),
                "content": _bounded("contribute_context() content", content, MAX_CONTEXT_CONTENT_BYTES, True),
                "placement": placement,
            },
        )

    def contribute_status(self, surface: str, text: str, style_role: Optional[str] = None, priority: int = 0) -> None:
        """Pushes unsolicited status for a surface the manifest declares (after initialize)."""
        link = self._require_link("contribute_status")
        if surface not in ("status", "header", "footer"):
            raise ValueError(f'contribute_status() surface must be "status", "header" or "footer", got {surface!r}')
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise ValueError(f"contribute_status() priority must be an integer, got {priority!r}")
        link.peer.notify(
            "status/contribution",
            {
                "surface": surface,
                "text": _bounded("contribute_status() text", text, MAX_STATUS_TEXT_BYTES, True),
                "style_role": style_role,
                "priority": priority,
            },
        )

    def _scope(self, what: str):
        link = self._require_link(what)
        scope = current_scope()
        if scope is None:
            raise RuntimeError(
                f"{what}() must be called from a tool/call or command/execute handler (no request is running here)"
            )
        return scope, link

    def confirm(
        self, prompt: str, *, detail: Optional[str] = None, destructive: bool = False, default: bool = False
    ) -> Any:
        """confirmation/request for the running request: True only when confirmed."""
        scope, link = self._scope("confirm")
        return link.call(lambda: _confirm(scope, link, prompt, detail=detail, destructive=destructive, default=default))

    def input(self, prompt: str, *, secret: bool = False) -> Any:
        """input/request (API 0.2+): the answer, or None when there is none."""
        scope, link = self._scope("input")
        return link.call(lambda: _input(scope, link, prompt, secret=secret))

    def publish_artifact(
        self, source: Any, mime_type: str, *, alt: Optional[str] = None, transcript: Optional[str] = None
    ) -> Any:
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
            raise RuntimeError(
                f"{what}(): the host did not offer dynamic_tools, so the tool catalog is fixed for this process"
            )
        return self._registry.catalog

    def register_tools(self, tools: Sequence[Dict[str, Any]]) -> Any:
        """Adds or replaces tools at run time (tools/register). Each entry is a dict of @ext.tool's
        keywords (name, description, parameters, ...) plus "handler". Returns {"revision",
        "tools"}: every tool published now (the host's policy may have left some out)."""
        if isinstance(tools, dict) or not isinstance(tools, (list, tuple)) or len(tools) == 0:
            raise ValueError(
                "register_tools() needs at least one tool: an empty change is not sent (it would only move the epoch)"
            )
        catalog = self._catalog("register_tools")
        entries = []
        for t in tools:
            spec = dict(t) if isinstance(t, dict) else {}
            handler = spec.pop("handler", None)
            if not callable(handler):
                raise TypeError(f"register_tools(): tool {spec.get('name')!r} needs a callable handler")
            inline = spec.pop("inline", False)
            definition = tool_definition(
                self.api_version, spec.pop("name", None), spec.pop("description", None), **spec
            )
            entries.append((definition["name"], HandlerEntry(definition, handler, inline=inline)))
        names = [n for n, _ in entries]
        duplicate = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if duplicate is not None:
            raise ValueError(f'register_tools(): tool "{duplicate}" appears twice; names in one change must be unique')
        link = self._link
        assert link is not None
        return link.call(
            lambda: catalog.mutate(
                lambda current: {**current, **dict(entries)},
                lambda: _request(link, "tools/register", {"tools": [e.definition for _, e in entries]}),
            )
        )

    def unregister_tools(self, names: Sequence[str]) -> Any:
        """Removes tools at run time (tools/unregister). Returns {"revision", "tools"}."""
        if isinstance(names, str) or not isinstance(names, (list, tuple)) or len(names) == 0:
            raise ValueError(
                "unregister_tools() needs at least one name: an empty change is not sent (it would only move the epoch)"
            )
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


async def _request(link: Link, method: str, params: Any) -> Any:
    _, future = link.peer.request(method, params)
    return await future
