"""What a handler returned, as the wire result of its method and API version. Kept apart from
dispatch so every mapping is testable without a process. Author shapes use the wire's
snake_case member names, so a dict a handler returns reads like the frame it becomes."""
from typing import Any, Dict, List, Optional

__all__ = ["to_tool_result", "to_notification", "to_context", "to_command_result", "to_hook_result",
           "to_status_result", "to_render_result"]

_TOOL_KEYS = frozenset(["content", "is_error", "structured_content", "metadata"])


def to_tool_result(value: Any, api: str) -> Dict[str, Any]:
    """A tool handler's value: a str (one text part), or a dict with `content` (a str or a list
    of content parts) and optional `is_error`, `structured_content`, `metadata`."""
    if type(value) is str and api != "0.1":
        return {"content": [{"type": "text", "text": value}], "is_error": False}  # what the rest makes of it
    obj = {"content": value} if isinstance(value, str) else value
    if not isinstance(obj, dict):
        kind = "None" if obj is None else type(obj).__name__
        raise TypeError(f"a tool handler must return a str or a dict with content, got {kind}")
    unknown = sorted(k for k in obj if k not in _TOOL_KEYS)
    if unknown:
        raise TypeError(
            f"a tool result has unknown member(s) {', '.join(unknown)}; expected content, is_error, "
            "structured_content, metadata"
        )
    content = obj.get("content")
    if not isinstance(content, (str, list)):
        raise TypeError(
            f"a tool result's content must be a str or a list of content parts, got {type(content).__name__}"
        )
    is_error = obj.get("is_error") is True
    if api == "0.1":
        text = (
            content
            if isinstance(content, str)
            else "\n".join(
                p["text"]
                for p in content
                if isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str)
            )
        )
        out: Dict[str, Any] = {"content": text, "is_error": is_error}
        if obj.get("metadata") is not None:
            out["metadata"] = obj["metadata"]
        return out
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    out = {"content": parts, "is_error": is_error}
    if obj.get("structured_content") is not None:
        out["structured_content"] = obj["structured_content"]
    if obj.get("metadata") is not None:
        out["metadata"] = obj["metadata"]
    return out


def to_notification(n: Any) -> Dict[str, Any]:
    if not isinstance(n, dict):
        raise TypeError(f"a notification must be a dict with title and message, got {type(n).__name__}")
    return {"level": n.get("level", "info"), "title": n.get("title"), "message": n.get("message")}


def to_context(c: Any) -> Dict[str, Any]:
    if not isinstance(c, dict):
        raise TypeError(f"a context contribution must be a dict with label and content, got {type(c).__name__}")
    return {"label": c.get("label"), "content": c.get("content"), "placement": c.get("placement") or "prompt_suffix"}


def to_command_result(value: Any) -> Dict[str, Any]:
    if isinstance(value, str):
        return {"text": value, "notifications": [], "context": []}
    if not isinstance(value, dict):
        raise TypeError(f"a command handler must return a str or a dict with text, got {type(value).__name__}")
    return {
        "text": value.get("text"),
        "notifications": [to_notification(n) for n in value.get("notifications") or []],
        "context": [to_context(c) for c in value.get("context") or []],
    }


def to_hook_result(value: Any) -> Dict[str, Any]:
    """None (continue), or a dict with `deny` (a reason: the hook denies), `context`,
    `notifications`. A dict that already has a `disposition` is taken as the wire result."""
    v = value or {}
    if not isinstance(v, dict):
        raise TypeError(f"a hook handler must return None or a dict, got {type(v).__name__}")
    if "disposition" in v:
        disposition = v["disposition"]
    elif v.get("deny") is not None:
        disposition = {"action": "deny", "reason": v["deny"]}
    else:
        disposition = {"action": "continue"}
    return {
        "disposition": disposition,
        "context": [to_context(c) for c in v.get("context") or []],
        "notifications": [to_notification(n) for n in v.get("notifications") or []],
    }


def to_status_result(value: Any, surface: str) -> Optional[Dict[str, Any]]:
    if value is None:
        return None
    if isinstance(value, str):
        return {"surface": surface, "text": value, "style_role": None, "priority": 0}
    if not isinstance(value, dict):
        raise TypeError(f"a status handler must return None, a str or a dict with text, got {type(value).__name__}")
    return {"surface": surface, "text": value.get("text"), "style_role": value.get("style_role"),
            "priority": value.get("priority", 0)}


def to_render_result(value: Any) -> Dict[str, List[Any]]:
    if isinstance(value, str):
        return {"segments": [{"text": value, "style_role": None}]}
    if not isinstance(value, list):
        raise TypeError(f"a renderer must return a str or a list of segments, got {type(value).__name__}")
    return {"segments": [dict(s, style_role=s.get("style_role")) if isinstance(s, dict) else s for s in value]}
