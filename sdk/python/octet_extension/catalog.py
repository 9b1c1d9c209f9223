"""The extension's side of dynamic tools (CAT-09, CAT-14..16; PY-09, PY-10), mirroring
sdk/typescript/src/catalog.ts: the catalog epochs this process published, so a tool/call is
dispatched with the tools of the epoch the model saw.

A call's catalog_revision may be older than the newest epoch (a model request in flight keeps the
catalog it was given) or newer than the last one committed here (the host publishes before its
acknowledgement arrives). So the last eight committed epochs are kept, plus the staged next one
while a mutation waits for its answer; any other epoch is refused with -32602 (CAT-16).
Mutations run one at a time (an asyncio lock on the event loop), so at most one epoch is staged.
"""
import asyncio
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

from ._bounds import MAX_TOOLS
from .errors import ErrorCode, WireError

__all__ = ["ToolCatalog", "RETAINED_EPOCHS"]

#: Committed epochs kept for calls planned against older catalogs.
RETAINED_EPOCHS = 8

ToolMap = Dict[str, Any]  # name -> (definition, handler)


class ToolCatalog:
    def __init__(self, initial: ToolMap) -> None:
        # Oldest first; at most RETAINED_EPOCHS. Epoch 0 is the initialize catalog (CAT-09).
        self._committed: List[Tuple[int, ToolMap]] = [(0, dict(initial))]
        self._staged: Optional[Tuple[int, ToolMap]] = None
        self._lock: Optional[asyncio.Lock] = None

    @property
    def revision(self) -> int:
        return self._committed[-1][0]

    @property
    def current(self) -> ToolMap:
        return self._committed[-1][1]

    @property
    def known(self) -> List[int]:
        """The epochs a call may name now: the committed ones kept, and the staged one."""
        return [r for r, _ in self._committed] + ([self._staged[0]] if self._staged else [])

    def at(self, revision: Optional[int]) -> ToolMap:
        """The tools of `revision` (the newest committed when None); -32602 for one not kept."""
        if revision is None:
            return self.current
        if self._staged is not None and self._staged[0] == revision:
            return self._staged[1]
        for r, tools in self._committed:
            if r == revision:
                return tools
        known = ", ".join(str(r) for r in self.known)
        raise WireError(
            ErrorCode.INVALID_PARAMS,
            f"unknown or retired catalog_revision {revision}; this process keeps epochs {known}",
        )

    async def mutate(
        self, next_tools: Callable[[ToolMap], ToolMap], send: Callable[[], Awaitable[Any]]
    ) -> Dict[str, Any]:
        """One mutation (event loop): `next_tools` builds the complete catalog asked for, `send`
        sends the request and returns the host's answer. While it waits the proposal is staged;
        the committed epoch holds exactly the tools the host accepted (its list is authoritative,
        CAT-08). Returns {"revision": n, "tools": [names]}."""
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            proposed = next_tools(self.current)
            self._staged = (self.revision + 1, proposed)
            try:
                raw = await send()
                revision, names = _check_result(raw)
                accepted: ToolMap = {}
                for name in names:
                    if name not in proposed:
                        raise RuntimeError(
                            f'the host accepted tool "{name}", which this catalog mutation did not contain'
                        )
                    accepted[name] = proposed[name]
                self._committed.append((revision, accepted))
                if len(self._committed) > RETAINED_EPOCHS:
                    self._committed.pop(0)
                return {"revision": revision, "tools": names}
            finally:
                self._staged = None


def _check_result(raw: Any) -> Tuple[int, List[str]]:
    problem = None
    if not isinstance(raw, dict):
        problem = "expected an object"
    elif set(raw) - {"revision", "tools"}:
        problem = f"unknown member(s) {', '.join(sorted(set(raw) - {'revision', 'tools'}))}"
    elif not isinstance(raw.get("revision"), int) or isinstance(raw.get("revision"), bool) or raw["revision"] < 1:
        problem = f"revision must be an integer >= 1, got {raw.get('revision')!r}"
    elif not isinstance(raw.get("tools"), list) or not all(isinstance(n, str) for n in raw["tools"]):
        problem = "tools must be the complete accepted list of names"
    elif len(raw["tools"]) > MAX_TOOLS or len(set(raw["tools"])) != len(raw["tools"]):
        problem = f"tools must hold at most {MAX_TOOLS} distinct names"
    if problem is not None:
        raise RuntimeError(f"the host answered the catalog mutation with an invalid result: {problem}")
    return raw["revision"], list(raw["tools"])
