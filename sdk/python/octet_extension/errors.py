"""The two error families of the wire, on the extension's side.

WireError travels as a JSON-RPC error object (numeric code, message whose first word is the
contract token, optional data). Everything else an author's handler raises is a local failure
that dispatch turns into a tool error result or -32603. RequestCancelled is what the ambient
cancellation token raises; the SDK answers it -32800.
"""
from typing import Any

__all__ = ["ErrorCode", "WireError", "RequestCancelled", "author_error", "is_server_error_code"]


class ErrorCode:
    """JSON-RPC and octet error codes (ERR-01..05)."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602
    INTERNAL_ERROR = -32603
    REQUEST_CANCELLED = -32800
    #: No active owner or service, ownership failure, exhausted budget, invalid operation.
    UNAVAILABLE = -32002
    SECRET_UNAVAILABLE = -32004
    LIFECYCLE_EXHAUSTED = -32012


SERVER_ERROR_MIN = -32099
SERVER_ERROR_MAX = -32000

_MISSING = object()


class WireError(Exception):
    """An error that goes on the wire as ``{code, message, data?}``."""

    def __init__(self, code: int, message: str, data: Any = _MISSING) -> None:
        if not isinstance(code, int) or isinstance(code, bool):
            raise TypeError(f"WireError code must be an integer, got {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    @property
    def has_data(self) -> bool:
        return self.data is not _MISSING

    def to_json(self) -> dict:
        out: dict = {"code": self.code, "message": self.message}
        if self.has_data:
            out["data"] = self.data
        return out

    def __repr__(self) -> str:
        return f"WireError({self.code}, {self.message!r})"


class RequestCancelled(WireError):
    """Raised by ``raise_if_cancelled()`` once the host cancelled the running request."""

    def __init__(self, message: str = "request cancelled") -> None:
        super().__init__(ErrorCode.REQUEST_CANCELLED, message)


def is_server_error_code(code: int) -> bool:
    return SERVER_ERROR_MIN <= code <= SERVER_ERROR_MAX


def author_error(err: BaseException) -> BaseException:
    """A handler may raise a server code (-32000..-32099, ERR-03) or -32602/-32603/-32800; any
    other code would impersonate the protocol (-32601 means "unknown method") and becomes -32603,
    keeping the message."""
    if not isinstance(err, WireError):
        return err
    allowed = is_server_error_code(err.code) or err.code in (
        ErrorCode.INVALID_PARAMS, ErrorCode.INTERNAL_ERROR, ErrorCode.REQUEST_CANCELLED)
    if allowed:
        return err
    data = err.data if err.has_data else _MISSING
    return WireError(
        ErrorCode.INTERNAL_ERROR,
        f"{err.message} (the extension used code {err.code}, outside the -32000..-32099 server range)",
        data,
    )


def to_wire_error(err: BaseException) -> dict:
    """The single boundary where anything raised becomes the wire error object sent back."""
    if isinstance(err, WireError):
        return err.to_json()
    message = str(err)
    return {"code": ErrorCode.INTERNAL_ERROR, "message": message or "Internal error"}

