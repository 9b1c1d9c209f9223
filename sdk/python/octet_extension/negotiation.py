"""The extension's side of API 0.2/0.4 feature negotiation (W 1.1, INIT-13..28), mirroring
sdk/typescript/src/negotiation.ts. Pure: given the host's offer and what the author registered,
the `protocol` member of the initialize result and the catalog as it may be sent.

Rules: the required features always; an optional feature only when the host offered it, the
author's `supported_features` allows it and the SDK has a use for it (never one not offered,
INIT-19/20); lifecycle_events only with a registered handler, subscribing exactly the handled
events; tool_prompt_metadata_v1 only on API 0.4 with a tool that declares prompt metadata
(without it that metadata is left out of the catalog rather than failing the start); the API 0.4
hook features only with their hook registered.
"""
from typing import Any, Dict, Iterable, List, Optional, Sequence

__all__ = ["REQUIRED_FEATURES", "SDK_FEATURES", "LIFECYCLE_EVENTS", "negotiate", "check_supported_features"]

REQUIRED_FEATURES = ("request_cancellation", "content_parts")

#: Every optional feature this SDK implements: the default `supported_features` (PY-05).
SDK_FEATURES = (
    "request_progress",
    "progress_decoration",
    "artifacts",
    "lifecycle_events",
    "tool_prompt_metadata_v1",
    "dynamic_tools",
    "policy_intents",
    "approvals",
    "secrets",
    "session_entries",
    "message_injection",
    "active_tools",
    "session_control_v1",
    "session_compaction_v1",
    "terminal_handoff",
    "composer",
    "shortcuts",
    "autocomplete",
    "autocomplete_edit_v1",
    "compaction_strategy",
    "cache_warming_decision",
)

LIFECYCLE_EVENTS = (
    "session/started",
    "session/settled",
    "turn/started",
    "turn/settled",
    "tool/started",
    "tool/settled",
)


def check_supported_features(features: Optional[Iterable[str]]) -> frozenset:
    """The author's explicit feature list, checked: it must include the required features
    (PY-05) and name only features this SDK implements."""
    if features is None:
        return frozenset(REQUIRED_FEATURES + SDK_FEATURES)
    if isinstance(features, str):
        raise TypeError("supported_features must be a list of feature names, not a string")
    chosen = list(features)
    for name in chosen:
        if not isinstance(name, str):
            raise TypeError(f"supported_features entries must be strings, got {name!r}")
    missing = [f for f in REQUIRED_FEATURES if f not in chosen]
    if missing:
        raise ValueError(
            "supported_features must include the required features request_cancellation and content_parts; missing "
            f"{', '.join(missing)}"
        )
    unknown = [f for f in chosen if f not in REQUIRED_FEATURES and f not in SDK_FEATURES]
    if unknown:
        raise ValueError(
            f"supported_features names feature(s) this SDK does not implement: {', '.join(unknown)}; it implements "
            f"{', '.join(SDK_FEATURES)}"
        )
    return frozenset(chosen)


def has_prompt_metadata(tool: Dict[str, Any]) -> bool:
    return "prompt_snippet" in tool or "prompt_guidelines" in tool


def negotiate(offer: Any, *, api: str, max_concurrent: int, lifecycle_events: Sequence[str],
              tools: Sequence[Dict[str, Any]], supported: frozenset, dynamic_tools: bool = False,
              hooks: Iterable[str] = (), shortcuts: bool = False, autocomplete: bool = False) -> Dict[str, Any]:
    """Returns {protocol, features, max_concurrent, tools, stripped_prompt_metadata}."""
    protocol = offer if isinstance(offer, dict) else {}
    offered = set(_strings(protocol.get("required_features"))) | set(_strings(protocol.get("optional_features")))
    features: List[str] = list(REQUIRED_FEATURES)
    hooks = set(hooks)

    def select(name: str, wanted: bool) -> bool:
        take = wanted and name in offered and name in supported
        if take:
            features.append(name)
        return take

    progress = select("request_progress", True)
    select("progress_decoration", progress)
    select("artifacts", True)
    lifecycle = select("lifecycle_events", len(lifecycle_events) > 0)
    with_metadata = [t for t in tools if has_prompt_metadata(t)]
    prompt_metadata = select("tool_prompt_metadata_v1", api == "0.4" and len(with_metadata) > 0)
    select("dynamic_tools", dynamic_tools)
    select("approvals", select("policy_intents", True))
    select("secrets", True)
    # ctx.session; it also gates the model-turn hooks (W 1.4b). Offered only with a session writer bound.
    select("session_entries", True)
    # ctx.session.send_message / send_user_message and the message/updated stream; ctx.tools.set_active.
    select("message_injection", True)
    select("active_tools", True)
    # ctx.session_control (W 2.21b, 2.21c): compaction only with control, as INIT-34 requires.
    select("session_compaction_v1", select("session_control_v1", api == "0.4"))
    # ctx.terminal: offered only with a frontend that owns a terminal (W 2.24).
    select("terminal_handoff", True)
    # ctx.composer always when offered; shortcuts and autocomplete only with something registered.
    select("composer", True)
    select("shortcuts", shortcuts)
    select("autocomplete_edit_v1", select("autocomplete", autocomplete) and api == "0.4")
    select("compaction_strategy", api == "0.4" and "compaction_strategy" in hooks)
    select("cache_warming_decision", api == "0.4" and "cache_warming_decision" in hooks)

    limits = protocol.get("limits") if isinstance(protocol.get("limits"), dict) else {}
    cap = limits.get("max_concurrent_requests")
    if isinstance(cap, (int, float)) and not isinstance(cap, bool) and cap == cap and cap >= 1 and cap != float("inf"):
        host_cap = int(cap)
    else:
        host_cap = max_concurrent
    negotiated_max = max(1, min(max_concurrent, host_cap))

    result: Dict[str, Any] = {
        "version": api,
        "features": features,
        "limits": {"max_concurrent_requests": negotiated_max},
    }
    if lifecycle:
        result["lifecycle_events"] = list(lifecycle_events)
    sent = list(tools) if prompt_metadata else [_without_prompt_metadata(t) for t in tools]
    return {
        "protocol": result,
        "features": frozenset(features),
        "max_concurrent": negotiated_max,
        "tools": sent,
        "stripped_prompt_metadata": [] if prompt_metadata else [t["name"] for t in with_metadata],
    }


def _without_prompt_metadata(tool: Dict[str, Any]) -> Dict[str, Any]:
    if not has_prompt_metadata(tool):
        return tool
    return {k: v for k, v in tool.items() if k not in ("prompt_snippet", "prompt_guidelines")}


def _strings(value: Any) -> List[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []
