"""``ctx.terminal`` and ``ext.terminal`` (W 2.24, feature terminal_handoff), mirroring
sdk/typescript/src/terminal.ts: borrowing the foreground terminal inside a tool/call or
command/execute handler. ``acquire()`` returns once the frontend has ceded the tty (its line
editor paused, cooked mode, its live line cleared); ``release()`` once it has taken it back. The
grant ends with the handler's request at the latest: the host then takes it back and sends
terminal/grant-lost, which sets the grant's ``lost`` event and runs the ``@ext.on_terminal_grant_lost``
handlers. After a loss the extension must stop writing.

The extension's stdio are the wire, so the terminal itself is the device the host names in
OCTET_TTY; ``open_terminal()`` opens it.
"""
import os
import threading
from typing import Any, Callable, Dict, List, Mapping, Optional

from .peer import Link
from .reverse import parent_of, send
from .scope import RequestScope

__all__ = ["HeldTerminal", "OpenTerminal", "Terminal", "TerminalGrants", "open_terminal"]

#: grant_id is minted by the frontend and bounded (TERM-06); the grant-lost reason (TERM-10).
MAX_TERMINAL_GRANT_ID_BYTES = 128
MAX_TERMINAL_REASON_BYTES = 1024


class HeldTerminal:
    """A live grant: the size the frontend reported, and an event set when the host takes it back."""

    __slots__ = ("grant_id", "columns", "rows", "lost")

    def __init__(self, grant_id: str, columns: int, rows: int) -> None:
        self.grant_id, self.columns, self.rows = grant_id, columns, rows
        #: Set on terminal/grant-lost: stop writing then.
        self.lost = threading.Event()


class TerminalGrants:
    """One extension's grant and grant-lost handlers."""

    def __init__(self) -> None:
        self.held: Optional[HeldTerminal] = None
        self.handlers: List[Callable[..., Any]] = []

    def lost(self, params: Any) -> Optional[Dict[str, str]]:
        """terminal/grant-lost from the host: the payload the handlers get, or None when invalid."""
        if not isinstance(params, dict) or set(params) != {"grant_id", "reason"}:
            return None
        grant_id, reason = params.get("grant_id"), params.get("reason")
        if not _bounded(grant_id, MAX_TERMINAL_GRANT_ID_BYTES) or not _bounded(reason, MAX_TERMINAL_REASON_BYTES):
            return None
        held = self.held
        if held is not None and held.grant_id == grant_id:
            held.lost.set()
            self.held = None
        return {"grant_id": grant_id, "reason": reason}


class Terminal:
    """terminal/acquire and terminal/release for the running request."""

    def __init__(self, link: Callable[[], Optional[Link]], scope: Callable[[], Optional[RequestScope]],
                 grants: TerminalGrants) -> None:
        self._link, self._scope, self._grants = link, scope, grants

    @property
    def available(self) -> bool:
        link = self._link()
        return link is not None and "terminal_handoff" in link.features

    def acquire(self) -> Any:
        """Takes the foreground terminal for this request; a HeldTerminal (blocking in a def
        handler, awaitable in an async def one). Refused while another grant is live."""
        def done(answer: Any) -> HeldTerminal:
            ok = isinstance(answer, dict) and set(answer) == {"grant_id", "columns", "rows"} \
                and _bounded(answer.get("grant_id"), MAX_TERMINAL_GRANT_ID_BYTES) \
                and all(_u16(answer.get(k)) for k in ("columns", "rows"))
            if not ok:
                raise RuntimeError("the host's terminal/acquire answer is invalid: expected {grant_id, columns, rows}")
            held = HeldTerminal(answer["grant_id"], answer["columns"], answer["rows"])
            self._grants.held = held
            return held
        return self._call("acquire", done)

    def release(self) -> Any:
        """Gives the terminal back; returns once the frontend has its prompt again."""
        def done(_answer: Any) -> None:
            self._grants.held = None
        return self._call("release", done)

    def _call(self, what: str, done: Callable[[Any], Any]) -> Any:
        link = self._link()
        if link is None:
            raise RuntimeError(f"terminal.{what}() is available only after the host initialized the extension")
        if "terminal_handoff" not in link.features:
            raise RuntimeError(
                f"terminal.{what}() needs the terminal_handoff feature, which the host did not offer (no "
                "interactive frontend owns a terminal)"
            )
        scope = self._scope()
        if scope is None:
            raise RuntimeError(f"terminal.{what}() must be called from a request handler (no request is running)")
        wire = {"parent_request_id": parent_of(scope, f"terminal.{what}")}

        async def run() -> Any:
            return done(await send(scope, link, f"terminal/{what}", wire))
        return link.call(run)


class OpenTerminal:
    """The terminal device, unbuffered: ``input`` and ``output`` binary files. ``set_raw()``
    switches it to raw mode; ``close()`` restores the mode and closes both (before release())."""

    def __init__(self, path: str) -> None:
        flags = getattr(os, "O_NOCTTY", 0)
        self.input = os.fdopen(os.open(path, os.O_RDONLY | flags), "rb", buffering=0)
        self.output = os.fdopen(os.open(path, os.O_WRONLY | flags), "wb", buffering=0)
        self._saved: Optional[list] = None

    def set_raw(self) -> None:
        import termios
        import tty
        fd = self.input.fileno()
        if self._saved is None:
            self._saved = termios.tcgetattr(fd)
        tty.setraw(fd)

    def close(self) -> None:
        if self._saved is not None:
            import termios
            termios.tcsetattr(self.input.fileno(), termios.TCSADRAIN, self._saved)
            self._saved = None
        self.input.close()
        self.output.close()


def open_terminal(env: Optional[Mapping[str, str]] = None) -> OpenTerminal:
    """Opens the terminal the host named in OCTET_TTY (never as a controlling terminal)."""
    path = (os.environ if env is None else env).get("OCTET_TTY", "")
    if not path:
        raise RuntimeError("OCTET_TTY is not set: the host named no terminal device")
    return OpenTerminal(path)


def _bounded(value: Any, limit: int) -> bool:
    return isinstance(value, str) and value.strip() != "" and len(value.encode("utf-8", "surrogatepass")) <= limit


def _u16(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 65535
