"""The `ctx` an Extension handler receives when it takes a second argument: the request's id,
method, execution context, progress and cancellation, and the helpers that talk to the host on
the request's behalf (blocking in a `def` handler, awaited in an `async def` one)."""
from typing import TYPE_CHECKING, Any, Dict

from .artifacts import publish_artifact
from .peer import Link
from .progress import RequestProgress
from .reverse import confirm as _confirm, request_input as _input
from .scope import RequestScope
from .session import Session
from .message_injection import ActiveTools
from .session_control import SessionControl
from .terminal import Terminal
from .frontend import Composer

if TYPE_CHECKING:
    from .extension import Extension

__all__ = ["HandlerContext"]


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

    @property
    def session(self) -> Session:
        """session_entries parented to this request (tool/call, command/execute or a model-turn hook)."""
        return Session(lambda: self._link, lambda: self._scope)

    @property
    def tools(self) -> ActiveTools:
        """tools/set_active parented to this request (active_tools, W 2.23)."""
        return ActiveTools(lambda: self._link, lambda: self._scope)

    @property
    def session_control(self) -> SessionControl:
        """session_control_v1 / session_compaction_v1 (API 0.4): wait, switch, queued compact."""
        return SessionControl(lambda: self._link, lambda: self._scope,
                              lambda: (self.context or {}).get("resource_owner"))

    @property
    def terminal(self) -> Terminal:
        """terminal_handoff parented to this request (tool/call or command/execute)."""
        return Terminal(lambda: self._link, lambda: self._scope, self._ext._terminal_grants)

    @property
    def composer(self) -> Composer:
        """The host's prompt line (feature composer), parented to this tool/call or command/execute."""
        return Composer(lambda: self._link, lambda: self._scope)

    def publish_artifact(self, source: Any, mime_type: str, **options: Any) -> Any:
        return self._link.call(lambda: publish_artifact(self._scope, self._link, source, mime_type, **options))
