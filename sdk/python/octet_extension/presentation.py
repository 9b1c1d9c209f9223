"""``ext.presentation`` (W 2.5): publishing complete semantic state snapshots with
presentation/update, mirroring sdk/typescript/src/presentation.ts.

Ownership, in order: an explicit `owner` (a background publisher passes the host-issued triple
it received in a request's context["resource_owner"], PRES-03); else, inside an active request
handler, that request as parent_request_id (PRES-02); else process-scoped state (PRES-05).
There is no feature to negotiate: the manifest's contributes.presentation, echoed in initialize,
is what the host admits snapshots by (PRES-01). The snapshot's detailed rules are the host's
validator; here the shape, the owner rules and the size bound are checked before sending.
"""
from typing import Any, Callable, Dict, Optional

from ._bounds import MAX_PRESENTATION_BYTES
from .framing import encode_frame
from .peer import Link
from .scope import current_scope

__all__ = ["Presentation"]

_OWNER_KEYS = {"session_id", "extension_instance_id", "process_generation"}


class Presentation:
    def __init__(self, link: Callable[[], Optional[Link]]) -> None:
        self._link = link

    def update(
        self, snapshot: Dict[str, Any], *, owner: Optional[Dict[str, Any]] = None, scope: Optional[str] = None
    ) -> None:
        """Sends one complete snapshot. Raises (sending nothing) on API 0.1, before initialize,
        without `presentation = true` under [contributes], or when the snapshot breaks a rule."""
        link = self._link()
        if link is None:
            raise RuntimeError("presentation.update() is available only after the host initialized the extension")
        if link.api == "0.1":
            raise RuntimeError(
                "presentation.update() needs API 0.2 or later (presentation/update is not part of API 0.1)"
            )
        contributes = link.contributes or {}
        if contributes.get("presentation") is not True:
            raise RuntimeError(
                "presentation.update() needs `presentation = true` under [contributes] in extension.toml; the host "
                "drops snapshots of an extension that does not declare it"
            )
        if not isinstance(snapshot, dict):
            raise TypeError(f"presentation.update() snapshot must be a dict, got {type(snapshot).__name__}")
        if scope not in (None, "process"):
            raise ValueError(f'presentation.update() scope must be "process" or None, got {scope!r}')
        params: Dict[str, Any] = {"snapshot": snapshot}
        if owner is not None:
            if scope == "process":
                raise ValueError('presentation.update(): owner and scope "process" are exclusive')
            if not isinstance(owner, dict) or set(owner) != _OWNER_KEYS:
                raise TypeError(
                    "presentation.update() owner must be the host-issued resource_owner dict (session_id, "
                    "extension_instance_id, process_generation)"
                )
            params["resource_owner"] = owner
        elif scope != "process":
            running = current_scope()
            if running is not None and running.active and isinstance(running.id, int):
                params["parent_request_id"] = running.id
        size = len(encode_frame(snapshot)) - 1
        if size > MAX_PRESENTATION_BYTES:
            raise ValueError(
                f"presentation.update(): the snapshot is {size} bytes, over the {MAX_PRESENTATION_BYTES}-byte limit"
            )
        link.peer.notify("presentation/update", params)
