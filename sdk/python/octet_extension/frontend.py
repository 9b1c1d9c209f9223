"""The interactive frontend from an extension (W 2.19, W 2.20, W 1.11, W 2.24b), mirroring
sdk/typescript/src/frontend.ts:

- ``ctx.composer.get/set/insert``: the host's prompt line, parented to the running tool/call or
  command/execute; text is checked here first (256 KiB, no controls but LF/TAB, no lone
  surrogate) and refused with bounds_exceeded (ValueError) / invalid_request (TypeError).
- ``@ext.shortcut(key, description=...)``: sent as shortcut/register inside initialize (its id
  as parent_request_id, WAVE1-24) with the canonical key as a stable id; a trigger for an id that
  was never sent or was refused runs nothing (WAVE1-03).
- ``@ext.autocomplete``: ui/autocomplete/register once initialize is answered; the handler's
  answer to ui/autocomplete/complete is checked against the exact request before it is sent.

Key syntax (WAVE1-26): lowercase ``+``-joined modifiers from ctrl, alt, shift, meta (= alt) and
one key a-z, 0-9 or f1..f12; a letter or digit needs ctrl or alt; keys the host's line editor
binds (Ctrl-A..., Tab, Enter) are refused.
"""
import asyncio
import re
from typing import Any, Callable, Dict, List, Optional, Tuple

from .errors import ErrorCode, WireError
from .peer import Link, diagnose
from .reverse import PARENT_METHODS, send
from .scope import RequestScope

__all__ = ["Composer", "Frontend", "parse_shortcut_key"]

# The bounds of W 2.19 / 2.20 / 2.24b (packages/protocol/src/api/validate-frontend.ts).
MAX_COMPOSER_BYTES = 262144
MAX_SHORTCUTS = 64
MAX_SHORTCUT_ID_BYTES = 128
MAX_SHORTCUT_DESCRIPTION_BYTES = 4096
MAX_AUTOCOMPLETE_ITEMS = 32
MAX_AUTOCOMPLETE_FIELD_BYTES = 1024
MAX_U32 = 0xFFFFFFFF

_RESERVED = {f"ctrl+{c}" for c in "abcdefhijklmnptuwyz"} | {f"alt+{c}" for c in "bdfy"}


def parse_shortcut_key(text: str) -> Tuple[Optional[str], Optional[str]]:
    """(canonical key, None) or (None, the problem)."""
    if not isinstance(text, str) or not 0 < len(text.encode("utf-8", "surrogatepass")) <= 128:
        return None, f"{text!r}: a key is a string of 1 to 128 bytes"
    *mods, name = text.split("+")
    seen: List[str] = []
    for m in mods:
        if m not in ("ctrl", "alt", "shift", "meta"):
            return None, f'"{text}": unknown modifier "{m}" (ctrl, alt, shift, meta)'
        m = "alt" if m == "meta" else m
        if m in seen:
            return None, f'"{text}": modifier "{m}" is given twice'
        seen.append(m)
    fkey = re.fullmatch(r"f([1-9]|1[0-2])", name) is not None
    if not fkey and re.fullmatch(r"[a-z0-9]", name) is None:
        return None, f'"{text}": key "{name}" is not a-z, 0-9 or f1..f12 (lowercase)'
    if not fkey and (not seen or seen == ["shift"]):
        return None, f'"{text}": a letter or digit needs ctrl or alt'
    canonical = "+".join([m for m in ("ctrl", "alt", "shift") if m in seen] + [name])
    if canonical in _RESERVED:
        return None, f'"{text}": {canonical} is bound by the line editor'
    return canonical, None


def _check_text(what: str, field: str, value: Any, limit: int, controls: str = "") -> str:
    if not isinstance(value, str):
        raise TypeError(f"invalid_request {what}: {field}: expected a str, got {type(value).__name__}")
    try:
        n = len(value.encode("utf-8"))
    except UnicodeEncodeError:
        raise TypeError(f"invalid_request {what}: {field}: a lone surrogate is not UTF-8") from None
    if n > limit:
        raise ValueError(f"bounds_exceeded {what}: {field}: {n} bytes, over the {limit}-byte limit")
    for i, c in enumerate(value):
        if (ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F) and c not in controls:
            raise TypeError(f"invalid_request {what}: {field}: control character U+{ord(c):04X} at index {i}")
    return value


class Composer:
    """composer/get, composer/set and composer/insert for the running request."""

    def __init__(self, link: Callable[[], Optional[Link]], scope: Callable[[], Optional[RequestScope]]) -> None:
        self._link, self._scope = link, scope

    @property
    def available(self) -> bool:
        link = self._link()
        return link is not None and "composer" in link.features

    def get(self) -> Any:
        """The composer's text."""
        return self._call("get", "composer/get", {})

    def set(self, text: str) -> Any:
        """Replaces the whole composer line."""
        _check_text("composer.set()", "text", text, MAX_COMPOSER_BYTES, "\n\t")
        return self._call("set", "composer/set", {"text": text})

    def insert(self, text: str) -> Any:
        """Inserts at the composer's cursor."""
        _check_text("composer.insert()", "text", text, MAX_COMPOSER_BYTES, "\n\t")
        return self._call("insert", "composer/insert", {"text": text})

    def _call(self, what: str, method: str, params: Dict[str, Any]) -> Any:
        link = self._link()
        if link is None or "composer" not in link.features:
            raise RuntimeError(f"composer.{what}() needs the composer feature, which the host did not offer")
        scope = self._scope()
        if scope is None or scope.method not in PARENT_METHODS or not scope.active or not isinstance(scope.id, int):
            raise RuntimeError(f"composer.{what}() must be called from an active tool/call or command/execute handler")
        wire = {"parent_request_id": scope.id, **params}

        async def run() -> Any:
            answer = await send(scope, link, method, wire)
            if what != "get":
                return None
            if not isinstance(answer, dict) or not isinstance(answer.get("text"), str):
                raise RuntimeError("the host's composer/get answer is invalid: expected {text}")
            return answer["text"]
        return link.call(run)


class _Shortcut:
    __slots__ = ("id", "key", "description", "handler", "state")

    def __init__(self, sid: str, key: str, description: str, handler: Callable[[], Any]) -> None:
        self.id, self.key, self.description, self.handler = sid, key, description, handler
        # "sent" is triggerable: a trigger may be read before the registration's answer.
        self.state = "unsent"


class Frontend:
    """What ``@ext.shortcut`` and ``@ext.autocomplete`` registered, and their wire side."""

    def __init__(self) -> None:
        self._shortcuts: Dict[str, _Shortcut] = {}
        self._autocomplete: Optional[Callable[[Dict[str, Any]], Any]] = None

    @property
    def wants_shortcuts(self) -> bool:
        return bool(self._shortcuts)

    @property
    def wants_autocomplete(self) -> bool:
        return self._autocomplete is not None

    def add_shortcut(self, key: str, handler: Callable[[], Any], description: str = "") -> str:
        if not callable(handler):
            raise TypeError(f'shortcut("{key}") needs a callable handler (WAVE1-25)')
        canonical, problem = parse_shortcut_key(key)
        if canonical is None:
            raise TypeError(f"invalid_request shortcut(): {problem}")
        sid = f"key:{canonical}"
        if sid in self._shortcuts:
            raise TypeError(f"invalid_request shortcut(): {canonical} is registered twice")
        if len(self._shortcuts) >= MAX_SHORTCUTS:
            raise ValueError(f"bounds_exceeded shortcut(): {MAX_SHORTCUTS} shortcuts is the limit")
        _check_text("shortcut()", "description", description, MAX_SHORTCUT_DESCRIPTION_BYTES, "\n\t")
        self._shortcuts[sid] = _Shortcut(sid, canonical, description, handler)
        return sid

    def set_autocomplete(self, handler: Callable[[Dict[str, Any]], Any]) -> None:
        if not callable(handler):
            raise TypeError("autocomplete() needs a callable handler")
        self._autocomplete = handler

    def register_shortcuts(self, link: Link, initialize_id: Any) -> None:
        """Inside initialize, before its answer is written (WAVE1-24)."""
        if "shortcuts" not in link.features or not isinstance(initialize_id, int):
            return
        for s in self._shortcuts.values():
            params = {"parent_request_id": initialize_id, "id": s.id, "key": s.key, "description": s.description}
            s.state = "sent"
            _, future = link.peer.request("shortcut/register", params)

            def settled(f: "asyncio.Future[Any]", s: _Shortcut = s) -> None:
                if f.cancelled() or f.exception() is not None:
                    s.state = "refused"
                    diagnose(f"shortcut {s.key} was refused by the host and is unavailable")
                else:
                    s.state = "live"
            future.add_done_callback(settled)

    def register_autocomplete(self, link: Link, retries: int = 20) -> None:
        """After the initialize answer: ui/autocomplete/register, retried while the host starts."""
        if self._autocomplete is None or "autocomplete" not in link.features:
            return

        def attempt(left: int) -> None:
            _, future = link.peer.request("ui/autocomplete/register", {"revision": 0})

            def settled(f: "asyncio.Future[Any]") -> None:
                err = None if f.cancelled() else f.exception()
                if err is None:
                    return
                if left > 0 and "not ready" in str(err):
                    link.loop.call_later(0.025, attempt, left - 1)
                else:
                    diagnose(f"ui/autocomplete/register was refused: {err}")
            future.add_done_callback(settled)
        link.loop.call_soon(attempt, retries)

    def triggered(self, params: Any) -> Optional[Callable[[], Any]]:
        """The handler a shortcut/trigger runs, or None (fail closed)."""
        sid = params.get("id") if isinstance(params, dict) else None
        s = self._shortcuts.get(sid) if isinstance(sid, str) else None
        return s.handler if s is not None and s.state in ("sent", "live") else None

    async def complete(self, params: Any, link: Optional[Link], run: Callable[..., Any]) -> Dict[str, Any]:
        """ui/autocomplete/complete: the handler's answer, checked against this exact request."""
        if link is None or "autocomplete" not in link.features or self._autocomplete is None:
            raise WireError(ErrorCode.METHOD_NOT_FOUND, "ui/autocomplete/complete: no autocomplete handler")
        if not isinstance(params, dict) or not isinstance(params.get("text"), str) \
                or not isinstance(params.get("cursor"), int) or not isinstance(params.get("revision"), int):
            raise WireError(ErrorCode.INVALID_PARAMS, "ui/autocomplete/complete: expected {text, cursor, revision}")
        query = {"text": params["text"], "cursor": params["cursor"], "revision": params["revision"]}
        answer = await run(self._autocomplete, query)
        return check_answer(answer, query, "autocomplete_edit_v1" in link.features)


def check_answer(answer: Any, query: Dict[str, Any], edit_v1: bool) -> Dict[str, Any]:
    """The wire answer (ACMP-03..12), or a WireError naming the first problem."""
    what = "autocomplete handler answer"
    try:
        if answer is None:
            return {"prefix": "", "items": []}
        if not isinstance(answer, dict) or not isinstance(answer.get("items"), list):
            raise TypeError(f"invalid_request {what}: expected None or {{prefix, items}}")
        edit_controls = "\n\t\r" if edit_v1 else ""
        prefix = _check_text(what, "prefix", answer.get("prefix", ""), MAX_AUTOCOMPLETE_FIELD_BYTES, edit_controls)
        before = query["text"].encode("utf-8")[: query["cursor"]]
        if not before.endswith(prefix.encode("utf-8")):
            raise TypeError(f"invalid_request {what}: prefix is not the exact suffix of the text before the cursor")
        raw = answer["items"]
        if len(raw) > MAX_AUTOCOMPLETE_ITEMS:
            raise ValueError(f"bounds_exceeded {what}: {len(raw)} items, over the {MAX_AUTOCOMPLETE_ITEMS}-item limit")
        items = []
        for i, item in enumerate(raw):
            if not isinstance(item, dict):
                raise TypeError(f"invalid_request {what}: items[{i}] is not an object")
            out: Dict[str, Any] = {
                "value": _check_text(what, f"items[{i}].value", item.get("value"), MAX_AUTOCOMPLETE_FIELD_BYTES,
                                     edit_controls),
                "label": _check_text(what, f"items[{i}].label", item.get("label"), MAX_AUTOCOMPLETE_FIELD_BYTES),
                "description": None if item.get("description") is None else _check_text(
                    what, f"items[{i}].description", item["description"], MAX_AUTOCOMPLETE_FIELD_BYTES),
            }
            for name in ("replace_after_bytes", "cursor_offset_bytes"):
                if name not in item:
                    continue
                n = item[name]
                if not edit_v1:
                    raise TypeError(f"invalid_request {what}: items[{i}].{name} needs autocomplete_edit_v1")
                if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= MAX_U32:
                    raise TypeError(f"invalid_request {what}: items[{i}].{name}: expected 0..{MAX_U32}, got {n!r}")
                out[name] = n
            items.append(out)
        return {"prefix": prefix, "items": items}
    except (TypeError, ValueError) as err:
        raise WireError(ErrorCode.INTERNAL_ERROR, str(err)) from None
