"""octet_extension: the Python SDK for octet extensions (standard library only).

    from octet_extension import Extension

    ext = Extension(api_version="0.4", max_concurrent_requests=1)

    @ext.tool(name="hello", description="Return a local greeting")
    def hello(args):
        ext.cancellation.raise_if_cancelled()
        return "Hello from octet."

    ext.run()
"""
from .advisory import CacheWarmingAction, CacheWarmingDecision, CacheWarmingDecisionPayload
from .dispatch import cache_warming_decision
from .errors import ErrorCode, RequestCancelled, WireError
from .extension import Extension, HandlerContext
from .negotiation import LIFECYCLE_EVENTS, REQUIRED_FEATURES, SDK_FEATURES
from .terminal import HeldTerminal, OpenTerminal, open_terminal
from .typed import TypedInputError, TypedResult, TypedToolError
from .diagnostics import (ArtifactSource, BlobSource, Diagnostic, DiagnosticAttachment, DiagnosticEdit, DiagnosticFix,
                          DiagnosticLocation, DiagnosticRelated, DiagnosticSpan, WorkspaceSource, tool_result,
                          with_diagnostics)

#: The SDK distribution version, independent of the extension API version (PY-02).
__version__ = "0.9.5"

__all__ = [
    "Extension", "HandlerContext", "WireError", "ErrorCode", "RequestCancelled", "cache_warming_decision",
    "LIFECYCLE_EVENTS", "REQUIRED_FEATURES", "SDK_FEATURES", "__version__",
    "TypedResult", "TypedInputError", "TypedToolError", "Diagnostic", "DiagnosticLocation", "DiagnosticSpan",
    "WorkspaceSource", "BlobSource", "ArtifactSource", "DiagnosticRelated", "DiagnosticFix", "DiagnosticEdit",
    "DiagnosticAttachment", "tool_result", "with_diagnostics",
    "CacheWarmingAction", "CacheWarmingDecision", "CacheWarmingDecisionPayload",
    "HeldTerminal", "OpenTerminal", "open_terminal",
]
