"""$/progress for one request (W 2.6, PROG rows), mirroring sdk/typescript/src/progress.ts.

Progress is ephemeral and optional, so it is a silent no-op where the host cannot take it
(request_progress not negotiated, API 0.1, the request already answered, a decoration without
progress_decoration); a call that could never be right (a partial result outside an API 0.4
tool/call, arguments of the wrong type) raises. The host owns the bounds of the text fields and
the output chunking; the SDK checks types, and the frame bound on send.
"""
from typing import Any, Callable, Dict, Optional

from .peer import Link
from .results import to_tool_result
from .scope import RequestScope, current_scope

__all__ = ["RequestProgress", "AmbientProgress"]


def _text(what: str, value: Any, allow_empty: bool = False) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    if not allow_empty and not value.strip():
        raise ValueError(f"{what} must not be empty")
    return value


class RequestProgress:
    def __init__(self, scope: RequestScope, link: Link) -> None:
        self._scope = scope
        self._link = link

    @property
    def enabled(self) -> bool:
        return "request_progress" in self._link.features

    @property
    def decoration_enabled(self) -> bool:
        return self.enabled and "progress_decoration" in self._link.features

    def status(self, message: str, *, current: Optional[float] = None, total: Optional[float] = None,
               unit: Optional[str] = None) -> None:
        event: Dict[str, Any] = {"type": "status", "message": _text("progress.status() message", message)}
        for key, n in (("current", current), ("total", total)):
            if n is None:
                continue
            if isinstance(n, bool) or not isinstance(n, (int, float)) or n != n or n < 0 or n == float("inf"):
                raise ValueError(f"progress.status() {key} must be a finite number >= 0, got {n!r}")
            event[key] = n
        if unit is not None:
            event["unit"] = _text("progress.status() unit", unit)
        self._send(event)

    def output(self, data: str, *, stream: str = "stdout", encoding: str = "utf8") -> None:
        if not isinstance(data, str):
            raise TypeError(f"progress.output() data must be a str, got {type(data).__name__}")
        if stream not in ("stdout", "stderr"):
            raise ValueError(f'progress.output() stream must be "stdout" or "stderr", got {stream!r}')
        if encoding not in ("utf8", "base64"):
            raise ValueError(f'progress.output() encoding must be "utf8" or "base64", got {encoding!r}')
        self._send({"type": "output", "stream": stream, "encoding": encoding, "data": data})

    def decoration(self, label: str, detail: Optional[str] = None) -> None:
        event: Dict[str, Any] = {"type": "decoration", "label": _text("progress.decoration() label", label)}
        if detail is not None:
            event["detail"] = _text("progress.decoration() detail", detail, True)
        if self.decoration_enabled:
            self._send(event)

    def partial_result(self, result: Any) -> None:
        if self._link.api != "0.4" or self._scope.method != "tool/call":
            raise RuntimeError(
                f"progress.partial_result() needs API 0.4 and a tool/call handler (this is API {self._link.api}, "
                f"{self._scope.method})"
            )
        self._send({"type": "partial_result", "result": to_tool_result(result, "0.4")})

    def _send(self, event: Dict[str, Any]) -> None:
        scope = self._scope
        if not self.enabled or not scope.active:
            return
        self._link.peer.notify(
            "$/progress", {"request_id": scope.id, "sequence": scope.next_sequence(), "event": event}
        )


class AmbientProgress:
    """``ext.progress``: the progress of the request whose handler is running. Outside any
    request there is nothing to report on, which is a mistake worth hearing about: it raises."""

    def __init__(self, features: Callable[[], frozenset]) -> None:
        self._features = features

    @property
    def enabled(self) -> bool:
        return "request_progress" in self._features()

    @property
    def decoration_enabled(self) -> bool:
        return self.enabled and "progress_decoration" in self._features()

    def status(self, message: str, **options: Any) -> None:
        self._request("status").status(message, **options)

    def output(self, data: str, **options: Any) -> None:
        self._request("output").output(data, **options)

    def decoration(self, label: str, detail: Optional[str] = None) -> None:
        self._request("decoration").decoration(label, detail)

    def partial_result(self, result: Any) -> None:
        self._request("partial_result").partial_result(result)

    def _request(self, what: str) -> RequestProgress:
        scope = current_scope()
        if scope is None or scope.progress is None:
            raise RuntimeError(
                f"ext.progress.{what}() was called outside a request handler; progress belongs to a host request"
            )
        return scope.progress
